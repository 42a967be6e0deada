// The memory estimate shown before a model loads, checked against what the engine really allocates
// (the KV cache filled to its capacity) and against the files (the weights' bytes); the weight
// prefetch reads every byte's page, reports monotonic progress that ends at the total, and cancels.

#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include "core/error.h"
#include "generator.h"
#include "models/memory_estimate.h"
#include "models/model.h"
#include "support/test_models.h"

using namespace inferlens;

class TestMemoryEstimate : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        SyntheticModelOptions options;
        options.architecture = "chatglm";
        options.layers = 3;
        options.hidden = 64;
        options.heads = 4;
        options.kvHeads = 2;
        options.context = 40;
        path_ = test::writeSynthetic(dir_, "m.gguf", options);
    }

    void kvCacheEstimateEqualsAFullCache() {
        const Model model = Model::open(path_);
        const ModelConfig& c = model.config();
        const int64_t context = resolveContextSize(c, 0);
        QCOMPARE(context, int64_t(40));
        const MemoryEstimate estimate = estimateMemory(c, model.files().weightBytes(), context);

        KvCache cache(c.layerCount, c.kvHeadCount, c.headCount, c.headDim, context);
        cache.reserve(context);
        cache.commit(context);
        const KvCacheStats stats = cache.stats();
        QCOMPARE(stats.tokens, context);
        QCOMPARE(estimate.kvCacheBytes, stats.bytesAllocated);
        QCOMPARE(estimate.kvCacheBytes, stats.bytesUsed);
        QVERIFY(estimate.workBytes > 0);
        QCOMPARE(estimate.total(),
                 estimate.weightBytes + estimate.kvCacheBytes + estimate.workBytes);
    }

    void kvCacheEstimateCountsTheTypeAndTheWindow() {
        // Through a long generation, the int8 cache and the sliding one never allocate more than
        // the estimate for their options says.
        const Model model = Model::open(path_);
        const ModelConfig& c = model.config();
        for (const int64_t window : {int64_t(0), int64_t(12)}) {
            GeneratorOptions options;
            options.kvType = KvType::Int8;
            options.window = window;
            options.sinks = window > 0 ? 2 : 0;
            const MemoryEstimate estimate = estimateMemory(
                c, model.files().weightBytes(), cacheRowsAtMost(c, options), 512, options.kvType);
            Generator generator(model, options);
            std::vector<float> logits(size_t(c.vocabSize));
            const int64_t tokens = window > 0 ? 400 : 40;  // 400: past the next spare-row block
            int64_t largest = 0;
            for (int64_t i = 0; i < tokens; ++i) {
                const int32_t token[] = {int32_t(3 + i % 50)};
                generator.step(token, logits);
                largest = std::max(largest, generator.cacheStats().bytesAllocated);
            }
            QVERIFY(largest <= estimate.kvCacheBytes);
            // And the estimate is the allocation, not a loose bound: int8 rows, the context or the
            // window's rows at most.
            QCOMPARE(estimate.kvCacheBytes, 2 * c.layerCount * cacheRowsAtMost(c, options) *
                                                kvRowBytes(KvType::Int8, c.kvHeadCount, c.headDim));
        }
        GeneratorOptions tooWide;
        tooWide.window = 40;  // + 4 sinks: past the model's 40-token context
        tooWide.sinks = 4;
        QVERIFY_THROWS_EXCEPTION(Error, cacheRowsAtMost(c, tooWide));
    }

    void weightBytesAreTheFilesTensorData() {
        const Model model = Model::open(path_);
        int64_t sum = 0;
        for (const auto& [name, tensor] : model.files().tensors)
            sum += tensor.byteCount;
        const MemoryEstimate estimate = estimateMemory(model.config(), sum, 40);
        QCOMPARE(estimate.weightBytes, sum);
        // The tensor data is most of the file (the rest is the header and the vocabulary).
        const qint64 fileSize = QFileInfo(QString::fromStdString(path_)).size();
        QVERIFY(sum < fileSize);
        QVERIFY(sum > fileSize / 4);
    }

    void theSystemReportsAvailableMemory() {
#ifdef __linux__
        const std::optional<int64_t> available = availableMemoryBytes();
        QVERIFY(available.has_value());
        QVERIFY(*available > int64_t(16) << 20);  // a test machine has more than 16 MiB free
#else
        QSKIP("MemAvailable is read from /proc/meminfo (Linux only)");
#endif
    }

    void aModelLargerThanTheFreeMemoryIsRefusedWithTheNumbers() {
        MemoryEstimate estimate;
        estimate.weightBytes = 3'000'000'000;
        estimate.kvCacheBytes = 500'000'000;
        estimate.workBytes = 100'000'000;
        estimate.contextSize = 4096;
        requireMemory(estimate, std::nullopt, "m.gguf");   // unknown: nothing to say
        requireMemory(estimate, 3'600'000'000, "m.gguf");  // exactly enough
        try {
            requireMemory(estimate, 2'000'000'000, "m.gguf");
            QFAIL("a model larger than the free memory was accepted");
        } catch (const Error& error) {
            const QString message = QString::fromUtf8(error.what());
            for (const char* part : {"m.gguf", "needs 3.60 GB", "weights 3.00 GB",
                                     "KV cache 0.50 GB for 4096 tokens", "2.00 GB"})
                QVERIFY2(message.contains(part), error.what());
        }
    }

    void prefetchReportsProgressToTheEnd() {
        const Model model = Model::open(path_);
        std::vector<std::pair<int64_t, int64_t>> calls;
        QVERIFY(prefetchWeights(model.files(), [&](int64_t done, int64_t total) {
            calls.emplace_back(done, total);
            return true;
        }));
        QVERIFY(!calls.empty());
        const int64_t total = model.files().weightBytes();
        for (size_t i = 0; i < calls.size(); ++i) {
            QCOMPARE(calls[i].second, total);
            if (i > 0)
                QVERIFY(calls[i].first >= calls[i - 1].first);
        }
        QCOMPARE(calls.back().first, total);
    }

    void prefetchCancels() {
        const Model model = Model::open(path_);
        int calls = 0;
        QVERIFY(!prefetchWeights(model.files(), [&](int64_t, int64_t) {
            ++calls;
            return false;
        }));
        QCOMPARE(calls, 1);
    }

  private:
    QTemporaryDir dir_;
    std::string path_;
};

QTEST_APPLESS_MAIN(TestMemoryEstimate)
#include "test_memory_estimate.moc"
