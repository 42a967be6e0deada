// The sliding KV cache with attention sinks. As a unit: every row holds the position positionOf()
// says through thousands of evictions and the moves back to the start, the allocation stops
// growing, a step longer than the window is refused, and truncating keeps only what was not
// evicted. Through the generator: while the sequence fits, the logits equal the full cache's bit
// for bit; a one-layer model's last logits do not depend on the tokens at evicted positions at all
// (with one layer a position's K/V come from its own token only, so this shows they are never
// read), while the full cache's do; an attention probe sees zero weight there and is told the
// window; a prompt in steps of several tokens gives the logits of one token per step (each row
// sees exactly its own window), with both kernels; generation runs far past the model's context
// with the memory flat.

#include <QTemporaryDir>
#include <QTest>

#include "core/error.h"
#include "generator.h"
#include "kv_cache.h"
#include "support/test_models.h"

using namespace inferlens;

namespace {

class CacheAndAttentionProbe : public Probe {
  public:
    ProbeInterest interest() const override {
        ProbeInterest interest;
        interest.kvCache = true;
        interest.attention = [](int64_t layer, int64_t head) { return layer == 0 && head == 0; };
        return interest;
    }
    void onKvCache(int64_t, const KvCacheStats& stats) override { caches.push_back(stats); }
    void onAttention(const AttentionEvent& event) override {
        attention.push_back(event);
        weights.assign(event.weights.begin(), event.weights.end());
    }
    std::vector<KvCacheStats> caches;
    std::vector<AttentionEvent> attention;  // their weights are not kept: see `weights`
    std::vector<float> weights;             // the last event's
};

// The logits of the last of `ids`, run one token per step.
std::vector<float> lastLogits(const Model& model, const GeneratorOptions& options,
                              const std::vector<int32_t>& ids, ProbeSet* probes = nullptr) {
    Generator generator(model, options, probes);
    std::vector<float> logits(size_t(model.config().vocabSize));
    for (size_t i = 0; i < ids.size(); ++i)
        generator.step(std::span(ids).subspan(i, 1), logits);
    return logits;
}

}  // namespace

class TestSlidingWindow : public QObject {
    Q_OBJECT

  private slots:
    void rowsFollowTheirPositionsThroughEvictions() {
        const int64_t sinks = 4, window = 6;
        KvCache cache(2, 1, 1, 2, sinks + window, {KvType::F32, true, sinks});
        int64_t largestAllocation = 0, position = 0;
        while (position < 3000) {
            const int64_t count = position % 7 == 3 ? 5 : 1;  // now and then a longer step
            cache.reserve(count);
            for (int64_t i = 0; i < count; ++i) {
                const std::vector<float> key{float(position + i), 1},
                    value{-float(position + i), 2};
                for (int64_t layer = 0; layer < 2; ++layer)
                    cache.store(layer, cache.size() + i, key, value);
            }
            cache.commit(count);
            position += count;
            QCOMPARE(cache.nextPosition(), position);
            QCOMPARE(cache.size(), std::min(position, sinks + window));
            QCOMPARE(cache.evicted(), position - cache.size());
            for (int64_t row = 0; row < cache.size(); ++row) {
                const int64_t expected = row < sinks ? row : position - (cache.size() - row);
                QCOMPARE(cache.positionOf(row), expected);
                QCOMPARE(cache.keys(1).floatData()[row * 2], float(expected));
                QCOMPARE(cache.values(0).floatData()[row * 2], -float(expected));
            }
            largestAllocation = std::max(largestAllocation, cache.stats().bytesAllocated);
            QCOMPARE(cache.stats().sinkTokens, std::min(sinks, cache.size()));
        }
        // What a step needs (the sinks, the W − 1 before it, its at most W tokens) plus one block
        // of spare rows, whatever the length.
        QCOMPARE(largestAllocation, int64_t((sinks + 2 * window - 1 + 256) * 2 * 2 * 2 * 4));
        QCOMPARE(cache.stats().evictedTokens, position - 10);
        QVERIFY(!cache.full());
        QVERIFY_THROWS_EXCEPTION(Error, cache.reserve(window + 1));

        // A prefix can be kept while the token after it finds its W − 1 predecessors held.
        QCOMPARE(cache.truncate(position - 1), position - 1);
        QCOMPARE(cache.size(), int64_t(9));
        QCOMPARE(cache.truncate(position - 2), int64_t(0));  // position − 7 was evicted
        QCOMPARE(cache.nextPosition(), int64_t(0));
    }

    void equalsTheFullCacheWhileTheSequenceFits() {
        QTemporaryDir dir;
        const Model model = Model::open(test::writeSynthetic(dir, "m.gguf", {}));
        const std::vector<int32_t> ids = test::testIds(28, model.config().vocabSize);
        GeneratorOptions sliding;
        sliding.window = 24;
        sliding.sinks = 4;
        GeneratorOptions full;
        full.contextSize = 28;
        QCOMPARE(lastLogits(model, sliding, ids), lastLogits(model, full, ids));
    }

    void evictedPositionsAreNeverAttended() {
        QTemporaryDir dir;
        SyntheticModelOptions shape;
        shape.layers = 1;  // a position's K/V then depend on its own token only
        const Model model = Model::open(test::writeSynthetic(dir, "m.gguf", shape));
        std::vector<int32_t> ids = test::testIds(30, model.config().vocabSize);
        std::vector<int32_t> changed = ids;
        // After the last step the cache holds positions 0, 1 (sinks) and 22..29 (the window).
        for (size_t p = 2; p < 22; ++p)
            changed[p] = (changed[p] + 17) % int32_t(model.config().vocabSize);
        GeneratorOptions sliding;
        sliding.window = 8;
        sliding.sinks = 2;
        ProbeSet probes;
        CacheAndAttentionProbe probe;
        probes.add(&probe);
        QCOMPARE(lastLogits(model, sliding, ids, &probes), lastLogits(model, sliding, changed));
        GeneratorOptions full;
        QVERIFY(lastLogits(model, full, ids) != lastLogits(model, full, changed));

        const AttentionEvent& last = probe.attention.back();
        QCOMPARE(last.keyCount, int64_t(30));
        QCOMPARE(last.sinkTokens, int64_t(2));
        QCOMPARE(last.windowTokens, int64_t(8));  // positions 2..21 are outside
        QCOMPARE(probe.weights.size(), size_t(30));
        double total = 0;
        for (size_t p = 0; p < 30; ++p) {
            if (p >= 2 && p < 22)
                QCOMPARE(probe.weights[p], 0.0f);
            else
                QVERIFY(probe.weights[p] > 0);
            total += probe.weights[p];
        }
        QVERIFY(std::fabs(total - 1) < 1e-5);
    }

    void everyTokenSeesTheSameWindowWhateverItsStep() {
        // A 30-token prompt in steps of 8, 5 and 1 tokens against one token per step: during a
        // step the kernels mask, row by row, what a row's window no longer holds.
        QTemporaryDir dir;
        const Model model = Model::open(test::writeSynthetic(dir, "m.gguf", {}));
        const auto vocab = size_t(model.config().vocabSize);
        const std::vector<int32_t> ids = test::testIds(30, model.config().vocabSize);
        for (const AttentionKernel kernel : {AttentionKernel::Fused, AttentionKernel::Reference}) {
            GeneratorOptions options;
            options.window = 8;
            options.sinks = 2;
            options.attention = kernel;
            const auto logitsInSteps = [&](size_t stepSize) {
                Generator generator(model, options);
                std::vector<float> logits(ids.size() * vocab);
                for (size_t first = 0; first < ids.size(); first += stepSize) {
                    const size_t count = std::min(stepSize, ids.size() - first);
                    generator.step(std::span(ids).subspan(first, count),
                                   std::span(logits).subspan(first * vocab, count * vocab));
                }
                return logits;
            };
            const std::vector<float> oneByOne = logitsInSteps(1);
            for (const size_t stepSize : {size_t(8), size_t(5)})
                QVERIFY(test::normalisedError(logitsInSteps(stepSize), oneByOne) < 1e-5);
            // And not what a full cache gives past the window.
            GeneratorOptions full;
            full.attention = kernel;
            Generator whole(model, full);
            std::vector<float> fullLogits(ids.size() * vocab);
            whole.step(ids, fullLogits);
            QVERIFY(test::normalisedError(oneByOne, fullLogits) > 1e-3);
        }
    }

    void generationRunsPastTheContextWithFlatMemory() {
        QTemporaryDir dir;
        SyntheticModelOptions shape;
        shape.context = 256;
        const Model model = Model::open(test::writeSynthetic(dir, "m.gguf", shape));
        GeneratorOptions options;
        options.window = 60;
        options.sinks = 4;
        options.kvType = KvType::Int8;  // windows and storage types combine
        ProbeSet probes;
        CacheAndAttentionProbe probe;
        probes.add(&probe);
        Generator generator(model, options, &probes);
        GreedyChooser greedy;
        const std::vector<int32_t> prompt = test::testIds(100, model.config().vocabSize);
        // A 100-token prompt goes in steps of the window: 60 + 40.
        const Generation result = generator.generate(prompt, 700, greedy, {});
        QCOMPARE(result.reason, FinishReason::MaxTokens);
        QCOMPARE(int64_t(result.tokens.size()), int64_t(700));
        QCOMPARE(generator.tokenCount(), int64_t(100 + 699));  // far past the model's 256
        const KvCacheStats& end = probe.caches.back();
        QCOMPARE(end.tokens, int64_t(64));
        QCOMPARE(end.evictedTokens, int64_t(799 - 64));
        // Allocated: the sinks, the window, the W − 1 before a step's W and one 256-token block
        // of spare rows (kv_cache.h).
        const int64_t rowBytes = 2 * 2 * kvRowBytes(KvType::Int8, 2, 16);  // K+V, 2 layers
        QCOMPARE(end.bytesAllocated, (4 + 2 * 60 - 1 + 256) * rowBytes);
        for (size_t step = 100; step < probe.caches.size(); ++step) {
            QCOMPARE(probe.caches[step].tokens, int64_t(64));
            QVERIFY(probe.caches[step].bytesAllocated <= end.bytesAllocated);
        }
        QVERIFY(probe.caches[0].tokens == 60);
    }

    void refusesWhatItCannotDo() {
        QTemporaryDir dir;
        const Model model = Model::open(test::writeSynthetic(dir, "m.gguf", {}));
        GeneratorOptions options;
        options.window = 16;
        Generator generator(model, options);
        std::vector<float> logits(size_t(model.config().vocabSize));
        const std::vector<int32_t> ids = test::testIds(17, model.config().vocabSize);
        QVERIFY_THROWS_EXCEPTION(Error, generator.step(ids, logits));
        QCOMPARE(generator.tokenCount(), int64_t(0));  // nothing of the refused step is kept
        options.useKvCache = false;
        QVERIFY_THROWS_EXCEPTION(Error, Generator(model, options));
        options.useKvCache = true;
        options.window = 300;  // beyond the model's 256-token context
        QVERIFY_THROWS_EXCEPTION(Error, Generator(model, options));
        options.window = 0;
        options.sinks = 4;  // sinks without a window
        QVERIFY_THROWS_EXCEPTION(Error, Generator(model, options));
    }

    void aChatTurnAfterEvictionsStartsOver() {
        QTemporaryDir dir;
        const Model model = Model::open(test::writeSynthetic(dir, "m.gguf", {}));
        GeneratorOptions options;
        options.window = 8;
        options.sinks = 2;
        Generator generator(model, options);
        std::vector<float> logits(size_t(model.config().vocabSize));
        const std::vector<int32_t> ids = test::testIds(20, model.config().vocabSize);
        for (size_t i = 0; i < 15; ++i)
            generator.step(std::span(ids).subspan(i, 1), logits);
        QCOMPARE(generator.keepCommonPrefix(ids), int64_t(15));  // nothing evicted needed
        // Held: 0, 1 and 7..14. Position 14 would see 7..13 again: kept; position 11 would need
        // 4..10, of which 4..6 are gone: the cache starts over.
        QCOMPARE(generator.keepCommonPrefix(std::span(ids).first(15)), int64_t(14));
        QCOMPARE(generator.keepCommonPrefix(std::span(ids).first(12)), int64_t(0));
        QCOMPARE(generator.tokenCount(), int64_t(0));
        QCOMPARE(generator.cachedTokens(), int64_t(0));
    }
};

QTEST_GUILESS_MAIN(TestSlidingWindow)
#include "test_sliding_window.moc"
