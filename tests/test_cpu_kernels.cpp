// Every CPU kernel set this machine has (portable, AVX2, AVX-512) against a double-precision
// product of the decoded weights, for every weight type, on random rows of awkward lengths: float
// types at lengths that leave every possible tail after the vector loops, block types over 1, 3,
// 17 and 129 blocks. Float kernels must agree to f32 rounding; block kernels quantize the
// activations to 8 bits, so they may differ from the exact product by at most the error that
// rounding introduces (each activation moves by at most half its block's step, max|x| / 254),
// plus f32 rounding. Also: the sets a CPU lacks are reported as such, and
// INFERLENS_CPU_KERNELS chooses the set, as the CLI shows.

#include <QProcess>
#include <QTest>

#include <cmath>
#include <random>

#include "backend/cpu/kernels.h"
#include "backend/cpu/reference_ops.h"
#include "backend/cpu/thread_pool.h"
#include "core/dtype_codec.h"
#include "core/quant_blocks.h"
#include "support/test_models.h"

using namespace inferlens;

namespace {

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

    void floatKernelsAgreeWithTheDecodedProduct() {
        // Tiles of every shape up to 4 rows × 4 tokens, and one past it (the kernel splits it).
        const std::vector<std::pair<int, int>> shapes{{1, 1}, {4, 1}, {1, 4}, {4, 4},
                                                      {3, 2}, {2, 3}, {5, 5}};
        for (const CpuKernels kernels : availableKernels())
            for (const DType dtype : {DType::F32, DType::F16, DType::BF16})
                for (const int64_t count : {1, 7, 8, 15, 16, 31, 33, 63, 64, 65, 100, 1023, 4099}) {
                    std::vector<std::vector<std::byte>> rows;
                    std::vector<std::vector<float>> decoded, x;
                    for (int r = 0; r < 5; ++r) {
                        rows.push_back(encoded(dtype, randomValues(count, 0.5f, uint32_t(r))));
                        decoded.emplace_back(static_cast<size_t>(count));
                        decodeRow(dtype, rows.back().data(), decoded.back());
                        x.push_back(randomValues(count, 1.0f, uint32_t(100 + r)));
                    }
                    const FloatTile tile = floatTile(dtype, kernels);
                    QVERIFY(tile != nullptr);
                    std::vector<std::vector<float>> first(5, std::vector<float>(5, NAN));
                    for (const auto& [rowCount, tokenCount] : shapes) {
                        const std::byte* rowPointers[5];
                        const float* xs[5];
                        for (int k = 0; k < 5; ++k) {
                            rowPointers[k] = rows[size_t(k)].data();
                            xs[k] = x[size_t(k)].data();
                        }
                        std::vector<float> out(size_t(rowCount * tokenCount));
                        tile(rowPointers, rowCount, xs, tokenCount, count, out.data());
                        for (int r = 0; r < rowCount; ++r)
                            for (int t = 0; t < tokenCount; ++t) {
                                double exact = 0, magnitude = 0;
                                for (int64_t i = 0; i < count; ++i) {
                                    const double p = double(decoded[size_t(r)][size_t(i)]) *
                                                     x[size_t(t)][size_t(i)];
                                    exact += p;
                                    magnitude += std::fabs(p);
                                }
                                const float got = out[size_t(r * tokenCount + t)];
                                // f32 accumulation in any order: a few ulps of the magnitudes.
                                QVERIFY2(std::fabs(got - exact) <= 1e-6 * magnitude + 1e-30,
                                         qPrintable(QString("%1 %2 n=%3 %4×%5: %6 vs %7")
                                                        .arg(cpuKernelsName(kernels))
                                                        .arg(dtypeName(dtype).data())
                                                        .arg(count)
                                                        .arg(rowCount)
                                                        .arg(tokenCount)
                                                        .arg(got)
                                                        .arg(exact)));
                                // The same pair gives the same number in every tile shape, so
                                // a prefill and token-by-token decoding agree exactly.
                                float& seen = first[size_t(r)][size_t(t)];
                                if (std::isnan(seen))
                                    seen = got;
                                QCOMPARE(got, seen);
                            }
                    }
                }
    }

    void blockKernelsAgreeWithinTheActivationRounding() {
        for (const CpuKernels kernels : availableKernels())
            for (const DType dtype : {DType::Q8_0, DType::Q4_0})
                for (const int64_t blocks : {1, 3, 17, 129}) {
                    const int64_t count = blocks * kQuantBlockElements;
                    const auto w = randomValues(count, 0.1f, uint32_t(blocks));
                    auto x = randomValues(count, 1.0f, uint32_t(blocks) + 77);
                    x[5] = 0;  // and a block of zeros, whose scale is 0
                    if (blocks > 2)
                        std::fill(x.begin() + 32, x.begin() + 64, 0.0f);
                    const auto row = encoded(dtype, w);
                    std::vector<float> decoded(static_cast<size_t>(count));
                    decodeRow(dtype, row.data(), decoded);
                    QuantizedActivations quantized;
                    quantized.quantize(x.data(), count);
                    double exact = 0, bound = 0, magnitude = 0;
                    for (int64_t b = 0; b < blocks; ++b) {
                        const double halfStep = double(quantized.scales[size_t(b)]) / 2;
                        for (int64_t j = 0; j < kQuantBlockElements; ++j) {
                            const size_t i = size_t(b * kQuantBlockElements + j);
                            exact += double(decoded[i]) * x[i];
                            bound += std::fabs(double(decoded[i])) * halfStep;
                            magnitude += std::fabs(double(decoded[i]) * x[i]);
                        }
                    }
                    const BlockTile tile =
                        dtype == DType::Q8_0 ? q8_0Tile(kernels) : q4_0Tile(kernels);
                    const std::byte* rowPointer = row.data();
                    const QuantizedActivations* activations = &quantized;
                    float got = 0;
                    tile(&rowPointer, 1, &activations, 1, blocks, &got);
                    QVERIFY2(std::fabs(got - exact) <= bound * 1.0001 + 1e-5 * magnitude,
                             qPrintable(QString("%1 %2 %3 blocks: %4 vs %5 (bound %6)")
                                            .arg(cpuKernelsName(kernels))
                                            .arg(dtypeName(dtype).data())
                                            .arg(blocks)
                                            .arg(got)
                                            .arg(exact)
                                            .arg(bound)));
                    // Every set computes the same integer sums: they agree to f32 rounding.
                    float portable = 0;
                    (dtype == DType::Q8_0 ? q8_0Tile : q4_0Tile)(CpuKernels::Portable)(
                        &rowPointer, 1, &activations, 1, blocks, &portable);
                    QVERIFY(std::fabs(got - portable) <= 1e-5 * magnitude + 1e-6);
                }
    }

    void productsAreTheSameOnAnyNumberOfThreads() {
        // The products split their rows across a pool: every thread must read the activations
        // (and their 8-bit form) that the calling thread prepared.
        ThreadPool pool(3);
        const int64_t rows = 300, columns = 256, tokens = 5;
        const auto x = randomValues(tokens * columns, 1.0f, 42);
        for (const DType dtype : {DType::F32, DType::F16, DType::BF16, DType::Q8_0, DType::Q4_0}) {
            const auto bytes = encoded(dtype, randomValues(rows * columns, 0.3f, 7));
            TensorView weight;
            weight.dtype = dtype;
            weight.shape = {rows, columns};
            weight.data = bytes.data();
            weight.byteCount = int64_t(bytes.size());
            std::vector<float> alone(static_cast<size_t>(rows)), shared(alone.size());
            matVec(weight, std::span(x).first(size_t(columns)), alone);
            matVec(weight, std::span(x).first(size_t(columns)), shared, &pool);
            QCOMPARE(shared, alone);
            std::vector<float> batchAlone(static_cast<size_t>(tokens * rows));
            std::vector<float> batchShared(batchAlone.size());
            matMat(weight, x, tokens, batchAlone);
            matMat(weight, x, tokens, batchShared, &pool);
            QCOMPARE(batchShared, batchAlone);
            // And a batch equals its tokens one by one.
            QCOMPARE(std::vector<float>(batchAlone.begin(), batchAlone.begin() + rows), alone);
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
                sum += quantized.values[i];
            }
            QCOMPARE(quantized.sums[size_t(b)], sum);
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
        }
    }
};

QTEST_APPLESS_MAIN(TestCpuKernels)
#include "test_cpu_kernels.moc"
