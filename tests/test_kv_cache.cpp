// The KV cache as a unit (sizes, growth, statistics, the MQA saving) and through the generator:
// cache and no-cache logits agree, a new chat turn that keeps the cache gives the logits of a full
// recomputation, and generation stops for the right reason.

#include <QTemporaryDir>
#include <QTest>

#include "core/error.h"
#include "generator.h"
#include "kv_cache.h"
#include "support/test_models.h"

using namespace inferlens;

class TestKvCache : public QObject {
    Q_OBJECT
  private slots:
    void statisticsFollowTheTokensHeld() {
        // ChatGLM2-6B's shape: 28 layers, 2 KV groups × 128, 32 query heads.
        KvCache cache(28, 2, 32, 128, 4096);
        QCOMPARE(cache.stats().bytesAllocated, int64_t(0));
        std::vector<float> key(256), value(256);
        for (int token = 0; token < 17; ++token) {
            cache.reserve(1);
            key[0] = float(token);
            value[255] = -float(token);
            for (int layer = 0; layer < 28; ++layer)
                cache.store(layer, token, key, value);
            cache.commit(1);
        }
        const KvCacheStats stats = cache.stats();
        const int64_t perTokenPerLayer = 2 * 2 * 128 * 4;  // K and V, 2 groups × 128, f32
        QCOMPARE(stats.tokens, int64_t(17));
        QCOMPARE(stats.bytesUsedPerLayer.size(), size_t(28));
        QCOMPARE(stats.bytesUsedPerLayer[5], 17 * perTokenPerLayer);
        QCOMPARE(stats.bytesUsed, 28 * 17 * perTokenPerLayer);
        QCOMPARE(stats.bytesAllocatedPerLayer[0], 256 * perTokenPerLayer);  // grows by 256 tokens
        QCOMPARE(stats.bytesUsedFullMultiHead, stats.bytesUsed * 16);       // 32 heads / 2 groups
        QCOMPARE(cache.keys(3).floatData()[16 * 256], 16.0f);
        QCOMPARE(cache.values(27).floatData()[16 * 256 + 255], -16.0f);
    }

    void growsInBlocksUpToTheCapacityAndThenRefuses() {
        KvCache cache(1, 1, 1, 2, 300);
        cache.reserve(100);  // a 100-token prefill
        cache.commit(100);
        QCOMPARE(cache.stats().bytesAllocated, int64_t(256 * 2 * 2 * 4));
        for (int token = 100; token < 300; ++token) {
            cache.reserve(1);
            cache.commit(1);
        }
        QVERIFY(cache.full());
        QCOMPARE(cache.stats().bytesAllocated, int64_t(300 * 2 * 2 * 4));  // capped at capacity
        QVERIFY_THROWS_EXCEPTION(Error, cache.reserve(1));
        QVERIFY_THROWS_EXCEPTION(Error, cache.commit(1));
        QCOMPARE(cache.truncate(120), int64_t(120));  // keeps the first 120 tokens
        QCOMPARE(cache.size(), int64_t(120));
        QVERIFY(!cache.full());
        QVERIFY_THROWS_EXCEPTION(Error, cache.truncate(121));
        QVERIFY_THROWS_EXCEPTION(Error, cache.truncate(-1));
        cache.clear();
        QCOMPARE(cache.size(), int64_t(0));
        QVERIFY(!cache.full());
    }

    void cacheAndNoCacheGiveTheSameLogits_data() {
        QTest::addColumn<QString>("architecture");
        QTest::newRow("chatglm") << "chatglm";
        QTest::newRow("llama") << "llama";
    }

    void cacheAndNoCacheGiveTheSameLogits() {
        QFETCH(QString, architecture);
        QTemporaryDir dir;
        SyntheticModelOptions options;
        options.architecture = architecture.toStdString();
        options.hidden = 128;
        options.heads = 2;
        options.kvHeads = 1;
        options.ffn = 96;
        const auto path = test::writeSynthetic(dir, "m.gguf", options);
        const auto ids = test::testIds(12, options.vocab);
        const auto cached = test::engineLogits(path, ids, true);
        const auto recomputed = test::engineLogits(path, ids, false);
        const double error = test::normalisedError(cached, recomputed);
        qInfo("cache vs no-cache normalised difference: %.3g", error);
        QVERIFY(error < 1e-6);
        // Different positions give different logits (the comparison is not vacuous).
        QVERIFY(test::normalisedError(
                    std::vector<float>(cached.begin(), cached.begin() + 320),
                    std::vector<float>(cached.begin() + 320, cached.begin() + 640)) > 0.1);
    }

    void aNewTurnPrefillsOnlyWhatIsNewAndGivesTheLogitsOfAFullRecomputation_data() {
        QTest::addColumn<QString>("architecture");
        QTest::addColumn<bool>("kvCache");
        QTest::newRow("chatglm") << "chatglm" << true;
        QTest::newRow("llama") << "llama" << true;
        QTest::newRow("llama without a cache") << "llama" << false;
    }

    void aNewTurnPrefillsOnlyWhatIsNewAndGivesTheLogitsOfAFullRecomputation() {
        QFETCH(QString, architecture);
        QFETCH(bool, kvCache);
        QTemporaryDir dir;
        SyntheticModelOptions options;
        options.architecture = architecture.toStdString();
        options.hidden = 128;
        options.heads = 4;
        options.kvHeads = 2;
        const Model model = Model::open(test::writeSynthetic(dir, "m.gguf", options));
        const auto vocab = size_t(options.vocab);
        // Turn 1: a 30-token prompt and 6 generated tokens (the last is chosen, never run).
        const auto turn1 = test::testIds(30, options.vocab, 11);
        Generator generator(model, {.useKvCache = kvCache});
        GreedyChooser greedy;
        const Generation answer = generator.generate(turn1, 6, greedy, {});
        QCOMPARE(generator.tokenCount(), int64_t(30 + 5));
        // Turn 2 re-renders the conversation: turn 1's prompt and answer, then 20 new tokens.
        std::vector<int32_t> turn2 = turn1;
        turn2.insert(turn2.end(), answer.tokens.begin(), answer.tokens.end());
        const auto fresh = test::testIds(20, options.vocab, 12);
        turn2.insert(turn2.end(), fresh.begin(), fresh.end());

        const auto fullRecomputation = [&](const std::vector<int32_t>& sequence) {
            std::vector<float> logits(sequence.size() * vocab);
            Generator(model).step(sequence, logits);
            return std::vector<float>(logits.end() - ptrdiff_t(vocab), logits.end());
        };
        const auto continued = [&](const std::vector<int32_t>& sequence, int64_t expectKept) {
            const int64_t kept = generator.keepCommonPrefix(sequence);
            std::vector<float> logits(vocab);
            if (kept != expectKept || generator.tokenCount() != kept ||
                (kvCache && generator.cachedTokens() != kept))
                return std::vector<float>();
            generator.step(std::span(sequence).subspan(size_t(kept)), logits);
            return logits;
        };
        // Everything that ran is kept: the prefill is only the last answer token and the new turn.
        QCOMPARE(continued(turn2, 35), fullRecomputation(turn2));
        QCOMPARE(generator.tokenCount(), int64_t(turn2.size()));

        // An edited earlier message (position 10 changes) keeps only what comes before it.
        std::vector<int32_t> edited = turn2;
        edited[10] = (edited[10] + 1) % int32_t(options.vocab);
        QCOMPARE(continued(edited, 10), fullRecomputation(edited));

        // The same sequence again: all but its last token is kept, which runs for the logits.
        QCOMPARE(continued(edited, int64_t(edited.size()) - 1), fullRecomputation(edited));
        // A shorter sequence, a prefix of the history: the cache is cut back to it.
        const std::vector<int32_t> prefix(edited.begin(), edited.begin() + 8);
        QCOMPARE(continued(prefix, 7), fullRecomputation(prefix));
    }

    void threadsDoNotChangeTheLogits() {
        QTemporaryDir dir;
        SyntheticModelOptions options;
        options.hidden = 256;  // products above the threading threshold
        options.heads = 4;
        options.ffn = 512;
        const Model model = Model::open(test::writeSynthetic(dir, "m.gguf", options));
        const std::vector<int32_t> ids{3, 70, 71, 72, 300};
        std::vector<float> single(ids.size() * 320), threaded(ids.size() * 320);
        Generator(model, {.threads = 1}).step(ids, single);
        Generator(model, {.threads = 3}).step(ids, threaded);
        QCOMPARE(threaded, single);
    }

    void generationStopsWhenTheContextIsFull() {
        QTemporaryDir dir;
        const auto path = test::writeSynthetic(dir, "m.gguf", SyntheticModelOptions{});
        const Model model = Model::open(path);
        GreedyChooser greedy;
        for (const bool useCache : {true, false}) {
            Generator generator(model, {.contextSize = 6, .useKvCache = useCache});
            QCOMPARE(generator.contextSize(), int64_t(6));
            const std::vector<int32_t> prompt{5, 6, 7, 8};
            const Generation result = generator.generate(prompt, 100, greedy, {});
            QCOMPARE(result.reason, FinishReason::ContextFull);
            QCOMPARE(result.tokens.size(), size_t(3));  // positions 4 and 5 fed, a 3rd chosen
            QCOMPARE(generator.tokenCount(), int64_t(6));
            std::vector<float> logits(model.config().vocabSize);
            const int32_t one[] = {1};
            QVERIFY_THROWS_EXCEPTION(Error, generator.step(one, logits));
        }
    }

    void generationStopsAtEndOfSequenceOrMaxTokens() {
        QTemporaryDir dir;
        const auto path = test::writeSynthetic(dir, "m.gguf", SyntheticModelOptions{});
        const Model model = Model::open(path);
        Generator generator(model);
        const std::vector<int32_t> prompt{9, 10};
        GreedyChooser chooser;
        const Generation greedy = generator.generate(prompt, 5, chooser, {});
        QCOMPARE(greedy.reason, FinishReason::MaxTokens);
        QCOMPARE(greedy.tokens.size(), size_t(5));
        generator.reset();
        const Generation stopped = generator.generate(prompt, 5, chooser, {greedy.tokens[2]});
        QCOMPARE(stopped.reason, FinishReason::EndOfSequence);
        QCOMPARE(stopped.tokens,
                 std::vector<int32_t>(greedy.tokens.begin(), greedy.tokens.begin() + 3));
    }

    void contextSizeDefaultsAndLimits() {
        QTemporaryDir dir;
        SyntheticModelOptions options;
        options.context = 8192;
        const Model model = Model::open(test::writeSynthetic(dir, "m.gguf", options));
        QCOMPARE(Generator(model).contextSize(), int64_t(4096));
        QCOMPARE(Generator(model, {.contextSize = 8192}).contextSize(), int64_t(8192));
        QVERIFY_THROWS_EXCEPTION(Error, Generator(model, {.contextSize = 8193}));
    }
};

QTEST_APPLESS_MAIN(TestKvCache)
#include "test_kv_cache.moc"
