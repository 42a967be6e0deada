// The attention store keeps a head's weights within its memory budget: exact while they fit, then
// pooled to block × block maxima that match a brute-force maximum over the full matrix, whether the
// rows arrive as one prefill, one decode row at a time, or the budget shrinks afterwards; its bytes
// never exceed the budget however long the sequence grows.

#include <QTest>
#include <cmath>
#include <random>

#include "attention_store.h"

using namespace inferlens::widgets;

namespace {

// A full causal matrix over n positions with random weights (rows normalised), the reference the
// pooled cells are checked against.
std::vector<float> randomCausal(int n, uint32_t seed) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    std::vector<float> weights(size_t(n) * size_t(n), 0.0f);
    for (int q = 0; q < n; ++q) {
        float sum = 0;
        for (int k = 0; k <= q; ++k)
            sum += weights[size_t(q) * size_t(n) + size_t(k)] = std::pow(uniform(random), 4.0f);
        for (int k = 0; k <= q; ++k)
            weights[size_t(q) * size_t(n) + size_t(k)] /= sum;
    }
    return weights;
}

// Rows [first, first + count) of the full matrix over `keys` keys, as the engine sends them.
AttentionMatrix rowsOf(const std::vector<float>& full, int n, int first, int count, int keys) {
    AttentionMatrix m{1, 2, first, count, keys, {}};
    for (int q = first; q < first + count; ++q)
        for (int k = 0; k < keys; ++k)
            m.weights.push_back(full[size_t(q) * size_t(n) + size_t(k)]);
    return m;
}

// Every cell of the store equals the maximum of its block over the rows it was given
// [firstQuery, endQuery), each with keys [0, keysOf(query)); cells of nothing given hold NaN.
template <typename KeysOf>
void checkAgainstBruteForce(const AttentionStore& store, const std::vector<float>& full, int n,
                            int firstQuery, int endQuery, int keys, KeysOf keysOf) {
    const int b = store.block();
    QCOMPARE(store.firstCellRow(), firstQuery / b);
    QCOMPARE(store.endCellRow(), (endQuery + b - 1) / b);
    QCOMPARE(store.cellColumns(), (keys + b - 1) / b);
    for (int row = store.firstCellRow(); row < store.endCellRow(); ++row) {
        for (int column = 0; column < store.cellColumns(); ++column) {
            double expected = std::nan("");
            for (int q = std::max(row * b, firstQuery); q < std::min((row + 1) * b, endQuery); ++q)
                for (int k = column * b; k < std::min((column + 1) * b, keysOf(q)); ++k)
                    expected = std::fmax(expected, double(full[size_t(q) * size_t(n) + size_t(k)]));
            const float actual = store.cell(row, column);
            if (std::isnan(expected) ? !std::isnan(actual) : actual != float(expected))
                QFAIL(qPrintable(QString("cell (%1, %2) at block %3: %4, expected %5")
                                     .arg(row)
                                     .arg(column)
                                     .arg(b)
                                     .arg(double(actual))
                                     .arg(expected)));
        }
    }
    QVERIFY(std::isnan(store.cell(store.endCellRow(), 0)));
    QVERIFY(std::isnan(store.cell(store.firstCellRow(), store.cellColumns())));
}

}  // namespace

class TestAttentionStore : public QObject {
    Q_OBJECT
  private slots:
    void blockForIsTheSmallestPowerOfTwoThatFits() {
        QCOMPARE(AttentionStore::blockFor(100, 100 * 100 * 8), 1);
        QCOMPARE(AttentionStore::blockFor(101, 100 * 100 * 8), 2);
        QCOMPARE(AttentionStore::blockFor(200, 100 * 100 * 8), 2);
        QCOMPARE(AttentionStore::blockFor(201, 100 * 100 * 8), 4);
        // The default budget holds a 2,048-token context exactly and a 32k one at 4 × 4.
        QCOMPARE(AttentionStore::blockFor(2048, AttentionStore::kDefaultBudgetBytes), 1);
        QCOMPARE(AttentionStore::blockFor(8192, AttentionStore::kDefaultBudgetBytes), 1);
        QCOMPARE(AttentionStore::blockFor(32768, AttentionStore::kDefaultBudgetBytes), 4);
        // A budget below the minimum counts as the minimum.
        QCOMPARE(AttentionStore::blockFor(1000, 1), AttentionStore::blockFor(1000, 4096));
    }

    void exactWhileItFits() {
        const int n = 50;
        const std::vector<float> full = randomCausal(n, 1);
        AttentionStore store(n * n * 8);
        store.set(rowsOf(full, n, 0, 20, 20));
        for (int q = 20; q < n; ++q)
            store.append(rowsOf(full, n, q, 1, q + 1));
        QCOMPARE(store.block(), 1);
        QCOMPARE(store.queryCount(), n);
        QCOMPARE(store.keyCount(), n);
        for (int q = 0; q < n; ++q)
            for (int k = 0; k <= q; ++k)
                QCOMPARE(store.weight(q, k), full[size_t(q) * n + size_t(k)]);
        QCOMPARE(store.weight(3, 40), 0.0f);  // never given
        QVERIFY(store.bytes() <= store.budgetBytes());
    }

    void aPrefillOverTheBudgetIsPooledToBlockMaxima() {
        const int n = 300;
        const std::vector<float> full = randomCausal(n, 2);
        AttentionStore store(16 << 10);  // 2,048 cells: 300 positions need blocks of 8
        const AttentionStore::Change change = store.set(rowsOf(full, n, 0, n, n));
        QVERIFY(change.relaid);
        QCOMPARE(store.block(), 8);
        QVERIFY(store.bytes() <= store.budgetBytes());
        checkAgainstBruteForce(store, full, n, 0, n, n, [n](int) { return n; });
        // The weight of a position is its cell's maximum.
        QCOMPARE(store.weight(299, 5), store.cell(299 / 8, 0));
    }

    void decodeRowsStayWithinTheBudgetAndMatchTheReference() {
        const int n = 700;
        const std::vector<float> full = randomCausal(n, 3);
        AttentionStore store(24 << 10);
        store.set(rowsOf(full, n, 5, 30, 35));  // rows from position 5, as after a skipped prefix
        int blocks = 1;
        for (int q = 35; q < n; ++q) {
            const AttentionStore::Change change = store.append(rowsOf(full, n, q, 1, q + 1));
            if (!change.relaid) {
                QCOMPARE(change.firstRow, q / store.block());
                QCOMPARE(change.endRow, q / store.block() + 1);
            }
            if (store.bytes() > store.budgetBytes())
                QFAIL(qPrintable(QString("%1 bytes after %2 rows").arg(store.bytes()).arg(q)));
            blocks = std::max(blocks, store.block());
        }
        QCOMPARE(blocks, AttentionStore::blockFor(n, 24 << 10));
        checkAgainstBruteForce(store, full, n, 5, n, n, [](int q) { return q < 35 ? 35 : q + 1; });
    }

    void aSmallerBudgetPoolsWhatIsHeld() {
        const int n = 120;
        const std::vector<float> full = randomCausal(n, 4);
        AttentionStore store;
        store.set(rowsOf(full, n, 0, n, n));
        QCOMPARE(store.block(), 1);
        const AttentionStore::Change change = store.setBudget(8 << 10);
        QVERIFY(change.relaid);
        QCOMPARE(store.block(), AttentionStore::blockFor(n, 8 << 10));
        QVERIFY(store.bytes() <= 8 << 10);
        checkAgainstBruteForce(store, full, n, 0, n, n, [n](int) { return n; });
        // A larger budget keeps the pooled cells (the detail is gone) until the next matrix.
        store.setBudget(AttentionStore::kDefaultBudgetBytes);
        QCOMPARE(store.block(), AttentionStore::blockFor(n, 8 << 10));
        store.set(rowsOf(full, n, 0, n, n));
        QCOMPARE(store.block(), 1);
    }

    void rowsAtBlockOneOverwriteAndOthersReplace() {
        AttentionStore store;
        store.set({0, 0, 0, 2, 2, {1, 0, 0.5f, 0.5f}});
        store.append({0, 0, 1, 1, 2, {0.25f, 0.75f}});  // row 1 given again
        QCOMPARE(store.weight(1, 0), 0.25f);
        QCOMPARE(store.weight(1, 1), 0.75f);
        QCOMPARE(store.queryCount(), 2);
        // Another head, or rows before the first held, start over.
        store.append({0, 1, 5, 1, 6, std::vector<float>(6, 1.0f / 6)});
        QCOMPARE(store.head(), 1);
        QCOMPARE(store.firstQuery(), 5);
        QCOMPARE(store.queryCount(), 1);
        store.append({0, 1, 2, 1, 3, {0.2f, 0.3f, 0.5f}});
        QCOMPARE(store.firstQuery(), 2);
        // A short weights vector reads as zeros; nothing is read past its end.
        store.append({0, 1, 3, 2, 4, {0.5f, 0.5f}});
        QCOMPARE(store.weight(3, 1), 0.5f);
        QCOMPARE(store.weight(4, 0), 0.0f);
        store.clear();
        QVERIFY(store.empty());
        QCOMPARE(store.bytes(), int64_t(0));
    }
};

QTEST_MAIN(TestAttentionStore)
#include "test_attention_store.moc"
