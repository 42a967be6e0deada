// Every CPU kernel set this machine has (portable, AVX2, AVX-512) against a double-precision
// product of the decoded weights, for every weight type, on random rows of awkward lengths: float
// types at lengths that leave every possible tail after the vector loops, block types over 1, 3
// and 17 blocks of random bytes. Float kernels must agree to f32 rounding; block kernels quantize
// the activations to 8 bits, so they may differ from the exact product by at most the error that
// rounding introduces (each activation moves by at most half its block's step, max|x| / 254),
// plus f32 rounding. Also: the sets a CPU lacks are reported as such, and
// INFERLENS_CPU_KERNELS chooses the set, as the CLI shows.

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>
#include <random>

#include "backend/cpu/cpu_features.h"
#include "backend/cpu/kernels.h"
#include "backend/cpu/packed_rows.h"
#include "backend/cpu/reference_ops.h"
#include "backend/cpu/simd_x86.h"
#include "backend/cpu/thread_pool.h"
#include "core/block_formats.h"
#include "core/dtype_codec.h"
#include "core/half.h"
#include "core/tensor.h"
#include "io/mapped_file.h"
#include "reference/reference_forward.h"
#include "support/random_blocks.h"
#include "support/test_models.h"

using namespace inferlens;

namespace {

using test::randomBlocks;

std::vector<float> randomValues(int64_t count, float scale, uint32_t seed) {
    std::mt19937 generator(seed);
    std::normal_distribution<float> normal(0.0f, scale);
    std::vector<float> values{};
    values.resize(size_t(count));
    for (float& value : values)
        value = normal(generator);
    return values;
}

std::vector<std::byte> encoded(DType dtype, const std::vector<float>& values) {
    std::vector<std::byte> bytes(size_t(*byteSize(dtype, int64_t(values.size()))));
    encodeRow(dtype, values, bytes.data());
    return bytes;
}

constexpr DType kBlockTypes[] = {DType::Q8_0, DType::Q4_0, DType::Q4_1, DType::Q5_0,
                                 DType::Q5_1, DType::Q4_K, DType::Q5_K, DType::Q6_K};

// Random rows of a float type and random activations for the float tiles, and the check of a
// tile's results against the double-precision product of the decoded rows with `x`, in tiles of
// every shape up to 4 rows × 6 tokens (the AVX-512 float tiles' largest), token counts past it
// that leave every remainder (the kernel splits them), and a caller's block of many tokens and
// rows (a prefill's tile calls take a cache line's 16), which each kernel set runs in its own
// register tiles.
// NaN in `out` wherever it is not `expected` bit for bit: TileProblem::check then fails, naming
// the tile and shape.
void markDifferences(const std::vector<float>& expected, float* out) {
    for (size_t i = 0; i < expected.size(); ++i)
        if (expected[i] != out[i])
            out[i] = NAN;
}

struct TileProblem {
    static constexpr int kRows = 18, kTokens = 13;
    std::vector<std::vector<std::byte>> rows;
    std::vector<std::vector<float>> decoded, x;

    TileProblem(DType dtype, int64_t count) {
        for (int r = 0; r < kRows; ++r) {
            rows.push_back(encoded(dtype, randomValues(count, 0.5f, uint32_t(r))));
            decoded.emplace_back(static_cast<size_t>(count));
            decodeRow(dtype, rows.back().data(), decoded.back());
        }
        for (int t = 0; t < kTokens; ++t)
            x.push_back(randomValues(count, 1.0f, uint32_t(100 + t)));
    }

    template <typename Run>
    void check(const QString& label, Run&& run) const {
        const std::vector<std::pair<int, int>> shapes{
            {1, 1}, {4, 1}, {1, 4}, {4, 4},  {3, 2},  {2, 3},  {5, 5},   {4, 6},
            {4, 7}, {4, 8}, {5, 9}, {4, 10}, {4, 11}, {5, 13}, {16, 13}, {18, 7}};
        const auto count = int64_t(x.front().size());
        std::vector<std::vector<float>> first(kRows, std::vector<float>(kTokens, NAN));
        for (const auto& [rowCount, tokenCount] : shapes) {
            const std::byte* rowPointers[kRows];
            for (int k = 0; k < kRows; ++k)
                rowPointers[k] = rows[size_t(k)].data();
            std::vector<float> out(size_t(rowCount * tokenCount));
            run(rowPointers, rowCount, tokenCount, out.data());
            for (int r = 0; r < rowCount; ++r)
                for (int t = 0; t < tokenCount; ++t) {
                    double exact = 0, magnitude = 0;
                    for (int64_t i = 0; i < count; ++i) {
                        const double p =
                            double(decoded[size_t(r)][size_t(i)]) * x[size_t(t)][size_t(i)];
                        exact += p;
                        magnitude += std::fabs(p);
                    }
                    const float got = out[size_t(t * rowCount + r)];
                    // f32 accumulation in any order: a few ulps of the magnitudes.
                    QVERIFY2(std::fabs(got - exact) <= 1e-6 * magnitude + 1e-30,
                             qPrintable(QString("%1 n=%2 %3×%4: %5 vs %6")
                                            .arg(label)
                                            .arg(count)
                                            .arg(rowCount)
                                            .arg(tokenCount)
                                            .arg(got)
                                            .arg(exact)));
                    // The same pair gives the same number in every tile shape, so a prefill and
                    // token-by-token decoding agree exactly.
                    float& seen = first[size_t(r)][size_t(t)];
                    if (std::isnan(seen))
                        seen = got;
                    QVERIFY2(got == seen, qPrintable(QString("%1 %2×%3: %4 vs %5")
                                                         .arg(label)
                                                         .arg(rowCount)
                                                         .arg(tokenCount)
                                                         .arg(double(got), 0, 'g', 9)
                                                         .arg(double(seen), 0, 'g', 9)));
                }
        }
    }
};

#if defined(__x86_64__)
// GCC 12 warns inside its own AVX-512 headers (their placeholder "undefined" vectors).
#pragma GCC diagnostic ignored "-Wuninitialized"

// The pairing simd::laneSum promises, in scalars: lanes i and i + 8, then i and i + 4, then
// (0 + 2) + (1 + 3).
float pairwiseLaneSum(const float* lanes) {
    float eight[8], four[4];
    for (int i = 0; i < 8; ++i)
        eight[i] = lanes[i] + lanes[i + 8];
    for (int i = 0; i < 4; ++i)
        four[i] = eight[i] + eight[i + 4];
    return (four[0] + four[2]) + (four[1] + four[3]);
}

// simd::laneSums of N vectors (16 values each), and simd::laneSum of each.
template <int N>
INFERLENS_AVX512 void laneSumsOf(const float* values, float* sums, float* oneByOne) {
    __m512 vectors[N];
    for (int i = 0; i < N; ++i)
        vectors[i] = _mm512_loadu_ps(values + 16 * i);
    simd::laneSums<N>(vectors, sums);
    for (int i = 0; i < N; ++i)
        oneByOne[i] = simd::laneSum(vectors[i]);
}

// Every vector's sum from laneSums<N> equals laneSum's and the scalar pairing's, bit for bit.
template <int N>
void checkLaneSums(const std::vector<float>& values) {
    float sums[N], oneByOne[N];
    laneSumsOf<N>(values.data(), sums, oneByOne);
    for (int i = 0; i < N; ++i) {
        const float expected = pairwiseLaneSum(values.data() + 16 * i);
        QVERIFY2(sums[i] == expected && oneByOne[i] == expected,
                 qPrintable(QString("N=%1 vector %2: %3 / %4 vs %5")
                                .arg(N)
                                .arg(i)
                                .arg(double(sums[i]), 0, 'g', 9)
                                .arg(double(oneByOne[i]), 0, 'g', 9)
                                .arg(double(expected), 0, 'g', 9)));
    }
}
#endif

std::vector<CpuKernels> availableKernels() {
    std::vector<CpuKernels> sets;
    for (const CpuKernels kernels : {CpuKernels::Portable, CpuKernels::Avx2, CpuKernels::Avx512})
        if (cpuSupports(kernels))
            sets.push_back(kernels);
    return sets;
}

}  // namespace

class TestCpuKernels : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        QVERIFY(cpuSupports(CpuKernels::Portable));
        for (const CpuKernels kernels : {CpuKernels::Avx2, CpuKernels::Avx512})
            if (!cpuSupports(kernels))
                qInfo("this CPU has no %s: those kernels are not run here",
                      cpuKernelsName(kernels));
    }

    // cpuSplitsWideVectors (which F16 prefills follow, reference_ops.cpp) against what Linux
    // reads off the CPU: an AMD of family 25 with AVX-512 (Zen 4), nothing else.
    void splitWideVectorsOnZen4Only() {
        QFile file("/proc/cpuinfo");
        if (!file.open(QIODevice::ReadOnly))
            QSKIP("no /proc/cpuinfo here to check the CPU against");
        QString vendor, family;
        bool avx512 = false;
        for (const QString& line : QString::fromLatin1(file.readAll()).split('\n')) {
            const QString key = line.section(':', 0, 0).trimmed();
            const QString value = line.section(':', 1).trimmed();
            if (key == "vendor_id" && vendor.isEmpty())
                vendor = value;
            else if (key == "cpu family" && family.isEmpty())
                family = value;
            else if (key == "flags" && !avx512)
                avx512 = value.split(' ').contains("avx512f");
        }
        if (vendor.isEmpty() || family.isEmpty())
            QSKIP("/proc/cpuinfo names no vendor or family here");
        const bool zen4 =
            vendor == "AuthenticAMD" && family == "25" && avx512 && cpuSupports(CpuKernels::Avx512);
        qInfo("%s family %s, AVX-512 %s", qPrintable(vendor), qPrintable(family),
              avx512 ? "yes" : "no");
        QCOMPARE(cpuSplitsWideVectors(), zen4);
    }

    // The AVX-512 tiles' lane sums, many vectors at once, add in the one documented order: values
    // of mixed magnitudes, where another order would round differently.
    void laneSumsAddInTheDocumentedPairs() {
#if defined(__x86_64__)
        if (!cpuSupports(CpuKernels::Avx512))
            QSKIP("this CPU has no AVX-512: the lane sums are not run here");
        std::vector<float> values = randomValues(16 * 24, 1.0f, 3);
        for (size_t i = 0; i < values.size(); ++i)
            values[i] *= std::ldexp(1.0f, int(i * 7 % 41) - 20);
        int orderMatters = 0;
        for (int v = 0; v < 24; ++v) {
            float sequential = 0.0f;
            for (int i = 0; i < 16; ++i)
                sequential += values[size_t(16 * v + i)];
            orderMatters += sequential != pairwiseLaneSum(values.data() + 16 * v);
        }
        QVERIFY2(orderMatters > 8, qPrintable(QString::number(orderMatters)));
        checkLaneSums<1>(values);
        checkLaneSums<3>(values);
        checkLaneSums<4>(values);
        checkLaneSums<16>(values);
        checkLaneSums<24>(values);
#else
        QSKIP("not an x86-64 build: no AVX-512 lane sums");
#endif
    }

    // The FFN's gated activations on every kernel set against double precision (the sigmoid form,
    // which stays accurate where 1 + tanh cancels), on values across and past f32's exp range,
    // zeros, infinities and NaN, at lengths that leave every vector tail; and a value's result is
    // the same alone as amid a buffer.
    void gatedActivationsAgreeWithDoublePrecision() {
        std::vector<float> x = {0.0f,   -0.0f,    1e-30f,    -1e-30f, 0.5f,   -0.5f,   3.0f,
                                -3.0f,  -5.0f,    -10.0f,    20.0f,   -20.0f, 87.0f,   -87.0f,
                                89.0f,  -89.0f,   104.0f,    -104.0f, 200.0f, -200.0f, 1e30f,
                                -1e30f, INFINITY, -INFINITY, NAN};
        for (const float value : randomValues(200, 4.0f, 11))
            x.push_back(value);
        const std::vector<float> up = randomValues(int64_t(x.size()), 1.0f, 12);
        for (const CpuKernels kernels : availableKernels())
            for (const bool gelu : {false, true}) {
                const GatedActivation kernel = gelu ? geluTanhGate(kernels) : siluGate(kernels);
                std::vector<float> all = x;
                kernel(all.data(), up.data(), int64_t(all.size()));
                for (const int64_t count : {1, 15, 16, 17, 33}) {
                    std::vector<float> part(x.begin() + 7, x.begin() + 7 + count);
                    kernel(part.data(), up.data() + 7, count);
                    for (int64_t i = 0; i < count; ++i)
                        QVERIFY(part[size_t(i)] == all[size_t(7 + i)] ||
                                (std::isnan(part[size_t(i)]) && std::isnan(all[size_t(7 + i)])));
                }
                for (size_t i = 0; i < x.size(); ++i) {
                    const double v = x[i];
                    const double k =
                        gelu ? 2 * std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v) : v;
                    const double exact = v / (1 + std::exp(-k)) * up[i];
                    const float got = all[i];
                    // The portable GELU is the models' own f32 formula, 0.5x(1 + tanh
                    // z): where tanh z nears −1 it keeps only the absolute precision of x. Below
                    // f32's normal range (x < −88.7, where e^−x overflows) the result may come out
                    // as 0: an absolute 2⁻¹²⁰. GELU's argument k is computed in f32: its rounding,
                    // a few ulp of |k|, moves the result by as much relative to it.
                    const double tolerance =
                        8 * 0x1p-24 * std::fabs(exact) * (gelu ? 1 + std::fabs(k) : 1) + 0x1p-120 +
                        (gelu && kernels == CpuKernels::Portable ? 0x1p-23 * std::fabs(v * up[i])
                                                                 : 0.0);
                    const bool ok = std::isnan(exact)   ? std::isnan(got)
                                    : std::isinf(exact) ? double(got) == exact
                                                        : std::fabs(got - exact) <= tolerance;
                    QVERIFY2(ok, qPrintable(QString("%1 %2 x=%3: %4 vs %5")
                                                .arg(cpuKernelsName(kernels))
                                                .arg(gelu ? "gelu" : "silu")
                                                .arg(double(v), 0, 'g', 9)
                                                .arg(double(got), 0, 'g', 9)
                                                .arg(exact, 0, 'g', 9)));
                }
            }
    }

    // Blocks of scores of every length up to a key block's 64 (the vector tails), with keys a
    // window hides (−∞), a block it hides entirely, and a maximum that grows and holds. After each
    // step the running maximum is the largest score so far and the sum is Σ e^(s − maximum) over
    // them; each block's exponentials, times the rescales of the steps after it, are e^(s − max).
    void onlineSoftmaxStepsAgreeWithDoublePrecision() {
        std::vector<std::vector<float>> blocks;
        for (const int64_t count : {1, 7, 16, 17, 31, 64, 64, 40})
            blocks.push_back(randomValues(count, 3.0f, uint32_t(count + blocks.size())));
        blocks[2][5] = blocks[4][0] = -INFINITY;
        const size_t hidden = 3;
        blocks[hidden] = std::vector<float>(9, -INFINITY);
        blocks[5][63] = 30.0f;   // the maximum jumps, then holds for the last blocks
        blocks[6][1] = -200.0f;  // an exponential below f32's range
        // A few ulp for exp, the sums and the rescales, and the f32 rounding of s − max, which
        // moves e^(s − max) by up to |s − max| · 2⁻²⁴ of itself.
        const auto close = [](double got, double exact, double shift) {
            return exact == 0
                       ? got == 0
                       : std::fabs(got - exact) <= (0x1p-21 + shift * 0x1p-23) * exact + 0x1p-126;
        };
        for (const CpuKernels kernels : availableKernels()) {
            const QString name = cpuKernelsName(kernels);
            const OnlineSoftmaxStep step = onlineSoftmaxStep(kernels);
            float maximum = -INFINITY, sum = 0;
            std::vector<std::vector<float>> exponentials = blocks;
            std::vector<float> rescales;
            double largest = -INFINITY;
            for (size_t b = 0; b < blocks.size(); ++b) {
                const float before = maximum, sumBefore = sum;
                const SoftmaxStep taken =
                    step(exponentials[b].data(), int64_t(blocks[b].size()), maximum, sum);
                QCOMPARE(taken.adds, b != hidden);
                if (b == hidden) {
                    QCOMPARE(maximum, before);
                    QCOMPARE(sum, sumBefore);
                }
                rescales.push_back(taken.adds ? taken.rescale : 1.0f);
                for (const float s : blocks[b])
                    largest = std::max(largest, double(s));
                QCOMPARE(double(maximum), largest);
                double exactSum = 0, widest = 0;
                for (size_t c = 0; c <= b; ++c)
                    for (const float s : blocks[c]) {
                        exactSum += std::exp(double(s) - largest);
                        if (s != -INFINITY)
                            widest = std::max(widest, largest - double(s));
                    }
                QVERIFY2(close(double(sum), exactSum, widest),
                         qPrintable(QString("%1 after block %2: sum %3 vs %4")
                                        .arg(name)
                                        .arg(b)
                                        .arg(double(sum), 0, 'g', 9)
                                        .arg(exactSum, 0, 'g', 9)));
            }
            for (size_t b = 0; b < blocks.size(); ++b) {
                if (b == hidden)
                    continue;      // its scores were left as they were, and weigh nothing
                double later = 1;  // what the steps after block b scaled the sums by
                for (size_t c = b + 1; c < blocks.size(); ++c)
                    later *= rescales[c];
                for (size_t j = 0; j < blocks[b].size(); ++j) {
                    const double exact = std::exp(double(blocks[b][j]) - largest);
                    const double got = double(exponentials[b][j]) * later;
                    QVERIFY2(close(got, exact, std::fabs(double(blocks[b][j]) - largest)),
                             qPrintable(QString("%1 block %2 score %3: %4 vs %5")
                                            .arg(name)
                                            .arg(b)
                                            .arg(j)
                                            .arg(got, 0, 'g', 9)
                                            .arg(exact, 0, 'g', 9)));
                }
            }
        }
    }

    void floatKernelsAgreeWithTheDecodedProduct() {
        for (const CpuKernels kernels : availableKernels())
            for (const DType dtype : {DType::F32, DType::F16, DType::BF16})
                for (const int64_t count : {1, 7, 8, 15, 16, 31, 33, 63, 64, 65, 100, 1023, 4099}) {
                    const TileProblem problem(dtype, count);
                    const FloatTile tile = floatTile(dtype, kernels);
                    QVERIFY(tile != nullptr);
                    const float* xs[TileProblem::kTokens];
                    for (int k = 0; k < TileProblem::kTokens; ++k)
                        xs[k] = problem.x[size_t(k)].data();
                    problem.check(
                        QString("%1 %2").arg(cpuKernelsName(kernels)).arg(dtypeName(dtype).data()),
                        [&](const std::byte* const* rows, int rowCount, int tokenCount,
                            float* out) { tile(rows, rowCount, xs, tokenCount, count, out); });
                    if (QTest::currentTestFailed())
                        return;
                }
    }

    // F16 rows against F16 activations (a decode step's): exactly the float tile on the same
    // values as f32, in every shape, on every kernel set.
    void halfActivationTilesEqualTheFloatTileOnTheRoundedValues() {
        for (const CpuKernels kernels : availableKernels())
            for (const int64_t count : {1, 7, 8, 15, 16, 31, 33, 63, 64, 65, 100, 1023, 4099}) {
                TileProblem problem(DType::F16, count);
                std::vector<std::vector<uint16_t>> halves;
                for (std::vector<float>& x : problem.x) {
                    halves.emplace_back(x.size());
                    roundToHalf(x.data(), count, halves.back().data());
                    roundToHalfPrecision(x.data(), count, x.data());
                    for (size_t i = 0; i < x.size(); ++i)
                        QCOMPARE(double(halfToFloat(halves.back()[i])), double(x[i]));
                }
                const uint16_t* halfXs[TileProblem::kTokens];
                const float* floatXs[TileProblem::kTokens];
                for (int k = 0; k < TileProblem::kTokens; ++k) {
                    halfXs[k] = halves[size_t(k)].data();
                    floatXs[k] = problem.x[size_t(k)].data();
                }
                const SixteenBitTile halfTile = halfActivationsTile(kernels);
                const FloatTile floatTile16 = floatTile(DType::F16, kernels);
                problem.check(
                    QString("%1 f16 activations").arg(cpuKernelsName(kernels)),
                    [&](const std::byte* const* rows, int rowCount, int tokenCount, float* out) {
                        halfTile(rows, rowCount, halfXs, tokenCount, count, out);
                        std::vector<float> expected(size_t(rowCount * tokenCount));
                        floatTile16(rows, rowCount, floatXs, tokenCount, count, expected.data());
                        markDifferences(expected, out);
                    });
                // A prefill's tokens interleaved in groups (where the set has that tile): the
                // plain tile's numbers, bit for bit, for every token count and its remainders.
                const SixteenBitTile interleavedTile = interleavedHalfActivationsTile(kernels);
                if (interleavedTile != nullptr && count % kInterleavedChunk == 0)
                    problem.check(
                        QString("%1 interleaved f16 activations").arg(cpuKernelsName(kernels)),
                        [&](const std::byte* const* rows, int rowCount, int tokenCount,
                            float* out) {
                            std::vector<uint16_t> layout(size_t(tokenCount * count));
                            const uint16_t* xs[TileProblem::kTokens];
                            for (int t = 0; t < tokenCount; ++t) {
                                interleaveHalfToken(halves[size_t(t)].data(), t, tokenCount, count,
                                                    layout.data());
                                xs[t] = layout.data() + interleavedOffset(t, count);
                            }
                            interleavedTile(rows, rowCount, xs, tokenCount, count, out);
                            std::vector<float> expected(size_t(rowCount * tokenCount));
                            halfTile(rows, rowCount, halfXs, tokenCount, count, expected.data());
                            markDifferences(expected, out);
                        });
                if (QTest::currentTestFailed())
                    return;
            }
    }

    // F16 and BF16 matrices in row groups (packed_rows.h, groupsFloatRows): through the engine's
    // products, on one and three threads, the same numbers as the file's layout bit for bit — a
    // prefill's and every token's alone — with row counts that leave a padded last group; and
    // the grouped tiles against the plain ones on every set that has them.
    void groupedFloatRowsGiveTheFileLayoutsNumbers() {
        ThreadPool pool(3);
        for (const DType dtype : {DType::F16, DType::BF16})
            for (const auto& [rows, columns] :
                 std::vector<std::pair<int64_t, int64_t>>{{4, 32}, {9, 64}, {70, 96}, {13, 1056}}) {
                std::vector<std::byte> bytes;
                for (int64_t r = 0; r < rows; ++r) {
                    const auto row = encoded(dtype, randomValues(columns, 0.5f, uint32_t(r)));
                    bytes.insert(bytes.end(), row.begin(), row.end());
                }
                const TensorView weight{
                    "w", dtype, {rows, columns}, bytes.data(), int64_t(bytes.size())};
                std::vector<std::byte> grouped(size_t(groupedFloatBytes(weight)));
                groupFloatRowsInto(weight, grouped.data(), &pool);
                const QString label =
                    QString("%1 %2×%3").arg(dtypeName(dtype).data()).arg(rows).arg(columns);
                // Row r of the grouped copy, element i, is the file's (groupedIndex).
                const int64_t elementBytes = weight.rowBytes() / columns;
                for (int64_t r = 0; r < rows; ++r)
                    for (const int64_t i : {int64_t(0), columns / 2 + 1, columns - 1}) {
                        const std::byte* at =
                            grouped.data() + r / kTileRows * kTileRows * weight.rowBytes() +
                            (r % kTileRows * kGroupedChunk + groupedIndex(i)) * elementBytes;
                        QVERIFY2(std::memcmp(at, weight.row(r) + i * elementBytes,
                                             size_t(elementBytes)) == 0,
                                 qPrintable(label));
                    }
                for (const CpuKernels kernels : availableKernels()) {
                    const FloatTile groupedTile = groupedFloatTile(dtype, kernels);
                    if (groupedTile == nullptr)
                        continue;
                    const int64_t tokens = 6;
                    const auto x = randomValues(tokens * columns, 1.0f, 7);
                    std::vector<const float*> xs;
                    for (int64_t t = 0; t < tokens; ++t)
                        xs.push_back(x.data() + t * columns);
                    const int rowCount = int(std::min<int64_t>(rows, kTileRows));
                    const std::byte* plainRows[kTileRows];
                    const std::byte* groupedRows[kTileRows];
                    for (int k = 0; k < rowCount; ++k) {
                        plainRows[k] = weight.row(k);
                        groupedRows[k] = grouped.data() + k * kGroupedChunk * elementBytes;
                    }
                    std::vector<float> plain(size_t(rowCount * tokens)), got(plain.size());
                    floatTile(dtype, kernels)(plainRows, rowCount, xs.data(), int(tokens), columns,
                                              plain.data());
                    groupedTile(groupedRows, rowCount, xs.data(), int(tokens), columns, got.data());
                    QVERIFY2(got == plain, qPrintable(label + " " + cpuKernelsName(kernels)));
                    if (dtype == DType::F16) {
                        std::vector<uint16_t> half(static_cast<size_t>(columns));
                        roundToHalf(x.data(), columns, half.data());
                        const uint16_t* halfXs[1] = {half.data()};
                        halfActivationsTile(kernels)(plainRows, rowCount, halfXs, 1, columns,
                                                     plain.data());
                        groupedHalfActivationsTile(kernels)(groupedRows, rowCount, halfXs, 1,
                                                            columns, got.data());
                        QVERIFY2(std::equal(plain.begin(), plain.begin() + rowCount, got.begin()),
                                 qPrintable(label + " f16 activations"));
                    }
                    if (const SixteenBitTile pairs = bf16PairTile(kernels, true);
                        dtype == DType::BF16 && pairs != nullptr) {
                        // The pair tile on grouped rows, a 4 × 6 tile and its remainders.
                        std::vector<uint16_t> rounded(x.size());
                        roundToBf16(x.data(), int64_t(x.size()), rounded.data());
                        std::vector<const uint16_t*> pairXs;
                        for (int64_t t = 0; t < tokens; ++t)
                            pairXs.push_back(rounded.data() + t * columns);
                        for (const int tokenCount : {1, 5, int(tokens)}) {
                            const size_t n = size_t(rowCount * tokenCount);
                            std::fill(got.begin(), got.end(), NAN);
                            bf16PairTile(kernels)(plainRows, rowCount, pairXs.data(), tokenCount,
                                                  columns, plain.data());
                            pairs(groupedRows, rowCount, pairXs.data(), tokenCount, columns,
                                  got.data());
                            QVERIFY2(std::equal(plain.begin(), plain.begin() + n, got.begin()),
                                     qPrintable(label + " bf16 pairs"));
                        }
                    }
                }
                if (!groupsFloatRows(weight, cpuKernels()))
                    continue;  // the engine's products read the file's layout here
                TensorView groupedWeight = weight;
                groupedWeight.packed = grouped.data();
                const int64_t tokens = 5;
                const auto x = randomValues(tokens * columns, 1.0f, 11);
                std::vector<float> batch(size_t(tokens * rows)), shared(batch.size()),
                    fileLayout(batch.size());
                matMat(groupedWeight, x, tokens, batch);
                matMat(groupedWeight, x, tokens, shared, &pool);
                matMat(weight, x, tokens, fileLayout);
                QVERIFY2(batch == fileLayout, qPrintable(label));
                QVERIFY2(shared == fileLayout, qPrintable(label + " on three threads"));
                for (int64_t t = 0; t < tokens; ++t) {
                    std::vector<float> alone(static_cast<size_t>(rows)), aloneFile(alone.size());
                    const auto token = std::span(x).subspan(size_t(t * columns), size_t(columns));
                    matVec(groupedWeight, token, alone, &pool);
                    matVec(weight, token, aloneFile);
                    QVERIFY2(alone == aloneFile, qPrintable(label + " one token"));
                    QCOMPARE(alone, std::vector<float>(batch.begin() + t * rows,
                                                       batch.begin() + (t + 1) * rows));
                }
            }
    }

    // The roundings against the reference's, on the values where they are easy to get wrong:
    // ties, the largest finite values and overflow, subnormals, NaN; through the vector loops and
    // their scalar tails (19 values).
    void activationsRoundToTheNearest16BitValue() {
        const std::vector<float> x{0.1f,     1.0f + 0x1p-11f, 1.0f + 0x3p-11f, -2.5e-6f,
                                   65504.0f, 65519.0f,        65520.0f,        -70000.0f,
                                   0x1p-25f, 0x3p-26f,        1.0f + 0x1p-8f,  1.0f + 0x3p-8f,
                                   3.0e38f,  -3.4e38f,        1e-39f,          123.456f,
                                   -0.0f,    1e-8f,           7.0e-5f};
        std::vector<uint16_t> half(x.size()), bf16(x.size());
        std::vector<float> halfPrecision(x.size()), bf16Precision(x.size());
        roundToHalf(x.data(), int64_t(x.size()), half.data());
        roundToHalfPrecision(x.data(), int64_t(x.size()), halfPrecision.data());
        roundToBf16(x.data(), int64_t(x.size()), bf16.data());
        roundToBf16Precision(x.data(), int64_t(x.size()), bf16Precision.data());
        for (size_t i = 0; i < x.size(); ++i) {
            const double f16 = reference::roundToStoredType(x[i], "F16");
            const double bf = reference::roundToStoredType(x[i], "BF16");
            QCOMPARE(double(halfToFloat(half[i])), f16);
            QCOMPARE(double(halfPrecision[i]), f16);
            QCOMPARE(double(bf16ToFloat(bf16[i])), bf);
            QCOMPARE(double(bf16Precision[i]), bf);
        }
        const float nan[1] = {NAN};
        uint16_t nanHalf = 0, nanBf16 = 0;
        roundToHalf(nan, 1, &nanHalf);
        roundToBf16(nan, 1, &nanBf16);
        QVERIFY(std::isnan(halfToFloat(nanHalf)) && std::isnan(bf16ToFloat(nanBf16)));
        // What fits F16: up to what rounds to 65504; NaN does not count against it.
        const float fits[] = {1.0f, -65519.0f, NAN}, overflows[] = {1.0f, 65520.0f};
        QVERIFY(fitsHalf(fits, 3));
        QVERIFY(!fitsHalf(overflows, 2));
        // The same at every position of a long row (whole vectors and the scalar rest): one value
        // past the range anywhere, of either sign or infinite, makes it not fit; NaN anywhere
        // does not.
        for (const int64_t length : {7, 40, 300})
            for (int64_t at = 0; at < length; ++at) {
                std::vector<float> row(size_t(length), -65519.0f);
                row[size_t(at)] = NAN;
                QVERIFY2(fitsHalf(row.data(), length), qPrintable(QString::number(at)));
                for (const float past : {65520.0f, -70000.0f, INFINITY}) {
                    row[size_t(at)] = past;
                    QVERIFY2(!fitsHalf(row.data(), length),
                             qPrintable(QString("%1 at %2 of %3").arg(past).arg(at).arg(length)));
                }
            }
    }

    // A product with F16 or BF16 weights takes its inputs rounded to the weights' type, in a
    // decode step and in a prefill alike, and the two agree bit for bit: with every token's inputs
    // within F16's range (a prefill's F16 activations) and with one token's past it (that token
    // keeps f32 inputs for F16 weights, and the prefill takes the f32 path).
    void sixteenBitWeightsMeetInputsRoundedToTheirType() {
        constexpr int64_t kRows = 37, kColumns = 300, kTokens = 9;
        for (const DType dtype : {DType::F16, DType::BF16})
            for (const bool withLargeToken : {true, false}) {
                const auto values = randomValues(kRows * kColumns, 0.5f, 7);
                const std::vector<std::byte> bytes = encoded(dtype, values);
                TensorView weight;
                weight.name = "w";
                weight.dtype = dtype;
                weight.shape = {kRows, kColumns};
                weight.data = bytes.data();
                weight.byteCount = int64_t(bytes.size());
                std::vector<float> decoded(values.size());
                decodeRow(dtype, bytes.data(), decoded);
                auto x = randomValues(kTokens * kColumns, 1.0f, 8);
                // Token 2 has a value past F16's range: for F16 weights its inputs stay f32.
                constexpr int64_t kLargeToken = 2;
                if (withLargeToken)
                    x[size_t(kLargeToken * kColumns + 17)] = 70000.0f;
                std::vector<float> batch(static_cast<size_t>(kTokens * kRows));
                std::vector<float> alone(static_cast<size_t>(kRows));
                matMat(weight, x, kTokens, batch, nullptr);
                int movedByRounding = 0;
                for (int64_t t = 0; t < kTokens; ++t) {
                    matVec(weight, std::span(x).subspan(size_t(t * kColumns), size_t(kColumns)),
                           alone, nullptr);
                    for (int64_t r = 0; r < kRows; ++r) {
                        double exact = 0, unrounded = 0, magnitude = 0;
                        for (int64_t i = 0; i < kColumns; ++i) {
                            const double w = decoded[size_t(r * kColumns + i)];
                            const double input = x[size_t(t * kColumns + i)];
                            const bool keptF32 =
                                dtype == DType::F16 && withLargeToken && t == kLargeToken;
                            exact +=
                                w * (keptF32 ? input
                                             : reference::roundToStoredType(
                                                   input, dtype == DType::F16 ? "F16" : "BF16"));
                            unrounded += w * input;
                            magnitude += std::fabs(w * input);
                        }
                        const float got = alone[size_t(r)];
                        // f32 summation of kColumns products in any order (the portable set's is
                        // sequential): within kColumns · 2⁻²⁴ of their magnitudes.
                        QVERIFY2(std::fabs(got - exact) <= double(kColumns) * 0x1p-24 * magnitude,
                                 qPrintable(QString("%1 row %2 token %3: %4 vs %5")
                                                .arg(dtypeName(dtype).data())
                                                .arg(r)
                                                .arg(t)
                                                .arg(got)
                                                .arg(exact)));
                        QVERIFY(got == batch[size_t(t * kRows + r)]);  // bit for bit
                        movedByRounding += std::fabs(got - unrounded) > 1e-6 * magnitude;
                    }
                }
                // The rounding is there to be seen: most sums differ from the unrounded ones.
                QVERIFY2(movedByRounding > kTokens * kRows / 2,
                         qPrintable(QString::number(movedByRounding)));
            }
    }

    // BF16 rows against activations rounded to BF16 (AVX512_BF16): the exact product of the
    // rounded numbers, to f32 rounding, and the same in every tile shape.
    void bf16PairKernelsAgreeWithTheRoundedProduct() {
        QVERIFY(bf16PairTile(CpuKernels::Portable) == nullptr);
        QVERIFY(bf16PairTile(CpuKernels::Avx2) == nullptr);
        QVERIFY2(bf16PairTile(CpuKernels::Amx) == nullptr, "the amx set takes the float tile");
        const SixteenBitTile tile = bf16PairTile(CpuKernels::Avx512);
        QCOMPARE(tile != nullptr, cpuSupports(CpuKernels::Avx512) && cpuHasAvx512Bf16());
        if (tile == nullptr)
            QSKIP("this CPU has no AVX-512 with AVX512_BF16: the BF16 pair tile is not run here");
        for (const int64_t count : {1, 2, 31, 32, 33, 63, 64, 65, 100, 1023, 4099}) {
            TileProblem problem(DType::BF16, count);
            std::vector<std::vector<uint16_t>> rounded;
            for (std::vector<float>& x : problem.x) {
                rounded.emplace_back(x.size());
                roundToBf16(x.data(), count, rounded.back().data());
                for (size_t i = 0; i < x.size(); ++i) {
                    QCOMPARE(double(bf16ToFloat(rounded.back()[i])),
                             reference::roundToStoredType(x[i], "BF16"));
                    x[i] = bf16ToFloat(rounded.back()[i]);
                }
            }
            const uint16_t* xs[TileProblem::kTokens];
            for (int k = 0; k < TileProblem::kTokens; ++k)
                xs[k] = rounded[size_t(k)].data();
            problem.check("avx512 bf16 pairs",
                          [&](const std::byte* const* rows, int rowCount, int tokenCount,
                              float* out) { tile(rows, rowCount, xs, tokenCount, count, out); });
            if (QTest::currentTestFailed())
                return;
        }
    }

    void blockKernelsAgreeWithinTheActivationRounding() {
        // Up to a prefill's tile calls: a cache line's 16 rows and more.
        constexpr int kRows = 18, kTokens = 5;
        const std::vector<std::pair<int, int>> shapes{{1, 1}, {4, 1}, {1, 4},  {4, 4}, {3, 2},
                                                      {2, 3}, {5, 5}, {16, 5}, {18, 3}};
        for (const CpuKernels kernels : availableKernels())
            for (const DType dtype : kBlockTypes)
                for (const int64_t blocks : {1, 3, 17}) {
                    const BlockFormat& format = *blockFormat(dtype);
                    const int64_t subBlocks = blocks * format.subBlocks;
                    const int64_t count = subBlocks * kQuantBlockElements;
                    std::vector<std::vector<std::byte>> rows;
                    std::vector<QuantizedActivations> quantized(kRows);
                    std::vector<std::vector<float>> x;
                    for (int k = 0; k < kRows; ++k) {
                        rows.push_back(randomBlocks(dtype, blocks, uint32_t(blocks * 10 + k)));
                        x.push_back(randomValues(count, 1.0f, uint32_t(blocks * 10 + k) + 77));
                        x.back()[5] = 0;  // and a block of zeros, whose scale is 0
                        if (subBlocks > 2)
                            std::fill(x.back().begin() + 32, x.back().begin() + 64, 0.0f);
                        quantized[size_t(k)].quantize(x.back().data(), count);
                    }
                    const BlockTile tile = blockTile(dtype, kernels);
                    const BlockTile portable = blockTile(dtype, CpuKernels::Portable);
                    QVERIFY(tile != nullptr && portable != nullptr);
                    const std::byte* rowPointers[kRows];
                    const QuantizedActivations* xs[kRows];
                    for (int k = 0; k < kRows; ++k) {
                        rowPointers[k] = rows[size_t(k)].data();
                        xs[k] = &quantized[size_t(k)];
                    }
                    std::vector<std::vector<float>> first(kRows, std::vector<float>(kTokens, NAN));
                    for (const auto& [rowCount, tokenCount] : shapes) {
                        std::vector<float> out(size_t(rowCount * tokenCount));
                        tile(rowPointers, rowCount, xs, tokenCount, subBlocks, out.data());
                        for (int r = 0; r < rowCount; ++r)
                            for (int t = 0; t < tokenCount; ++t) {
                                // The exact product of the decoded weights with the f32
                                // activations; the bound of the activations' rounding (half a
                                // step per element); and the magnitudes f32 rounding scales with
                                // (the scale and offset parts apart, as the kernels sum them).
                                double exact = 0, bound = 0, magnitude = 0;
                                SubBlock sub;
                                for (int64_t b = 0; b < subBlocks; ++b) {
                                    format.decode(
                                        rows[size_t(r)].data() +
                                            b / format.subBlocks * dtypeInfo(dtype).blockBytes,
                                        int(b % format.subBlocks), sub);
                                    const double halfStep =
                                        double(quantized[size_t(t)].scales[size_t(b)]) / 2;
                                    for (int64_t j = 0; j < kQuantBlockElements; ++j) {
                                        const double w =
                                            double(sub.scale[j / 16]) * sub.q[j] + sub.offset;
                                        const double a =
                                            x[size_t(t)][size_t(b * kQuantBlockElements + j)];
                                        exact += w * a;
                                        bound += std::fabs(w) * halfStep;
                                        magnitude +=
                                            (std::fabs(double(sub.scale[j / 16]) * sub.q[j]) +
                                             std::fabs(sub.offset)) *
                                            std::fabs(a);
                                    }
                                }
                                const float got = out[size_t(t * rowCount + r)];
                                QVERIFY2(
                                    std::fabs(got - exact) <= bound * 1.0001 + 1e-5 * magnitude,
                                    qPrintable(QString("%1 %2 %3 blocks %4×%5: %6 vs %7 "
                                                       "(bound %8)")
                                                   .arg(cpuKernelsName(kernels))
                                                   .arg(dtypeName(dtype).data())
                                                   .arg(blocks)
                                                   .arg(rowCount)
                                                   .arg(tokenCount)
                                                   .arg(got)
                                                   .arg(exact)
                                                   .arg(bound)));
                                // Every set computes the same integer sums: they agree with the
                                // portable tile to f32 rounding.
                                float reference = 0;
                                portable(&rowPointers[r], 1, &xs[t], 1, subBlocks, &reference);
                                QVERIFY(std::fabs(got - reference) <= 1e-5 * magnitude + 1e-6);
                                // And every tile shape gives the same number for a pair.
                                float& seen = first[size_t(r)][size_t(t)];
                                if (std::isnan(seen))
                                    seen = got;
                                QVERIFY(got == seen);  // bit for bit (QCOMPARE is fuzzy)
                            }
                    }
                }
    }

    // Every block type repacked 8 rows at a time (packed_rows.h), with a row count that leaves a
    // padded group, in about the file's bytes: every product within the activations' rounding of
    // the exact one for each kernel set the machine has, a batch equal to its tokens one by one
    // bit for bit (prefill = decode), and the engine's products the same through the packed and
    // the file layout up to f32 rounding, on any number of threads.
    void packedMatricesAgreeWithinTheActivationRounding() {
        // 11 tokens: a prefill's K-type tile (AVX-512's pair tile, AVX2's one-group tile)
        // decodes the super-blocks once from 8 tokens on (two tiles of 4, then 3 alone); fewer,
        // it decodes as it goes.
        const int64_t rows = 13, tokens = 11;
        for (const DType dtype : kBlockTypes) {
            QVERIFY(!packs(dtype, CpuKernels::Portable));
#if defined(__x86_64__)
            QVERIFY(packs(dtype, CpuKernels::Avx2) && packs(dtype, CpuKernels::Avx512));
            QVERIFY(packedPairTile(dtype, CpuKernels::Avx512) != nullptr);
            QVERIFY(packedPairTile(dtype, CpuKernels::Avx2) == nullptr);
#endif
            const int64_t blocks = dtypeInfo(dtype).blockElements == 256 ? 2 : 5;
            const int64_t columns = blocks * dtypeInfo(dtype).blockElements;
            const auto bytes = randomBlocks(dtype, rows * blocks, 5);
            TensorView weight{"w", dtype, {rows, columns}, bytes.data(), int64_t(bytes.size())};
            const auto packed = packRows(weight);
            const int64_t groupBytes = packedGroupBytes(weight);
            QCOMPARE(packed.size, 2 * groupBytes);
            const int64_t fileGroupBytes = kPackedRows * blocks * dtypeInfo(dtype).blockBytes;
            QVERIFY(groupBytes >= fileGroupBytes && groupBytes <= fileGroupBytes * 103 / 100);
            std::vector<float> decoded(size_t(rows * columns));
            decodeRow(dtype, bytes.data(), decoded);
            const auto x = randomValues(tokens * columns, 1.0f, 8);
            std::vector<QuantizedActivations> quantized(static_cast<size_t>(tokens));
            std::vector<const QuantizedActivations*> xs;
            for (int64_t t = 0; t < tokens; ++t) {
                quantized[size_t(t)].quantize(x.data() + t * columns, columns);
                xs.push_back(&quantized[size_t(t)]);
            }
            for (const CpuKernels kernels : availableKernels()) {
                if (!packs(dtype, kernels))
                    continue;
                const PackedTile tile = packedTile(dtype, kernels);
                // Both groups at once (where the kernel set has a tile for two): the one-group
                // tile's numbers, bit for bit, whatever the number of tokens.
                if (const PackedPairTile pairTile = packedPairTile(dtype, kernels))
                    for (const int count : {1, 3, 4, 8, int(tokens)}) {
                        std::vector<float> pair(size_t(2 * kPackedRows * count)),
                            single(size_t(kPackedRows * count));
                        pairTile(packed.bytes.get(), groupBytes, xs.data(), count, blocks,
                                 pair.data());
                        for (int64_t g = 0; g < 2; ++g) {
                            tile(packed.bytes.get() + g * groupBytes, xs.data(), count, blocks,
                                 single.data());
                            // Token t's 16 rows side by side, group g's the second 8.
                            for (int t = 0; t < count; ++t)
                                QVERIFY(std::memcmp(pair.data() + (2 * t + g) * kPackedRows,
                                                    single.data() + t * kPackedRows,
                                                    kPackedRows * sizeof(float)) == 0);
                        }
                    }
                for (int64_t g = 0; g < 2; ++g) {
                    std::vector<float> out(size_t(kPackedRows * tokens));
                    tile(packed.bytes.get() + g * groupBytes, xs.data(), int(tokens), blocks,
                         out.data());
                    for (int64_t i = 0; i < std::min<int64_t>(kPackedRows, rows - g * 8); ++i)
                        for (int64_t t = 0; t < tokens; ++t) {
                            const int64_t r = g * kPackedRows + i;
                            double exact = 0, bound = 0, magnitude = 0;
                            for (int64_t j = 0; j < columns; ++j) {
                                const double w = decoded[size_t(r * columns + j)];
                                const double a = x[size_t(t * columns + j)];
                                exact += w * a;
                                bound +=
                                    std::fabs(w) *
                                    quantized[size_t(t)].scales[size_t(j / kQuantBlockElements)] /
                                    2;
                                magnitude += std::fabs(w * a);
                            }
                            const float got = out[size_t(t * kPackedRows + i)];
                            QVERIFY2(std::fabs(got - exact) <= bound * 1.0001 + 1e-5 * magnitude,
                                     qPrintable(QString("%1 %2 row %3 token %4: %5 vs %6")
                                                    .arg(cpuKernelsName(kernels))
                                                    .arg(dtypeName(dtype).data())
                                                    .arg(r)
                                                    .arg(t)
                                                    .arg(got)
                                                    .arg(exact)));
                            // The token alone gives the same number.
                            std::vector<float> alone(kPackedRows);
                            tile(packed.bytes.get() + g * groupBytes, &xs[size_t(t)], 1, blocks,
                                 alone.data());
                            QCOMPARE(alone[size_t(i)], got);
                        }
                }
            }
            // Through the engine's products (the kernels in use), on one and three threads.
            ThreadPool pool(3);
            TensorView packedWeight = weight;
            packedWeight.packed = packed.bytes.get();
            if (!packs(dtype, cpuKernels()))
                continue;
            std::vector<float> batch(size_t(tokens * rows)), shared(batch.size()),
                fileLayout(batch.size());
            matMat(packedWeight, x, tokens, batch);
            matMat(packedWeight, x, tokens, shared, &pool);
            matMat(weight, x, tokens, fileLayout);
            QCOMPARE(shared, batch);
            for (int64_t t = 0; t < tokens; ++t) {
                std::vector<float> alone(static_cast<size_t>(rows));
                matVec(packedWeight, std::span(x).subspan(size_t(t * columns), size_t(columns)),
                       alone);
                QCOMPARE(alone, std::vector<float>(batch.begin() + t * rows,
                                                   batch.begin() + (t + 1) * rows));
            }
            QVERIFY(test::normalisedError(batch, fileLayout) < 1e-5);
        }
    }

    // Attention's weighted sums of value rows (strided, as in the KV cache) against double
    // precision, for head sizes that leave every tail after the vector passes; and up to 7 weight
    // vectors at once (a group's heads) giving each vector's floats alone, bit for bit.
    void weightedSumsAgreeWithDoublePrecision() {
        constexpr int kVectors = 7;
        for (const CpuKernels kernels : availableKernels())
            for (const int64_t n : {1, 7, 16, 33, 64, 100, 128}) {
                const int64_t rows = 37, stride = n + 5, weightStride = rows + 2;
                const auto values = randomValues(rows * stride, 1.0f, uint32_t(n));
                const auto weights = randomValues(kVectors * weightStride, 0.3f, uint32_t(n) + 1);
                std::vector<float> out(static_cast<size_t>(n), NAN);
                weightedSums(kernels)(weights.data(), weightStride, 1, rows, values.data(), stride,
                                      n, out.data(), n);
                for (int64_t d = 0; d < n; ++d) {
                    double exact = 0, magnitude = 0;
                    for (int64_t r = 0; r < rows; ++r) {
                        exact += double(weights[size_t(r)]) * values[size_t(r * stride + d)];
                        magnitude +=
                            std::fabs(double(weights[size_t(r)]) * values[size_t(r * stride + d)]);
                    }
                    QVERIFY2(std::fabs(out[size_t(d)] - exact) <= 1e-6 * magnitude + 1e-30,
                             qPrintable(QString("%1 n=%2 d=%3: %4 vs %5")
                                            .arg(cpuKernelsName(kernels))
                                            .arg(n)
                                            .arg(d)
                                            .arg(out[size_t(d)])
                                            .arg(exact)));
                }
                for (int count = 2; count <= kVectors; ++count) {
                    const int64_t outStride = n + 3;
                    std::vector<float> together(size_t(count * outStride), -1.0f);
                    weightedSums(kernels)(weights.data(), weightStride, count, rows, values.data(),
                                          stride, n, together.data(), outStride);
                    for (int v = 0; v < count; ++v) {
                        std::vector<float> alone(static_cast<size_t>(n));
                        weightedSums(kernels)(weights.data() + v * weightStride, weightStride, 1,
                                              rows, values.data(), stride, n, alone.data(), n);
                        QVERIFY2(std::memcmp(alone.data(), together.data() + v * outStride,
                                             size_t(n) * sizeof(float)) == 0,
                                 qPrintable(QString("%1 n=%2: vector %3 of %4")
                                                .arg(cpuKernelsName(kernels))
                                                .arg(n)
                                                .arg(v)
                                                .arg(count)));
                        // Past each vector's n outputs nothing is written.
                        if (v + 1 < count)
                            QCOMPARE(together[size_t(v * outStride + n)], -1.0f);
                    }
                }
            }
    }

    // Where the model puts its matrices (packed_rows.h): a float matrix copied unchanged, a packed
    // type packed, any other block type left where it is; the source is never altered — in
    // particular ordinary memory is not released like a file's pages, which would zero it — and
    // a file's released pages read back the same.
    void matricesArePlacedWithoutHarmingTheirSource() {
        PackedStore store;
        ThreadPool pool(2);
        const int64_t rows = 16, columns = 256;
        for (const DType dtype : {DType::F16, DType::Q4_0, DType::Q5_0}) {
            const auto bytes = dtype == DType::F16
                                   ? encoded(dtype, randomValues(rows * columns, 1.0f, 3))
                                   : randomBlocks(dtype, rows * columns / 32, 3);
            const auto before = bytes;
            TensorView view{"w", dtype, {rows, columns}, bytes.data(), int64_t(bytes.size())};
            placeForProducts(view, store, &pool);
            QCOMPARE(bytes, before);
            if (dtype == DType::F16 && groupsFloatRows(view, cpuKernels())) {
                QVERIFY(view.packed != nullptr);
                QCOMPARE(view.data, bytes.data());
            } else if (dtype == DType::F16) {
                QVERIFY(view.data != bytes.data());
                QVERIFY(std::memcmp(view.data, bytes.data(), bytes.size()) == 0);
            } else if (packs(dtype, cpuKernels())) {
                QVERIFY(view.packed != nullptr);
                QCOMPARE(view.data, bytes.data());
            } else {
                QVERIFY(view.packed == nullptr);
                QCOMPARE(view.data, bytes.data());
            }
        }
        QTemporaryDir dir;
        const QString path = dir.filePath("pages.bin");
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        QByteArray content(3 << 20, 0);
        for (qsizetype i = 0; i < content.size(); ++i)
            content[i] = char(i * 7 + i / 4096);
        file.write(content);
        file.close();
        const MappedFile mapped(path.toStdString());
        prefaultMappedPages(mapped.bytes().data(), mapped.size());
        releaseMappedPages(mapped.bytes().data() + 100, mapped.size() - 200);
        QVERIFY(std::memcmp(mapped.bytes().data(), content.constData(), mapped.size()) == 0);
    }

    void productsAreTheSameOnAnyNumberOfThreads() {
        // The products split their rows across a pool: every thread must read the activations
        // (and their 8-bit form) that the calling thread prepared — in the file's layout and,
        // for the types the kernels in use pack, in the packed one.
        // 292 rows: 37 groups of 8, the last one padded, so that with AVX-512 a batch runs pairs
        // of groups and then a lone one (and, on 3 threads, parts of 16 rows). A prompt of 300
        // tokens over 512 columns runs in three token blocks (128, 128, 44), the first two
        // handed out in more chunks than there are threads; so is a decode step over 40,960
        // columns (chunks of about a megabyte, a whole number per thread: at least 6 MiB of
        // weights for every type, two chunks per thread or more).
        ThreadPool pool(3);
        const int64_t rows = 292;
        struct Shape {
            int64_t columns, tokens;
            std::vector<int64_t> tokensAlone;  // those checked one by one
        };
        for (const Shape& shape :
             {Shape{256, 5, {0, 1, 2, 3, 4}}, Shape{512, 300, {0, 127, 128, 255, 256, 299}},
              Shape{40960, 1, {0}}}) {
            const int64_t columns = shape.columns, tokens = shape.tokens;
            const auto x = randomValues(tokens * columns, 1.0f, 42);
            for (const DType dtype :
                 {DType::F32, DType::F16, DType::BF16, DType::Q8_0, DType::Q4_0, DType::Q4_1,
                  DType::Q5_0, DType::Q5_1, DType::Q4_K, DType::Q5_K, DType::Q6_K}) {
                const auto bytes = encoded(dtype, randomValues(rows * columns, 0.3f, 7));
                TensorView weight;
                weight.dtype = dtype;
                weight.shape = {rows, columns};
                weight.data = bytes.data();
                weight.byteCount = int64_t(bytes.size());
                PackedBuffer packed;
                std::vector<const std::byte*> layouts{nullptr};
                if (packs(dtype, cpuKernels())) {
                    packed = packRows(weight, &pool);
                    layouts.push_back(packed.bytes.get());
                }
                const QString label = QString("%1 × %2, %3 tokens, %4")
                                          .arg(rows)
                                          .arg(columns)
                                          .arg(tokens)
                                          .arg(dtypeName(dtype).data());
                for (const std::byte* layout : layouts) {
                    weight.packed = layout;
                    std::vector<float> batchAlone(static_cast<size_t>(tokens * rows));
                    std::vector<float> batchShared(batchAlone.size());
                    matMat(weight, x, tokens, batchAlone);
                    matMat(weight, x, tokens, batchShared, &pool);
                    QVERIFY2(batchShared == batchAlone, qPrintable(label));
                    // And a batch equals its tokens one by one.
                    for (const int64_t t : shape.tokensAlone) {
                        std::vector<float> alone(static_cast<size_t>(rows)), shared(alone.size());
                        const auto token =
                            std::span(x).subspan(size_t(t * columns), size_t(columns));
                        matVec(weight, token, alone);
                        matVec(weight, token, shared, &pool);
                        QVERIFY2(shared == alone, qPrintable(label));
                        QVERIFY2(alone == std::vector<float>(batchAlone.begin() + t * rows,
                                                             batchAlone.begin() + (t + 1) * rows),
                                 qPrintable(label + QString(", token %1").arg(t)));
                    }
                }
            }
        }
    }

    void activationsRoundToTheNearestStep() {
        const auto x = randomValues(64, 2.0f, 3);
        QuantizedActivations quantized;
        quantized.quantize(x.data(), 64);
        QCOMPARE(quantized.blocks(), int64_t(2));
        for (int64_t b = 0; b < 2; ++b) {
            int32_t sum = 0;
            for (int64_t j = 0; j < 32; ++j) {
                const size_t i = size_t(b * 32 + j);
                const float step = quantized.scales[size_t(b)];
                QVERIFY(std::abs(quantized.values[i]) <= 127);
                QVERIFY(std::fabs(quantized.values[i] * step - x[i]) <= step / 2 * 1.0001f);
                // Exactly the scalar rounding (ties to even), whichever kernel set quantized.
                QCOMPARE(quantized.values[i], int8_t(std::lrintf(x[i] * (1.0f / step))));
                sum += quantized.values[i];
            }
            QCOMPARE(quantized.scaledSums[size_t(b)], quantized.scales[size_t(b)] * float(sum));
        }
    }

    void theEnvironmentChoosesTheKernels() {
        for (const CpuKernels kernels : availableKernels()) {
            QProcess cli;
            QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
            environment.insert("INFERLENS_CPU_KERNELS", cpuKernelsName(kernels));
            cli.setProcessEnvironment(environment);
            cli.start(QStringLiteral(INFERLENS_CLI_PATH),
                      {"info", "--model", QStringLiteral(INFERLENS_BUNDLED_MODEL)});
            QVERIFY(cli.waitForFinished(60000));
            QCOMPARE(cli.exitCode(), 0);
            const QString out = QString::fromUtf8(cli.readAllStandardOutput());
            QVERIFY2(out.contains(QStringLiteral("CPU kernels:  %1").arg(cpuKernelsName(kernels))),
                     qPrintable(out));
            // BF16 products on AVX512_BF16 from the avx512 set up, where the CPU has it.
            const bool pairs = kernels >= CpuKernels::Avx512 && cpuHasAvx512Bf16();
            QVERIFY2(out.contains(QStringLiteral("F16/BF16:     activations rounded to the "
                                                 "weights' type; BF16 products %1")
                                      .arg(pairs ? "on AVX512_BF16" : "as f32 multiply-adds")),
                     qPrintable(out));
        }
    }
};

QTEST_APPLESS_MAIN(TestCpuKernels)
#include "test_cpu_kernels.moc"
