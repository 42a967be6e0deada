#include "attention_store.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace inferlens::widgets {

namespace {

constexpr float kNotGiven = std::numeric_limits<float>::quiet_NaN();
constexpr int kMinimumCapacity = 16;

int64_t cellsPerSide(int64_t positions, int block) {
    return (positions + block - 1) / block;
}

}  // namespace

int AttentionStore::blockFor(int64_t positions, int64_t budgetBytes) {
    const int64_t cells = std::max(budgetBytes, kMinimumBudgetBytes) / kBytesPerCell;
    int block = 1;
    while (block < (1 << 30) &&
           cellsPerSide(positions, block) * cellsPerSide(positions, block) > cells)
        block *= 2;
    return block;
}

AttentionStore::AttentionStore(int64_t budgetBytes)
    : budget_(std::max(budgetBytes, kMinimumBudgetBytes)) {}

float AttentionStore::cell(int row, int column) const {
    if (row < firstCellRow() || row >= endCellRow() || column < 0 || column >= cellColumns())
        return kNotGiven;
    return cells_[size_t(row - firstCellRow()) * size_t(capacityColumns_) + size_t(column)];
}

float AttentionStore::weight(int query, int key) const {
    if (query < firstQuery_ || query >= queryEnd_ || key < 0 || key >= keyCount_)
        return 0;
    const float value = cell(query / block_, key / block_);
    return std::isnan(value) ? 0.0f : value;
}

void AttentionStore::clear() {
    layer_ = head_ = -1;
    firstQuery_ = queryEnd_ = keyCount_ = 0;
    block_ = 1;
    capacityRows_ = capacityColumns_ = 0;
    cells_.clear();
    cells_.shrink_to_fit();
}

void AttentionStore::relayout(int block) {
    const int oldBlock = block_, oldBase = firstCellRow();
    const int oldRows = capacityRows_, oldColumns = capacityColumns_;
    const std::vector<float> old = std::move(cells_);
    block_ = block;
    // Room for twice what is needed (amortised O(1) copies per new row), but never past the
    // largest square the budget holds: the block was chosen so that the square grid over every
    // position fits that square.
    const int side = int(std::sqrt(double(budget_ / kBytesPerCell)));
    const auto capacity = [side](int need) {
        return std::max(need, std::min(side, std::max(2 * need, kMinimumCapacity)));
    };
    capacityRows_ = capacity(std::max(endCellRow() - firstCellRow(), 1));
    capacityColumns_ = capacity(std::max(cellColumns(), 1));
    cells_.assign(size_t(capacityRows_) * size_t(capacityColumns_), kNotGiven);
    // Rows of the old capacity past the old extent hold nothing (NaN) and map nowhere.
    for (int r = 0; r < oldRows; ++r) {
        for (int c = 0; c < oldColumns; ++c) {
            const float value = old[size_t(r) * size_t(oldColumns) + size_t(c)];
            if (std::isnan(value))
                continue;
            float& merged = row((oldBase + r) * oldBlock / block_)[c * oldBlock / block_];
            if (!(merged >= value))
                merged = value;
        }
    }
}

bool AttentionStore::ensureCapacity() {
    if (endCellRow() - firstCellRow() <= capacityRows_ && cellColumns() <= capacityColumns_)
        return false;
    relayout(block_);
    return true;
}

void AttentionStore::poolRows(const AttentionMatrix& rows) {
    const int keys = std::max(rows.keyCount, 0);
    for (int i = 0; i < rows.queryCount; ++i) {
        float* line = row((rows.firstQuery + i) / block_);
        // A short weights vector (a malformed event) reads as zeros past its end.
        const size_t begin = size_t(i) * size_t(keys);
        for (int key = 0; key < keys; ++key) {
            const float w = begin + size_t(key) < rows.weights.size()
                                ? rows.weights[begin + size_t(key)]
                                : 0.0f;
            float& target = line[key / block_];
            if (block_ == 1 || !(target >= w))
                target = w;
        }
    }
}

AttentionStore::Change AttentionStore::set(const AttentionMatrix& matrix) {
    clear();
    layer_ = matrix.layer;
    head_ = matrix.head;
    firstQuery_ = std::max(matrix.firstQuery, 0);
    queryEnd_ = firstQuery_ + std::max(matrix.queryCount, 0);
    keyCount_ = std::max(matrix.keyCount, 0);
    if (empty())
        return {};
    relayout(blockFor(std::max(queryEnd_, keyCount_), budget_));
    AttentionMatrix rows = matrix;  // its rows with the clamped extent
    rows.firstQuery = firstQuery_;
    rows.queryCount = queryEnd_ - firstQuery_;
    poolRows(rows);
    return {firstCellRow(), endCellRow(), true};
}

AttentionStore::Change AttentionStore::append(const AttentionMatrix& rows) {
    if (rows.queryCount <= 0)
        return {};
    if (empty() || rows.layer != layer_ || rows.head != head_ || rows.firstQuery < firstQuery_)
        return set(rows);
    const int oldColumns = cellColumns();
    queryEnd_ = std::max(queryEnd_, rows.firstQuery + rows.queryCount);
    keyCount_ = std::max(keyCount_, rows.keyCount);
    Change change;
    const int block = std::max(block_, blockFor(std::max(queryEnd_, keyCount_), budget_));
    if (block != block_) {
        relayout(block);
        change.relaid = true;
    } else {
        change.relaid = ensureCapacity();
    }
    poolRows(rows);
    change.firstRow = rows.firstQuery / block_;
    change.endRow = (rows.firstQuery + rows.queryCount - 1) / block_ + 1;
    if (cellColumns() > oldColumns) {
        // Rows reaching the new columns gain cells that are not masked: they are redrawn too.
        change.firstRow = std::min(change.firstRow, std::max(firstCellRow(), oldColumns));
        change.endRow = endCellRow();
    }
    return change;
}

AttentionStore::Change AttentionStore::setBudget(int64_t bytes) {
    budget_ = std::max(bytes, kMinimumBudgetBytes);
    if (empty())
        return {};
    const int block = std::max(block_, blockFor(std::max(queryEnd_, keyCount_), budget_));
    if (block == block_ && this->bytes() <= budget_)
        return {};
    relayout(block);
    return {firstCellRow(), endCellRow(), true};
}

}  // namespace inferlens::widgets
