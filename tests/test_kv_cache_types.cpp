// The KV cache's storage types. A row stored as f16 or int8 decodes within its format's rounding
// (int8: half of the head's step max|x| / 127, computed here in double precision; an outlier head
// coarsens no other head); the fused kernel reading encoded rows gives exactly what it gives for
// the same numbers stored as f32 (so its block decoding is right); the statistics count the bytes
// each type takes and saves; and a model's logits with an f16 or int8 cache stay within the
// tolerances the README states of the f32 cache's, for both architectures and both kernels. The
// sampling panel's comparison: KL divergence against a hand-written softmax, and a shadow run with
// an exact cache that gives the same figure as an f32 run of the same tokens.

#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <limits>
#include <random>

#include "backend/cpu/fused_attention.h"
#include "backend/cpu/kv_rows.h"
#include "backend/cpu/thread_pool.h"
#include "core/error.h"
#include "evaluation/cache_divergence.h"
#include "generator.h"
#include "kv_cache.h"
#include "support/test_models.h"

using namespace inferlens;

namespace {

std::vector<float> randomRow(int64_t heads, int64_t headDim, std::mt19937& generator) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> row(size_t(heads * headDim));
    for (int64_t h = 0; h < heads; ++h) {
        const float magnitude = h == 1 ? 300.0f : 0.05f + float(h);  // head 1: an outlier
        for (int64_t d = 0; d < headDim; ++d)
            row[size_t(h * headDim + d)] = normal(generator) * magnitude;
    }
    return row;
}

std::vector<std::byte> encoded(KvType type, const std::vector<float>& rows, int64_t heads,
                               int64_t headDim) {
    const int64_t width = heads * headDim, rowBytes = kvRowBytes(type, heads, headDim);
    const auto count = int64_t(rows.size()) / width;
    std::vector<std::byte> bytes(size_t(count * rowBytes));
    for (int64_t r = 0; r < count; ++r)
        encodeKvRow(type, std::span(rows).subspan(size_t(r * width), size_t(width)), headDim,
                    bytes.data() + r * rowBytes);
    return bytes;
}

// Logits of a 40-token prefill and 8 decode steps.
std::vector<float> modelLogits(const Model& model, KvType type, AttentionKernel kernel) {
    GeneratorOptions options;
    options.kvType = type;
    options.attention = kernel;
    Generator generator(model, options);
    const auto vocab = size_t(model.config().vocabSize);
    const std::vector<int32_t> ids = test::testIds(48, model.config().vocabSize);
    std::vector<float> logits(ids.size() * vocab);
    generator.step(std::span(ids).first(40), std::span(logits).first(40 * vocab));
    for (size_t i = 40; i < ids.size(); ++i)
        generator.step(std::span(ids).subspan(i, 1), std::span(logits).subspan(i * vocab, vocab));
    return logits;
}

}  // namespace

class TestKvCacheTypes : public QObject {
    Q_OBJECT

  private slots:
    void namesAndRowSizes() {
        QCOMPARE(parseKvType("int8"), KvType::Int8);
        QCOMPARE(std::string(kvTypeName(parseKvType("f16"))), std::string("f16"));
        QVERIFY_THROWS_EXCEPTION(Error, parseKvType("q4"));
        QCOMPARE(kvRowBytes(KvType::F32, 2, 128), int64_t(2 * 128 * 4));
        QCOMPARE(kvRowBytes(KvType::F16, 2, 128), int64_t(2 * 128 * 2));
        QCOMPARE(kvRowBytes(KvType::Int8, 2, 128), int64_t(2 * (128 + 4)));  // + a step per head
    }

    void rowsDecodeWithinTheirRounding() {
        std::mt19937 generator(5);
        const int64_t heads = 4, headDim = 37;  // odd: no vector-width assumptions
        for (int trial = 0; trial < 20; ++trial) {
            std::vector<float> row = randomRow(heads, headDim, generator);
            if (trial == 0)
                std::fill_n(row.begin() + 2 * headDim, headDim, 0.0f);  // an all-zero head
            for (const KvType type : {KvType::F32, KvType::F16, KvType::Int8}) {
                const std::vector<std::byte> bytes = encoded(type, row, heads, headDim);
                const KvRows rows{type, bytes.data(), heads, headDim,
                                  kvRowBytes(type, heads, headDim)};
                std::vector<float> decoded(row.size()), head(row.size() / size_t(heads));
                rows.decodeRows(0, 1, decoded.data());
                for (int64_t h = 0; h < heads; ++h) {
                    rows.decodeHead(0, 1, h, head.data());
                    double largest = 0;
                    for (int64_t d = 0; d < headDim; ++d)
                        largest =
                            std::max(largest, std::fabs(double(row[size_t(h * headDim + d)])));
                    for (int64_t d = 0; d < headDim; ++d) {
                        const auto i = size_t(h * headDim + d);
                        QCOMPARE(head[size_t(d)], decoded[i]);
                        const double error = std::fabs(double(decoded[i]) - double(row[i]));
                        const double bound = type == KvType::F32   ? 0.0
                                             : type == KvType::F16 ? std::fabs(row[i]) / 2048.0
                                                                   : largest / 127.0 / 2.0 * 1.0001;
                        if (error > bound)
                            QFAIL(qPrintable(QStringLiteral("%1 head %2: |%3 − %4| > %5")
                                                 .arg(kvTypeName(type))
                                                 .arg(h)
                                                 .arg(decoded[i])
                                                 .arg(row[i])
                                                 .arg(bound)));
                    }
                }
            }
        }
    }

    void int8HeadsWithoutAFiniteStep() {
        // A NaN spoils its head (as it would every score), an infinity likewise, and a head too
        // small for its step's inverse to be finite is stored as zeros; the other head is intact.
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const float inf = std::numeric_limits<float>::infinity();
        for (const float odd : {nan, inf, 1e-40f}) {
            std::vector<float> row{odd, 1e-41f, 0.5f, -0.25f, 1.0f, -2.0f, 0.0f, 3.0f};
            if (odd == 1e-40f)
                row[2] = row[3] = 2e-41f;
            const std::vector<std::byte> bytes = encoded(KvType::Int8, row, 2, 4);
            const KvRows rows{KvType::Int8, bytes.data(), 2, 4, kvRowBytes(KvType::Int8, 2, 4)};
            std::vector<float> decoded(8);
            rows.decodeRows(0, 1, decoded.data());
            for (int d = 0; d < 4; ++d)
                QVERIFY2(
                    odd == 1e-40f ? decoded[size_t(d)] == 0.0f : std::isnan(decoded[size_t(d)]),
                    qPrintable(
                        QStringLiteral("%1: %2").arg(double(odd)).arg(double(decoded[size_t(d)]))));
            for (int d = 4; d < 8; ++d)
                QVERIFY(std::fabs(decoded[size_t(d)] - row[size_t(d)]) <= 3.0f / 254.0f);
        }
    }

    void fusedKernelReadsEncodedRowsAsTheirF32Values() {
        std::mt19937 generator(11);
        struct Shape {
            int64_t heads, kvHeads, headDim, firstRow, count;
        };
        ThreadPool pool(2);
        for (const Shape shape :
             {Shape{8, 2, 40, 0, 131}, Shape{6, 1, 24, 150, 1}, Shape{4, 4, 64, 70, 19}}) {
            const int64_t rowsTotal = shape.firstRow + shape.count;
            const int64_t width = shape.kvHeads * shape.headDim;
            std::vector<float> keys, values;
            for (int64_t r = 0; r < rowsTotal; ++r) {
                const auto k = randomRow(shape.kvHeads, shape.headDim, generator);
                const auto v = randomRow(shape.kvHeads, shape.headDim, generator);
                keys.insert(keys.end(), k.begin(), k.end());
                values.insert(values.end(), v.begin(), v.end());
            }
            std::normal_distribution<float> normal(0.0f, 0.05f);
            std::vector<float> queries(size_t(shape.count * shape.heads * shape.headDim));
            for (float& q : queries)
                q = normal(generator);
            const AttentionLayout layout{shape.headDim, shape.heads, shape.kvHeads, width,
                                         float(1.0 / std::sqrt(double(shape.headDim)))};
            for (const KvType type : {KvType::F16, KvType::Int8}) {
                const auto keyBytes = encoded(type, keys, shape.kvHeads, shape.headDim);
                const auto valueBytes = encoded(type, values, shape.kvHeads, shape.headDim);
                const int64_t rowBytes = kvRowBytes(type, shape.kvHeads, shape.headDim);
                const KvRows keyRows{type, keyBytes.data(), shape.kvHeads, shape.headDim, rowBytes};
                const KvRows valueRows{type, valueBytes.data(), shape.kvHeads, shape.headDim,
                                       rowBytes};
                std::vector<float> decodedKeys(keys.size()), decodedValues(values.size());
                keyRows.decodeRows(0, rowsTotal, decodedKeys.data());
                valueRows.decodeRows(0, rowsTotal, decodedValues.data());
                std::vector<float> fromEncoded(queries.size()), fromFloats(queries.size());
                fusedAttention(layout, queries, shape.firstRow, shape.count, keyRows, valueRows,
                               fromEncoded, &pool);
                fusedAttention(layout, queries, shape.firstRow, shape.count, decodedKeys.data(),
                               decodedValues.data(), fromFloats, &pool);
                QCOMPARE(fromEncoded, fromFloats);
            }
        }
    }

    void statisticsCountTheBytesSaved() {
        for (const KvType type : {KvType::F32, KvType::F16, KvType::Int8}) {
            KvCache cache(3, 2, 8, 64, 100, {type});
            const std::vector<float> row(128, 0.5f);
            cache.reserve(10);
            for (int64_t layer = 0; layer < 3; ++layer)
                for (int64_t r = 0; r < 10; ++r)
                    cache.store(layer, r, row, row);
            cache.commit(10);
            const KvCacheStats stats = cache.stats();
            const int64_t perHead = type == KvType::F32   ? 64 * 4
                                    : type == KvType::F16 ? 64 * 2
                                                          : 64 + 4;
            QCOMPARE(stats.type, type);
            QCOMPARE(stats.bytesUsed, 3 * 10 * 2 * 2 * perHead);
            QCOMPARE(stats.bytesUsedAsF32, int64_t(3 * 10 * 2 * 2 * 64 * 4));
            QCOMPARE(stats.bytesUsedFullMultiHead, 3 * 10 * 2 * 8 * perHead);
            QCOMPARE(stats.bytesAllocated, 3 * 100 * 2 * 2 * perHead);  // capped at the capacity
        }
    }

    void logitsStayNearTheF32Cache_data() {
        QTest::addColumn<QString>("architecture");
        QTest::addColumn<QString>("kernel");
        for (const char* architecture : {"chatglm", "llama"})
            for (const char* kernel : {"fused", "reference"})
                QTest::addRow("%s %s", architecture, kernel) << architecture << kernel;
    }

    void logitsStayNearTheF32Cache() {
        QFETCH(QString, architecture);
        QFETCH(QString, kernel);
        QTemporaryDir dir;
        SyntheticModelOptions options;
        options.architecture = architecture.toStdString();
        options.hidden = 128;
        options.heads = 4;
        options.kvHeads = 2;
        const Model model = Model::open(test::writeSynthetic(dir, "m.gguf", options));
        const AttentionKernel attention = parseAttentionKernel(kernel.toStdString());
        const std::vector<float> f32 = modelLogits(model, KvType::F32, attention);
        const double f16Error =
            test::normalisedError(modelLogits(model, KvType::F16, attention), f32);
        const double int8Error =
            test::normalisedError(modelLogits(model, KvType::Int8, attention), f32);
        qInfo("normalised logit error against the f32 cache: f16 %.2e, int8 %.2e", f16Error,
              int8Error);
        QVERIFY(f16Error > 0);  // the cache's type is really used
        QVERIFY(f16Error < 2e-3);
        QVERIFY(int8Error < 3e-2);
        QVERIFY(int8Error > f16Error);
    }

    void klDivergenceOfTwoDistributions() {
        const std::vector<float> p{0.0f, 1.0f, 2.0f, -1.0f}, q{0.5f, 0.5f, 2.0f, -3.0f};
        const auto softmax = [](const std::vector<float>& logits) {
            std::vector<double> out;
            double total = 0;
            for (const float l : logits)
                total += std::exp(double(l));
            for (const float l : logits)
                out.push_back(std::exp(double(l)) / total);
            return out;
        };
        const std::vector<double> pp = softmax(p), qq = softmax(q);
        double expected = 0;
        for (size_t i = 0; i < pp.size(); ++i)
            expected += pp[i] * std::log(pp[i] / qq[i]);
        QVERIFY(std::fabs(klDivergence(p, q) - expected) < 1e-12);
        QCOMPARE(klDivergence(p, p), 0.0);
        QVERIFY_THROWS_EXCEPTION(Error, klDivergence(p, std::vector<float>(3)));
    }

    void shadowRunComparesWithAnExactCache() {
        QTemporaryDir dir;
        const Model model = Model::open(test::writeSynthetic(dir, "m.gguf", {}));
        const auto vocab = size_t(model.config().vocabSize);
        const std::vector<int32_t> ids = test::testIds(30, model.config().vocabSize);
        GeneratorOptions int8;
        int8.kvType = KvType::Int8;
        Generator lossy(model, int8);
        std::vector<float> lossyLogits(vocab), exactLogits(vocab);
        lossy.step(std::span(ids).first(20), lossyLogits);
        for (size_t i = 20; i < ids.size(); ++i)
            lossy.step(std::span(ids).subspan(i, 1), lossyLogits);
        Generator exact(model, GeneratorOptions{});
        exact.step(ids, exactLogits);

        const auto comparison =
            compareWithExactCache(model, ids, lossyLogits, AttentionKernel::Fused, 1);
        QVERIFY(comparison.has_value());
        QVERIFY(comparison->klDivergence > 0);
        QCOMPARE(comparison->klDivergence, klDivergence(exactLogits, lossyLogits));
        QCOMPARE(comparison->exactTop, argmax(exactLogits));
        QCOMPARE(comparison->testTop, argmax(lossyLogits));
        QVERIFY(comparison->largestDifference > 0 && comparison->largestDifference < 0.05);
        // With the exact cache's own logits there is nothing to lose.
        QCOMPARE(
            compareWithExactCache(model, ids, exactLogits, AttentionKernel::Fused, 1)->klDivergence,
            0.0);
    }
};

QTEST_GUILESS_MAIN(TestKvCacheTypes)
#include "test_kv_cache_types.moc"
