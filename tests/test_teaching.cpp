// The teaching figures: step costs (shapes, FLOPs and bytes) for ChatGLM2-6B and a LLaMA
// configuration, the logit lens against the generator's logits and an independent
// double-precision reference, and the KV cache on/off experiment.

#include <QTemporaryDir>
#include <QTest>

#include <cmath>

#include "core/error.h"
#include "generator.h"
#include "models/shape_presets.h"
#include "reference/reference_forward.h"
#include "support/test_models.h"
#include "teaching/kv_cache_experiment.h"
#include "teaching/logit_lens.h"
#include "teaching/step_costs.h"

using namespace inferlens;
using Shape = std::vector<int64_t>;

namespace {

constexpr int64_t kVocab = 320;  // the synthetic models' default
constexpr int64_t kLensLayers = 3;

// LLaMA-7B: full multi-head attention, no bias.
ModelConfig llama7b() {
    ModelConfig c;
    c.architecture = "llama";
    c.layerCount = 32;
    c.hiddenSize = 4096;
    c.headCount = 32;
    c.kvHeadCount = 32;
    c.headDim = 128;
    c.ffnSize = 11008;
    c.vocabSize = 32000;
    c.contextLength = 4096;
    c.ropeDims = 128;
    return c;
}

// The softmax of a row of logits, in double: the tests' own, independent of the lens's.
template <typename Value>
std::vector<double> softmax(const std::vector<Value>& logits) {
    double largest = -INFINITY;
    for (const Value value : logits)
        largest = std::max(largest, double(value));
    std::vector<double> probabilities;
    double sum = 0;
    for (const Value value : logits)
        sum += probabilities.emplace_back(std::exp(double(value) - largest));
    for (double& p : probabilities)
        p /= sum;
    return probabilities;
}

// A lens row over the whole vocabulary (topK = vocab) as a distribution indexed by id.
std::vector<double> byId(const LensRow& row) {
    std::vector<double> distribution(row.ids.size());
    for (size_t i = 0; i < row.ids.size(); ++i)
        distribution[size_t(row.ids[i])] = row.probabilities[i];
    return distribution;
}

double maxAbsDifference(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size())
        return INFINITY;
    double largest = 0;
    for (size_t i = 0; i < a.size(); ++i)
        largest = std::max(largest, std::abs(a[i] - b[i]));
    return largest;
}

// Keeps the last layer's hidden state of every step, for lensDistribution.
class LastLayerState final : public Probe {
  public:
    std::vector<std::vector<float>> states;  // per step

    ProbeInterest interest() const override {
        ProbeInterest interest;
        interest.hiddenStates = true;
        return interest;
    }
    void onHiddenState(const HiddenStateEvent& event) override {
        if (event.layer == kLensLayers - 1)
            states.emplace_back(event.hidden.begin(), event.hidden.end());
    }
};

}  // namespace

class TestTeaching : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        SyntheticModelOptions options;
        options.architecture = "chatglm";
        glmPath_ = test::writeSynthetic(dir_, "glm.gguf", options);
    }

    void chatGlm2PrefillShapesAndFlops() {
        const StepCosts costs = stepCosts(shapePreset("chatglm2-6b"), 17, 0, 2);
        QCOMPARE(costs.stages.size(), size_t(14));
        for (size_t i = 0; i < costs.stages.size(); ++i)
            QCOMPARE(int(costs.stages[i].stage), int(i));  // one per Stage, in order
        QCOMPARE(costs.stage(Stage::Embedding).shape, (Shape{17, 1, 4096}));
        QCOMPARE(costs.stage(Stage::AttentionNorm).tensor, std::string("hidden states"));
        QCOMPARE(costs.stage(Stage::QkvProjection).tensor, std::string("query"));
        QCOMPARE(costs.stage(Stage::QkvProjection).shape, (Shape{17, 1, 32, 128}));
        QCOMPARE(costs.stage(Stage::Rope).tensor, std::string("key/value"));
        QCOMPARE(costs.stage(Stage::Rope).shape, (Shape{17, 1, 2, 128}));
        QCOMPARE(costs.stage(Stage::ScoresSoftmax).shape, (Shape{1, 32, 17, 17}));
        QCOMPARE(costs.stage(Stage::SwiGluMlp).shape, (Shape{17, 1, 13696}));
        QCOMPARE(costs.stage(Stage::LmHead).tensor, std::string("logits"));
        QCOMPARE(costs.stage(Stage::LmHead).shape, (Shape{1, 1, 65024}));

        // Q + 2·KV = 4096 + 2·256 outputs, each a 4096-long multiply-add, plus the bias.
        QCOMPARE(costs.stage(Stage::QkvProjection).flops, 2.0 * 17 * 4096 * 4608 + 17.0 * 4608);
        QCOMPARE(costs.stage(Stage::Embedding).flops, 0.0);
        QCOMPARE(costs.stage(Stage::LmHead).flops, 2.0 * 65024 * 4096);
        // Causal: the 17 query rows see 1 + 2 + ... + 17 = 153 keys in all.
        QCOMPARE(costs.stage(Stage::WeightedSum).flops, 2.0 * 153 * 32 * 128);

        double perLayer = 0, once = 0;
        for (const StageCost& stage : costs.stages)
            (stageRepeatsPerLayer(stage.stage) ? perLayer : once) += stage.flops;
        QCOMPARE(costs.flopsPerLayer, perLayer);
        QCOMPARE(costs.flops, 28 * perLayer + once);
    }

    void decodeIsMemoryBoundAndPrefillComputeBound() {
        const StepCosts decode = stepCosts(shapePreset("chatglm2-6b"), 1, 17, 2);
        QCOMPARE(decode.stage(Stage::ScoresSoftmax).shape, (Shape{1, 32, 1, 18}));
        QCOMPARE(decode.stage(Stage::ScoresSoftmax).flops, 18.0 * 32 * (2 * 128 + 5));
        QVERIFY2(decode.intensity() < 2, qPrintable(QString::number(decode.intensity())));
        // A decode step reads every weight once: ChatGLM2-6B's 6,243,584,000 parameters, less the
        // embedding rows that are not looked up.
        double weightBytes = 0;
        for (const StageCost& stage : decode.stages)
            weightBytes += stage.weightBytes * (stageRepeatsPerLayer(stage.stage) ? 28 : 1);
        QCOMPARE(weightBytes, 2.0 * (6243584000.0 - 65023.0 * 4096));

        const StepCosts prefill = stepCosts(shapePreset("chatglm2-6b"), 512, 0, 2);
        QVERIFY2(prefill.intensity() > 100, qPrintable(QString::number(prefill.intensity())));
        QVERIFY_THROWS_EXCEPTION(Error, stepCosts(shapePreset("chatglm2-6b"), 0, 0, 2));
    }

    void llamaShapesAreBatchFirst() {
        const StepCosts costs = stepCosts(llama7b(), 17, 0, 2);
        QCOMPARE(costs.stage(Stage::Embedding).shape, (Shape{1, 17, 4096}));
        QCOMPARE(costs.stage(Stage::QkvProjection).shape, (Shape{1, 17, 32, 128}));
        QCOMPARE(costs.stage(Stage::Rope).shape, (Shape{1, 17, 32, 128}));
        QCOMPARE(costs.stage(Stage::SwiGluMlp).shape, (Shape{1, 17, 11008}));
        QCOMPARE(costs.stage(Stage::LmHead).shape, (Shape{1, 1, 32000}));
        QCOMPARE(costs.stage(Stage::QkvProjection).flops, 2.0 * 17 * 4096 * 3 * 4096);  // no bias
    }

    void kvBytesPerTokenAndNames() {
        QCOMPARE(kvBytesPerToken(shapePreset("chatglm2-6b"), 2), int64_t(28 * 1024));
        QCOMPARE(kvBytesPerToken(shapePreset("chatglm2-6b"), 2, true), int64_t(448 * 1024));
        QCOMPARE(kvBytesPerToken(llama7b(), 2), int64_t(512 * 1024));
        QCOMPARE(formatShape({17, 1, 4096}), std::string("[17, 1, 4096]"));
        QCOMPARE(formatShape({}), std::string("[]"));
        QCOMPARE(std::string(stageName(Stage::SwiGluMlp)), std::string("swiglu_mlp"));
        QCOMPARE(std::string(stageName(Stage::LmHead)), std::string("lm_head"));
        QVERIFY(stageRepeatsPerLayer(Stage::AttentionNorm));
        QVERIFY(stageRepeatsPerLayer(Stage::ResidualMlp));
        QVERIFY(!stageRepeatsPerLayer(Stage::Embedding));
        QVERIFY(!stageRepeatsPerLayer(Stage::FinalNorm));
    }

    void logitLensMatchesTheLogitsAndTheReference_data() {
        QTest::addColumn<QString>("architecture");
        QTest::newRow("chatglm") << "chatglm";
        QTest::newRow("llama") << "llama";
    }

    void logitLensMatchesTheLogitsAndTheReference() {
        QFETCH(QString, architecture);
        SyntheticModelOptions options;
        options.architecture = architecture.toStdString();
        options.layers = kLensLayers;
        options.format = ModelFormat::HuggingFace;  // what the reference reads
        const std::string path = test::writeSynthetic(dir_, options.architecture + "-hf", options);
        const Model model = Model::open(path);

        constexpr int kTopK = 5;
        std::vector<LensStep> top, full;
        // Rows arrive layer by layer; the complete ones are compared below.
        std::vector<size_t> rowsSeen;
        const auto complete = [&](std::vector<LensStep>& into) {
            return [&into, &rowsSeen](LensStep step) {
                rowsSeen.push_back(step.rows.size());
                if (step.rows.size() == size_t(kLensLayers))
                    into.push_back(std::move(step));
            };
        };
        LogitLens topLens(model, kTopK, complete(top));
        LogitLens fullLens(model, int(kVocab), complete(full));
        LastLayerState lastLayer;
        ProbeSet probes;
        probes.add(&topLens);
        probes.add(&fullLens);
        probes.add(&lastLayer);
        Generator generator(model, {}, &probes);

        std::vector<int32_t> ids = test::testIds(6, kVocab);
        std::vector<std::vector<float>> logits(2, std::vector<float>(kVocab));
        QVERIFY(generator.step(ids, logits[0]));  // the prefill
        const int32_t next[] = {int32_t(argmax(logits[0]))};
        QVERIFY(generator.step(next, logits[1]));  // one decode step
        QCOMPARE(full.size(), size_t(2));
        QCOMPARE(top.size(), size_t(2));
        // Both lenses, after every layer of both steps: 1, 1, 2, 2, ..., kLensLayers twice.
        QCOMPARE(rowsSeen.size(), size_t(2 * 2 * kLensLayers));
        for (size_t i = 0; i < rowsSeen.size(); ++i)
            QCOMPARE(rowsSeen[i], size_t((i / 2) % kLensLayers + 1));

        for (size_t s = 0; s < 2; ++s) {
            if (s == 1)
                ids.push_back(next[0]);
            QCOMPARE(full[s].step, int64_t(s));
            QCOMPARE(full[s].position, int64_t(ids.size()) - 1);
            QCOMPARE(full[s].rows.size(), size_t(kLensLayers));

            // The last layer's lens is the model's own prediction.
            const std::vector<double> expected = softmax(logits[s]);
            const double lastDifference = maxAbsDifference(byId(full[s].rows.back()), expected);
            QVERIFY2(lastDifference < 1e-5, qPrintable(QString::number(lastDifference)));
            std::vector<double> fromState;
            for (const float p : lensDistribution(model, lastLayer.states[s]))
                fromState.push_back(p);
            QVERIFY(maxAbsDifference(fromState, expected) < 1e-5);

            // Every layer's lens against the reference's, computed in double from the HF files.
            const auto reference = reference::referenceLayerLogits(path, ids);
            QCOMPARE(reference.size(), size_t(kLensLayers));
            for (int64_t layer = 0; layer < kLensLayers; ++layer) {
                const LensRow& row = full[s].rows[size_t(layer)];
                QCOMPARE(row.layer, layer);
                QVERIFY(row.residualNorm > 0);
                const double difference =
                    maxAbsDifference(byId(row), softmax(reference[size_t(layer)]));
                QVERIFY2(difference < 1e-4,
                         qPrintable(QString("layer %1: %2").arg(layer).arg(difference)));

                // The top-k rows: k entries, most probable first, the same as the full ranking.
                const LensRow& topRow = top[s].rows[size_t(layer)];
                QCOMPARE(topRow.ids.size(), size_t(kTopK));
                QCOMPARE(topRow.probabilities.size(), size_t(kTopK));
                for (int k = 0; k < kTopK; ++k) {
                    QCOMPARE(topRow.ids[size_t(k)], row.ids[size_t(k)]);
                    if (k > 0)
                        QVERIFY(topRow.probabilities[size_t(k - 1)] >=
                                topRow.probabilities[size_t(k)]);
                }
                QCOMPARE(topRow.residualNorm, row.residualNorm);
            }
        }
    }

    void logitLensKeepsToTheSampleableIds() {
        // With the output layer's last rows unsampleable (padding, as in ChatGLM), the lens's
        // distribution is the softmax over the sampleable ids only, as the sampler's raw one is.
        SyntheticModelOptions options;
        options.architecture = "chatglm";
        options.layers = kLensLayers;
        const Model model = Model::open(test::writeSynthetic(dir_, "padded.gguf", options));
        const int64_t sampleable = kVocab - 20;
        std::vector<LensStep> steps;
        LogitLens lens(
            model, int(sampleable),
            [&](LensStep step) {
                if (step.rows.size() == size_t(kLensLayers))
                    steps.push_back(step);
            },
            sampleable);
        ProbeSet probes;
        probes.add(&lens);
        Generator generator(model, {}, &probes);
        std::vector<float> logits(kVocab);
        QVERIFY(generator.step(test::testIds(5, kVocab), logits));
        QCOMPARE(steps.size(), size_t(1));
        const LensRow& last = steps[0].rows.back();
        QCOMPARE(int64_t(last.ids.size()), sampleable);
        logits.resize(size_t(sampleable));
        const std::vector<double> expected = softmax(logits);
        for (size_t i = 0; i < last.ids.size(); ++i) {
            QVERIFY(last.ids[i] < sampleable);
            QVERIFY(std::abs(last.probabilities[i] - expected[size_t(last.ids[i])]) < 1e-6);
        }
    }

    void kvExperimentGivesIdenticalTokensAndGrowingCosts() {
        const Model model = Model::open(glmPath_);
        const std::vector<int32_t> prompt = test::testIds(5, kVocab);
        KvExperimentOptions options;
        options.newTokens = 12;
        options.threads = 1;
        std::vector<std::pair<bool, int64_t>> progress;
        const KvExperimentOutcome outcome = runKvCacheExperiment(
            model, prompt, options, nullptr,
            [&](bool kvCache, int64_t done) { progress.emplace_back(kvCache, done); });
        QVERIFY(!outcome.cancelled);
        const KvExperimentResult& result = outcome.result;
        QCOMPARE(result.promptTokens, int64_t(5));
        QVERIFY(result.identical());
        QCOMPARE(progress.size(), size_t(24));
        QVERIFY(progress.front() == std::make_pair(true, int64_t(1)));
        QVERIFY(progress.back() == std::make_pair(false, int64_t(12)));

        for (const KvExperimentRun* run : {&result.withCache, &result.withoutCache}) {
            QCOMPARE(run->tokens.size(), size_t(12));
            QCOMPARE(run->secondsPerToken.size(), size_t(12));
            QCOMPARE(run->flopsPerToken.size(), size_t(12));
            QCOMPARE(run->secondsForFirst(12), run->totalSeconds());
        }
        QCOMPARE(result.withCache.tokens, result.withoutCache.tokens);
        QVERIFY(result.withCache.kvCache && !result.withoutCache.kvCache);

        // Token 0 is the prompt's prefill in both runs; then one token at its position, or the
        // whole sequence again.
        const ModelConfig& c = model.config();
        const auto& cached = result.withCache.flopsPerToken;
        const auto& rerun = result.withoutCache.flopsPerToken;
        QCOMPARE(rerun[0], cached[0]);
        QCOMPARE(cached[0], stepCosts(c, 5, 0, options.bytesPerWeight).flops);
        for (int64_t i = 1; i < 12; ++i) {
            QCOMPARE(cached[size_t(i)], stepCosts(c, 1, 5 + i - 1, options.bytesPerWeight).flops);
            QCOMPARE(rerun[size_t(i)], stepCosts(c, 5 + i, 0, options.bytesPerWeight).flops);
            QVERIFY(rerun[size_t(i)] > rerun[size_t(i - 1)]);
        }

        QCOMPARE(result.flopRatioAt(1), 1.0);
        for (int64_t n = 2; n <= 12; ++n) {
            QVERIFY(result.flopRatioAt(n) > result.flopRatioAt(n - 1));
            QVERIFY(std::isfinite(result.speedupAt(n)) && result.speedupAt(n) > 0);
        }
        // Without the cache the 12 steps run 5 + 6 + ... + 16 = 126 tokens, with it 16.
        QVERIFY2(result.speedupAt(12) > 1, qPrintable(QString::number(result.speedupAt(12))));
        QVERIFY_THROWS_EXCEPTION(Error, result.withCache.secondsForFirst(13));
    }

    void kvExperimentCancelsAndRefusesBadRequests() {
        const Model model = Model::open(glmPath_);
        const std::vector<int32_t> prompt = test::testIds(5, kVocab);
        KvExperimentOptions options;
        options.newTokens = 12;
        options.threads = 1;
        GenerationControl control;
        const KvExperimentOutcome outcome =
            runKvCacheExperiment(model, prompt, options, &control, [&](bool, int64_t done) {
                if (done == 3)
                    control.cancel();
            });
        QVERIFY(outcome.cancelled);
        // Token 3's step was cancelled: three tokens, each with its time, and no second run.
        QCOMPARE(outcome.result.withCache.tokens.size(), size_t(3));
        QCOMPARE(outcome.result.withCache.secondsPerToken.size(), size_t(3));
        QVERIFY(outcome.result.withoutCache.tokens.empty());

        QVERIFY_THROWS_EXCEPTION(Error, runKvCacheExperiment(model, {}, options));
        options.newTokens = 256;  // the synthetic model's context is 256
        QVERIFY_THROWS_EXCEPTION(Error, runKvCacheExperiment(model, prompt, options));
    }

  private:
    QTemporaryDir dir_;
    std::string glmPath_;
};

QTEST_APPLESS_MAIN(TestTeaching)
#include "test_teaching.moc"
