#pragma once
// The attention weights of one head as the panels keep them: a grid of cells, each the maximum over
// block × block positions (block 1: the exact weights), held within a memory budget. Cells are
// anchored at position 0, so cell (r, c) covers queries r·block … r·block + block − 1 and the same
// range of keys. When the positions outgrow the budget the block doubles and 2 × 2 cells merge into
// one: the maximum, not the mean, so that a sink column or the diagonal survives the downsampling.
// A long generation therefore costs a fixed amount of memory instead of one growing with the square
// of its length.
//
// The budget counts kBytesPerCell per cell of capacity: the float here and the pixel the heat map
// colours it into.

#include <cstdint>
#include <vector>

#include "panel_data.h"

namespace inferlens::widgets {

class AttentionStore {
  public:
    static constexpr int64_t kDefaultBudgetBytes = int64_t(512) << 20;
    static constexpr int64_t kMinimumBudgetBytes = int64_t(4) << 10;
    static constexpr int kBytesPerCell = 8;

    // The smallest power-of-two block whose square grid over `positions` fits `budgetBytes`.
    static int blockFor(int64_t positions, int64_t budgetBytes);

    // What an update changed: cell rows [firstRow, endRow) hold new values. `relaid`: the block or
    // the capacity changed, so every cell is to be redrawn.
    struct Change {
        int firstRow = 0;
        int endRow = 0;
        bool relaid = false;
    };

    // Budgets under kMinimumBudgetBytes are raised to it.
    explicit AttentionStore(int64_t budgetBytes = kDefaultBudgetBytes);

    // Replaces what is held: rows matrix.firstQuery onwards of one head.
    Change set(const AttentionMatrix& matrix);
    // Pools rows firstQuery .. firstQuery + queryCount − 1 in (a decode step: one row). At block 1
    // a row given again overwrites the old one; pooled cells keep the maximum. Rows of another
    // layer or head, or before the first row held, replace what is held instead.
    Change append(const AttentionMatrix& rows);
    void clear();
    // Pools what is held further when the new budget needs it (the detail lost does not come back
    // with a larger budget; the next matrix set is held at the detail the new budget allows).
    Change setBudget(int64_t bytes);

    int64_t budgetBytes() const { return budget_; }
    // Bytes the cells take at their current capacity (never above the budget).
    int64_t bytes() const { return int64_t(capacityRows_) * capacityColumns_ * kBytesPerCell; }
    bool empty() const { return queryEnd_ <= firstQuery_; }

    int layer() const { return layer_; }
    int head() const { return head_; }
    int firstQuery() const { return firstQuery_; }
    int queryCount() const { return queryEnd_ - firstQuery_; }
    int keyCount() const { return keyCount_; }
    int block() const { return block_; }

    // Cell rows in use: firstCellRow() .. endCellRow() − 1 (absolute, row r covers queries
    // r·block…).
    int firstCellRow() const { return firstQuery_ / block_; }
    int endCellRow() const { return (queryEnd_ + block_ - 1) / block_; }
    int cellColumns() const { return (keyCount_ + block_ - 1) / block_; }
    // The rows and columns the storage has room for (the heat map's image has the same size).
    int capacityRows() const { return capacityRows_; }
    int capacityColumns() const { return capacityColumns_; }

    // The weight of cell (row, column), row absolute; NaN where no weight was given.
    float cell(int row, int column) const;
    // Whether every position of the cell is a future key to every query of it (the causal mask).
    static bool masked(int row, int column) { return column > row; }
    // The cell holding (query, key): the exact weight at block 1, else the block's maximum; 0 where
    // nothing was given.
    float weight(int query, int key) const;

  private:
    // Moves the cells into storage for `block` with room for the current extent, merging cells
    // when the block grows.
    void relayout(int block);
    // Room for the current extent at the current block; true when the storage moved.
    bool ensureCapacity();
    void poolRows(const AttentionMatrix& rows);
    float* row(int cellRow) {
        return cells_.data() + size_t(cellRow - firstCellRow()) * size_t(capacityColumns_);
    }

    int64_t budget_;
    int layer_ = -1, head_ = -1;
    int firstQuery_ = 0, queryEnd_ = 0;  // positions of the rows held
    int keyCount_ = 0;
    int block_ = 1;
    int capacityRows_ = 0, capacityColumns_ = 0;
    std::vector<float> cells_;  // [capacityRows_, capacityColumns_], NaN where not given
};

}  // namespace inferlens::widgets
