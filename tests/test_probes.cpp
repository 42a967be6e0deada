// Probes on a real (synthetic) model: events arrive in order with consistent counts, attention rows
// are probability distributions under the causal mask, probes do not change the numbers, only the
// attention that was asked for is delivered, hidden states come once per layer and step, attention
// recomputed afterwards equals what was captured live, and cancel / pause take effect between
// layers.

#include <QTemporaryDir>
#include <QTest>

#include <chrono>
#include <thread>

#include "attention_recompute.h"
#include "core/error.h"
#include "generator.h"
#include "support/test_models.h"

using namespace inferlens;

namespace {

constexpr int64_t kLayers = 3;

// Records every event as a line of text, and the attention blocks.
class RecordingProbe : public Probe {
  public:
    ProbeInterest wants;
    std::vector<std::string> events;
    std::vector<AttentionEvent> attention;
    std::vector<std::vector<float>> attentionWeights;
    std::vector<float> lastHidden;  // the latest hidden state delivered
    std::function<void(const LayerEvent&)> afterLayer;

    ProbeInterest interest() const override { return wants; }
    void onStepBegin(const StepEvent& e) override {
        events.push_back("begin " + std::to_string(e.index) + " " +
                         (e.phase == StepPhase::Prefill ? "prefill" : "decode") + " at " +
                         std::to_string(e.firstPosition) + " x" + std::to_string(e.tokenCount));
    }
    void onLayerEnd(const LayerEvent& e) override {
        events.push_back("layer " + std::to_string(e.step) + "." + std::to_string(e.layer));
        if (afterLayer)
            afterLayer(e);
    }
    void onAttention(const AttentionEvent& e) override {
        attention.push_back(e);
        attentionWeights.emplace_back(e.weights.begin(), e.weights.end());
    }
    void onHiddenState(const HiddenStateEvent& e) override {
        events.push_back("hidden " + std::to_string(e.step) + "." + std::to_string(e.layer) +
                         " at " + std::to_string(e.position) + " x" +
                         std::to_string(e.hidden.size()));
        lastHidden.assign(e.hidden.begin(), e.hidden.end());
    }
    void onKvCache(int64_t step, const KvCacheStats& stats) override {
        events.push_back("kv " + std::to_string(step) + " " + std::to_string(stats.tokens));
    }
    void onStepEnd(const StepEvent& e) override {
        events.push_back("end " + std::to_string(e.index));
    }
    void onFinished(const FinishedEvent& e) override {
        events.push_back(std::string("finished ") + finishReasonName(e.reason) + " " +
                         std::to_string(e.generatedTokens));
    }
};

ProbeInterest everything() {
    ProbeInterest interest;
    interest.steps = interest.layers = interest.kvCache = interest.sampling = interest.finished =
        true;
    return interest;
}

}  // namespace

class TestProbes : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        SyntheticModelOptions options;
        options.architecture = "chatglm";
        options.layers = kLayers;
        options.hidden = 64;
        options.heads = 4;
        options.kvHeads = 2;
        path_ = test::writeSynthetic(dir_, "m.gguf", options);
    }

    void eventsArriveInOrderWithConsistentCounts() {
        const Model model = Model::open(path_);
        RecordingProbe probe;
        probe.wants = everything();
        ProbeSet probes;
        probes.add(&probe);
        Generator generator(model, {}, &probes);
        GreedyChooser greedy;
        const std::vector<int32_t> prompt{5, 6, 7, 8};
        const Generation result = generator.generate(prompt, 2, greedy, {});
        QCOMPARE(result.tokens.size(), size_t(2));

        std::vector<std::string> expected;
        for (int64_t step = 0; step < 2; ++step) {  // the prefill and one decode step
            const std::string s = std::to_string(step);
            expected.push_back("begin " + s + (step == 0 ? " prefill at 0 x4" : " decode at 4 x1"));
            for (int64_t layer = 0; layer < kLayers; ++layer)
                expected.push_back("layer " + s + "." + std::to_string(layer));
            expected.push_back("kv " + s + (step == 0 ? " 4" : " 5"));
            expected.push_back("end " + s);
        }
        expected.push_back("finished max_tokens 2");
        QCOMPARE(probe.events, expected);
    }

    void attentionRowsAreCausalDistributions() {
        const Model model = Model::open(path_);
        RecordingProbe probe;
        probe.wants.attention = [](int64_t layer, int64_t head) { return layer == 1 && head != 2; };
        ProbeSet probes;
        probes.add(&probe);
        Generator generator(model, {}, &probes);
        GreedyChooser greedy;
        const std::vector<int32_t> prompt{5, 6, 7, 8, 9};
        generator.generate(prompt, 3, greedy, {});

        // Steps 0 (prefill of 5) to 2 (decode): heads 0, 1 and 3 of layer 1 only.
        QCOMPARE(probe.attention.size(), size_t(3 * 3));
        for (size_t i = 0; i < probe.attention.size(); ++i) {
            const AttentionEvent& e = probe.attention[i];
            const std::vector<float>& w = probe.attentionWeights[i];
            QCOMPARE(e.layer, int64_t(1));
            QVERIFY(e.head != 2);
            QCOMPARE(e.queryCount, e.step == 0 ? int64_t(5) : int64_t(1));
            QCOMPARE(e.keyCount, e.firstQuery + e.queryCount);
            QCOMPARE(int64_t(w.size()), e.queryCount * e.keyCount);
            for (int64_t row = 0; row < e.queryCount; ++row) {
                double sum = 0;
                for (int64_t key = 0; key < e.keyCount; ++key) {
                    const float weight = w[size_t(row * e.keyCount + key)];
                    if (key > e.firstQuery + row)
                        QCOMPARE(weight, 0.0f);  // the causal mask
                    else
                        QVERIFY(weight > 0.0f);
                    sum += weight;
                }
                QVERIFY(std::abs(sum - 1.0) < 1e-5);
            }
        }
        // The first query of the prefill sees only itself.
        QCOMPARE(probe.attentionWeights[0][0], 1.0f);
    }

    void recomputedAttentionEqualsLiveCapture() {
        const Model model = Model::open(path_);
        const auto layerOne = [](int64_t layer, int64_t) { return layer == 1; };
        RecordingProbe live;
        live.wants.attention = layerOne;
        ProbeSet liveProbes;
        liveProbes.add(&live);
        Generator generator(model, {}, &liveProbes);
        GreedyChooser greedy;
        const std::vector<int32_t> prompt{5, 6, 7, 8, 9, 10, 11};
        generator.generate(prompt, 4, greedy, {});  // the prefill and 3 decode steps
        const std::vector<int32_t> tokens = generator.history();
        QCOMPARE(tokens.size(), size_t(10));

        // A budget of 3 rows of 4 heads over 10 keys forces chunks of 3, 3, 3 and 1 rows.
        AttentionRecomputeOptions options;
        options.layer = 1;
        options.budgetBytes = 3 * 4 * 10 * 4;
        QCOMPARE(attentionChunkRows(4, 10, options.budgetBytes), int64_t(3));
        RecordingProbe again;
        again.wants.attention = layerOne;
        ProbeSet againProbes;
        againProbes.add(&again);
        QVERIFY(recomputeAttention(model, tokens, againProbes, options));
        QCOMPARE(again.attention.size(), size_t(4 * 4));  // 4 chunks × 4 heads

        // Every (position, head) row of the live capture is found, equal, in the recomputation.
        const auto rowOf = [](const RecordingProbe& probe, int64_t position, int64_t head) {
            for (size_t i = 0; i < probe.attention.size(); ++i) {
                const AttentionEvent& e = probe.attention[i];
                if (e.head == head && position >= e.firstQuery &&
                    position < e.firstQuery + e.queryCount) {
                    const auto begin =
                        probe.attentionWeights[i].begin() + (position - e.firstQuery) * e.keyCount;
                    return std::vector<float>(begin, begin + position + 1);
                }
            }
            return std::vector<float>();
        };
        for (int64_t head = 0; head < 4; ++head)
            for (int64_t position = 0; position < 10; ++position) {
                const std::vector<float> expected = rowOf(live, position, head);
                const std::vector<float> actual = rowOf(again, position, head);
                QCOMPARE(actual.size(), size_t(position + 1));
                QCOMPARE(expected.size(), actual.size());
                for (size_t key = 0; key < actual.size(); ++key)
                    QVERIFY2(std::abs(expected[key] - actual[key]) < 1e-6f,
                             qPrintable(QString("head %1 position %2 key %3: %4 vs %5")
                                            .arg(head)
                                            .arg(position)
                                            .arg(key)
                                            .arg(expected[key])
                                            .arg(actual[key])));
            }
        options.layer = kLayers;
        QVERIFY_THROWS_EXCEPTION(Error, recomputeAttention(model, tokens, againProbes, options));
    }

    void hiddenStatesArriveOncePerLayerPerStep() {
        const Model model = Model::open(path_);
        RecordingProbe probe;
        probe.wants.hiddenStates = true;
        ProbeSet probes;
        probes.add(&probe);
        Generator generator(model, {}, &probes);
        std::vector<float> logits(320);
        const std::vector<int32_t> prompt{5, 6, 7, 8};
        std::vector<std::string> expected;
        for (int64_t step = 0; step < 3; ++step) {  // the prefill of 4, then two decode steps
            const std::vector<int32_t> tokens = step == 0 ? prompt : std::vector<int32_t>{9};
            QVERIFY(generator.step(tokens, logits));
            for (int64_t layer = 0; layer < kLayers; ++layer)
                expected.push_back("hidden " + std::to_string(step) + "." + std::to_string(layer) +
                                   " at " + std::to_string(3 + step) + " x64");
            // The last layer's state is the last token's: the LM head turns it into the logits.
            ForwardScratch scratch(model.config());
            std::vector<float> fromHidden(320);
            model.computeLogits(probe.lastHidden, fromHidden, scratch);
            QCOMPARE(fromHidden, logits);
        }
        QCOMPARE(probe.events, expected);
    }

    void probesDoNotChangeTheNumbers() {
        const Model model = Model::open(path_);
        const std::vector<int32_t> ids{3, 50, 51, 52, 200, 7};
        std::vector<float> plain(ids.size() * 320), watched(ids.size() * 320);
        Generator(model).step(ids, plain);
        RecordingProbe probe;
        probe.wants = everything();
        probe.wants.attention = [](int64_t, int64_t) { return true; };
        ProbeSet probes;
        probes.add(&probe);
        Generator(model, {}, &probes).step(ids, watched);
        QCOMPARE(watched, plain);
        QCOMPARE(probe.attention.size(), size_t(kLayers * 4));
    }

    void cancellingStopsWithinOneLayer() {
        const Model model = Model::open(path_);
        GenerationControl control;
        RecordingProbe probe;
        probe.wants = everything();
        probe.afterLayer = [&](const LayerEvent& e) {
            if (e.step == 2 && e.layer == 0)
                control.cancel();
        };
        ProbeSet probes;
        probes.add(&probe);
        Generator generator(model, {}, &probes, &control);
        GreedyChooser greedy;
        const std::vector<int32_t> prompt{5, 6, 7};
        const Generation result = generator.generate(prompt, 10, greedy, {});
        QCOMPARE(result.reason, FinishReason::Cancelled);
        QCOMPARE(probe.events.back(), std::string("finished cancelled 2"));
        QCOMPARE(probe.events[probe.events.size() - 2], std::string("layer 2.0"));
        // The cancelled step left nothing behind: the prompt and the first new token remain.
        QCOMPARE(generator.tokenCount(), int64_t(4));
        QCOMPARE(generator.cachedTokens(), int64_t(4));
    }

    void pauseHoldsBetweenLayersUntilResumed() {
        const Model model = Model::open(path_);
        GenerationControl control;
        std::atomic<int> layersRun{0};
        RecordingProbe probe;
        probe.wants.layers = true;
        probe.afterLayer = [&](const LayerEvent& e) {
            if (++layersRun == 2)
                control.pause();
            (void)e;
        };
        ProbeSet probes;
        probes.add(&probe);
        Generator generator(model, {}, &probes, &control);
        GreedyChooser greedy;
        Generation result;
        std::thread worker([&] {
            const std::vector<int32_t> prompt{5, 6};
            result = generator.generate(prompt, 1, greedy, {});
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        QCOMPARE(layersRun.load(), 2);  // held at the checkpoint before layer 2
        control.resume();
        worker.join();
        QCOMPARE(result.reason, FinishReason::MaxTokens);
        QCOMPARE(layersRun.load(), int(kLayers));
    }

    void stepsRunOneLayerOrOneTokenWhilePaused() {
        const Model model = Model::open(path_);
        GenerationControl control;
        std::atomic<int> layersRun{0};
        std::atomic<int> tokensChosen{0};
        RecordingProbe probe;
        probe.wants.layers = true;
        probe.afterLayer = [&](const LayerEvent&) { ++layersRun; };
        ProbeSet probes;
        probes.add(&probe);
        Generator generator(model, {}, &probes, &control);
        struct CountingChooser final : TokenChooser {
            std::atomic<int>* count;
            int32_t choose(std::span<const float> logits, std::span<const int32_t>, bool) override {
                ++*count;
                return argmax(logits);
            }
        } chooser;
        chooser.count = &tokensChosen;
        control.pause();
        Generation result;
        std::thread worker([&] {
            const std::vector<int32_t> prompt{5, 6};
            result = generator.generate(prompt, 3, chooser, {});
        });
        const auto settle = [] { std::this_thread::sleep_for(std::chrono::milliseconds(150)); };
        settle();
        QCOMPARE(layersRun.load(), 0);
        control.stepLayer();
        settle();
        QCOMPARE(layersRun.load(), 1);
        control.stepLayer();
        settle();
        QCOMPARE(layersRun.load(), 2);
        control.stepToken();  // the rest of the prefill, then the first token
        settle();
        QCOMPARE(tokensChosen.load(), 1);
        QCOMPARE(layersRun.load(), int(kLayers));
        control.stepToken();  // one decode step
        settle();
        QCOMPARE(tokensChosen.load(), 2);
        QCOMPARE(layersRun.load(), 2 * int(kLayers));
        control.resume();
        worker.join();
        QCOMPARE(result.tokens.size(), size_t(3));
    }

  private:
    QTemporaryDir dir_;
    std::string path_;
};

QTEST_APPLESS_MAIN(TestProbes)
#include "test_probes.moc"
