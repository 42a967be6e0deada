// The AMX INT8 tiles (amx_tiles.h) against the AVX-512 tiles they stand in for: on random packed
// Q8_0, Q4_0, Q4_K, Q5_K and Q6_K matrices, for 1…100 tokens, row ranges of one group, two, and a
// pair and one, padded or not, the same floats bit for bit (the tiles only change how the exact
// integer block sums are formed), written token by token and no row past the range; and a prefill
// through the engine's products (threads taking row ranges) equal to its tokens one by one — what
// the chat cache reuse and the sliding-window tests rely on. Also: INFERLENS_CPU_KERNELS honoured
// for every set, amx included, and a set the machine lacks falling back with a message. Skipped,
// naming what is missing, where the CPU or the kernel has no AMX.

#include <QProcess>
#include <QTest>

#include <cstring>
#include <random>
#include <utility>

#include "backend/cpu/cpu_features.h"
#include "backend/cpu/packed_rows.h"
#include "backend/cpu/reference_ops.h"
#include "backend/cpu/thread_pool.h"
#include "core/half.h"
#include "support/random_blocks.h"
#include "support/test_models.h"

using namespace inferlens;

namespace {

constexpr int kMaxTokens = 100;

// Token counts up to kMaxTokens: every count up to 48 (one pass of 32 tokens on tiles and one of
// 1…16 after it, on tiles from 12 on), and some past a block of 64 (two blocks, a short last
// pass).
std::vector<int> tokenCounts() {
    std::vector<int> counts;
    for (int tokens = 1; tokens <= 48; ++tokens)
        counts.push_back(tokens);
    for (const int tokens : {63, 64, 65, 69, 76, 97, kMaxTokens})
        counts.push_back(tokens);
    return counts;
}

using test::randomBlocks;

// kMaxTokens tokens of `columns` random activations, some blocks saturating the 8-bit range.
std::vector<float> randomActivations(int64_t columns, uint32_t seed) {
    std::mt19937 generator(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(size_t(kMaxTokens * columns));
    for (float& value : x)
        value = normal(generator);
    return x;
}

struct Matrix {
    std::vector<std::byte> bytes;
    TensorView view;
    PackedBuffer packed;
};

constexpr DType kAmxTypes[] = {DType::Q8_0, DType::Q4_0, DType::Q4_1, DType::Q5_0,
                               DType::Q5_1, DType::Q4_K, DType::Q5_K, DType::Q6_K};

// `rows` rows (21: three groups, the last one padded) × 7 blocks (of 32 values, or of 256 for the
// K types).
Matrix randomMatrix(DType dtype, uint32_t seed, int64_t rows = 21) {
    constexpr int64_t blocks = 7;
    Matrix matrix;
    matrix.bytes = randomBlocks(dtype, rows * blocks, seed);
    matrix.view = TensorView{"w",
                             dtype,
                             {rows, blocks * dtypeInfo(dtype).blockElements},
                             matrix.bytes.data(),
                             int64_t(matrix.bytes.size())};
    matrix.packed = packRows(matrix.view);
    matrix.view.packed = matrix.packed.bytes.get();
    return matrix;
}

QString runInfo(const QString& kernels, QString* errors) {
    QProcess cli;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("INFERLENS_CPU_KERNELS", kernels);
    cli.setProcessEnvironment(environment);
    cli.start(QStringLiteral(INFERLENS_CLI_PATH),
              {"info", "--model", QStringLiteral(INFERLENS_BUNDLED_MODEL)});
    if (!cli.waitForFinished(60000) || cli.exitCode() != 0)
        return {};
    *errors = QString::fromUtf8(cli.readAllStandardError());
    return QString::fromUtf8(cli.readAllStandardOutput());
}

}  // namespace

class TestAmxKernels : public QObject {
    Q_OBJECT

    // Started before anything asks for the tile permission: the permission is the process's, so
    // its threads may run tiles too.
    ThreadPool earlyPool_{3};

  private slots:
    void theAmxRowsProductEqualsTheAvx512Tiles() {
        if (!cpuSupports(CpuKernels::Amx))
            QSKIP(qPrintable(QString("no AMX tiles here: %1").arg(amxUnavailable())));
        // Row ranges (first group, rows) of the 21-row matrix: a pair and a padded group alone, a
        // pair, one group, a pair whose second group is padded, the padded group alone.
        constexpr std::pair<int64_t, int64_t> kRanges[] = {
            {0, 21}, {0, 16}, {0, 8}, {1, 13}, {2, 5}};
        for (const DType dtype : kAmxTypes) {
            const PackedRowsTile amx = packedRowsTile(dtype, CpuKernels::Amx);
            const PackedTile avx512 = packedTile(dtype, CpuKernels::Avx512);
            QVERIFY(amx != nullptr && avx512 != nullptr);
            QVERIFY2(packedRowsTile(dtype, CpuKernels::Avx512) == nullptr,
                     "the AMX rows product runs below the amx set");
            const Matrix matrix = randomMatrix(dtype, 1);
            const int64_t columns = matrix.view.columns();
            const int64_t blocks = columns / dtypeInfo(dtype).blockElements;
            const auto x = randomActivations(columns, 2);
            std::vector<QuantizedActivations> quantized(kMaxTokens);
            std::vector<const QuantizedActivations*> xs;
            for (int t = 0; t < kMaxTokens; ++t) {
                quantized[size_t(t)].quantize(x.data() + t * columns, columns);
                xs.push_back(&quantized[size_t(t)]);
            }
            const int64_t groupBytes = packedGroupBytes(matrix.view);
            for (const auto& [firstGroup, rowCount] : kRanges)
                for (const int tokens : tokenCounts()) {
                    const QString where = QString("%1, %2 rows from group %3, %4 tokens")
                                              .arg(dtypeName(dtype).data())
                                              .arg(rowCount)
                                              .arg(firstGroup)
                                              .arg(tokens);
                    // Each group on the one-group AVX-512 tile, as decoding runs it.
                    const int64_t stride = rowCount + 3;  // rows past rowCount must stay as set
                    std::vector<float> expected(size_t(tokens * stride), -7.0f);
                    std::vector<float> groupOut(size_t(kPackedRows * tokens));
                    for (int64_t g = 0; g * kPackedRows < rowCount; ++g) {
                        avx512(matrix.packed.bytes.get() + (firstGroup + g) * groupBytes, xs.data(),
                               tokens, blocks, groupOut.data());
                        for (int64_t r = g * kPackedRows;
                             r < std::min(rowCount, (g + 1) * kPackedRows); ++r)
                            for (int t = 0; t < tokens; ++t)
                                expected[size_t(t * stride + r)] =
                                    groupOut[size_t(t * kPackedRows + r - g * kPackedRows)];
                    }
                    std::vector<float> onTiles(expected.size(), -7.0f);
                    amx(matrix.packed.bytes.get() + firstGroup * groupBytes, groupBytes, rowCount,
                        xs.data(), tokens, blocks, onTiles.data(), stride);
                    QVERIFY2(std::memcmp(onTiles.data(), expected.data(),
                                         expected.size() * sizeof(float)) == 0,
                             qPrintable(where));
                }
        }
    }

    // Through the engine's products with the set in use (amx here when the machine has it), on the
    // threads started before the permission: a prefill of T tokens gives the T decode steps'
    // floats — on 21 rows (one group a thread) and on 200 (pairs of groups, the last one alone).
    void aPrefillEqualsItsTokensOneByOne() {
        if (cpuKernels() != CpuKernels::Amx)
            QSKIP(qPrintable(
                QString("the kernel set in use is %1").arg(cpuKernelsSummary().c_str())));
        for (const DType dtype : kAmxTypes)
            for (const int rows : {21, 200}) {
                const Matrix matrix = randomMatrix(dtype, 3, rows);
                const int64_t columns = matrix.view.columns();
                const auto x = randomActivations(columns, 4);
                std::vector<float> prefill(size_t(kMaxTokens * rows));
                matMat(matrix.view, x, kMaxTokens, prefill, &earlyPool_);
                for (int t = 0; t < kMaxTokens; ++t) {
                    std::vector<float> decode(static_cast<size_t>(rows));
                    matVec(matrix.view, std::span(x).subspan(size_t(t * columns), size_t(columns)),
                           decode, &earlyPool_);
                    QVERIFY2(std::memcmp(decode.data(), prefill.data() + t * rows,
                                         decode.size() * sizeof(float)) == 0,
                             qPrintable(QString("%1, %2 rows, token %3")
                                            .arg(dtypeName(dtype).data())
                                            .arg(rows)
                                            .arg(t)));
                }
            }
    }

    void theEnvironmentChoosesEverySet() {
        CpuKernels best = CpuKernels::Portable;
        for (const CpuKernels kernels :
             {CpuKernels::Portable, CpuKernels::Avx2, CpuKernels::Avx512, CpuKernels::Amx}) {
            QString errors;
            const QString out = runInfo(cpuKernelsName(kernels), &errors);
            QVERIFY2(!out.isEmpty(), cpuKernelsName(kernels));
            if (!cpuSupports(kernels)) {
                qInfo("this machine has no %s: asking for it falls back", cpuKernelsName(kernels));
                QVERIFY2(
                    errors.contains(QStringLiteral("INFERLENS_CPU_KERNELS=%1: this CPU lacks it")
                                        .arg(cpuKernelsName(kernels))),
                    qPrintable(errors));
                QVERIFY2(out.contains(QStringLiteral("CPU kernels:  %1").arg(cpuKernelsName(best))),
                         qPrintable(out));
                continue;
            }
            best = kernels;
            QVERIFY2(
                out.contains(QStringLiteral("CPU kernels:  %1\n").arg(cpuKernelsName(kernels))) ==
                    (kernels == CpuKernels::Amx),
                qPrintable(out));
            // Below amx the line says why the tiles are not used.
            QVERIFY2(out.contains(
                         QStringLiteral("CPU kernels:  %1 (AMX: ").arg(cpuKernelsName(kernels))) ==
                         (kernels != CpuKernels::Amx),
                     qPrintable(out));
        }
    }
};

QTEST_APPLESS_MAIN(TestAmxKernels)
#include "test_amx_kernels.moc"
