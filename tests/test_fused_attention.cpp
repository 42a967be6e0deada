// The fused (online-softmax) attention kernel, and the reference one row by row, against a
// straightforward double-precision causal softmax(q·Kᵀ/√d)·V, for multi-head, grouped-query and
// multi-query layouts, head sizes that leave tails after the vector loops, lengths that end inside
// a key block and a query block, prefills from position 0 and from later positions, single decode
// rows, a padded K/V row stride, and scores large enough that a naive exp would overflow. The
// result must not depend on the number of threads. End to end, a model's logits with the fused
// kernel equal those of the reference path (whole prompts and decode steps, GLM and LLaMA), and a
// probe that watches one head gets the reference path's weights without changing a single logit.

#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <random>

#include "backend/cpu/fused_attention.h"
#include "backend/cpu/reference_attention.h"
#include "backend/cpu/thread_pool.h"
#include "generator.h"
#include "models/model.h"
#include "probe.h"
#include "support/test_models.h"
#include "teaching/attention_kernels.h"

using namespace inferlens;

namespace {

struct Case {
    const char* name;
    int64_t headCount, kvHeadCount, headDim;
    int64_t firstPosition, count;
    int64_t rowPadding = 0;         // floats after the K/V heads of each row
    float magnitude = 1;            // the queries' and keys' standard deviation
    int64_t sinks = 0, window = 0;  // a sliding window's mask (AttentionLayout)
};

std::vector<float> randomValues(size_t count, float scale, std::mt19937& generator) {
    std::normal_distribution<float> normal(0.0f, scale);
    std::vector<float> values(count);
    for (float& value : values)
        value = normal(generator);
    return values;
}

// Row i's heads attend to positions 0 .. firstPosition + i, each query head to its group's K/V;
// with a window, only to the sinks and the last `window` of those.
std::vector<double> referenceAttention(const AttentionLayout& l, const std::vector<float>& queries,
                                       int64_t firstPosition, int64_t count,
                                       const std::vector<float>& keys,
                                       const std::vector<float>& values) {
    const int64_t queryWidth = l.headCount * l.headDim;
    const int64_t groupSize = l.headCount / l.kvHeadCount;
    std::vector<double> out(size_t(count * queryWidth));
    for (int64_t i = 0; i < count; ++i)
        for (int64_t h = 0; h < l.headCount; ++h) {
            const float* q = queries.data() + i * queryWidth + h * l.headDim;
            const int64_t kvOffset = (h / groupSize) * l.headDim;
            const int64_t visible = firstPosition + i + 1;
            std::vector<double> scores(static_cast<size_t>(visible));
            double largest = -INFINITY;
            for (int64_t p = 0; p < visible; ++p) {
                // Outside the window: after the sinks and at least `window` before the row.
                if (l.window > 0 && p >= l.sinks && p <= firstPosition + i - l.window) {
                    scores[size_t(p)] = -INFINITY;
                    continue;
                }
                double dot = 0;
                for (int64_t d = 0; d < l.headDim; ++d)
                    dot += double(q[d]) * keys[size_t(p * l.kvRowWidth + kvOffset + d)];
                scores[size_t(p)] = dot / std::sqrt(double(l.headDim));
                largest = std::max(largest, scores[size_t(p)]);
            }
            double total = 0;
            for (double& s : scores)
                total += (s = std::exp(s - largest));
            for (int64_t d = 0; d < l.headDim; ++d) {
                double sum = 0;
                for (int64_t p = 0; p < visible; ++p)
                    sum += scores[size_t(p)] * values[size_t(p * l.kvRowWidth + kvOffset + d)];
                out[size_t(i * queryWidth + h * l.headDim + d)] = sum / total;
            }
        }
    return out;
}

// Watches head 0 of layer `layer` (as the attention panel would) and keeps its weights.
class OneHeadProbe : public Probe {
  public:
    explicit OneHeadProbe(int64_t layer) : layer_(layer) {}
    ProbeInterest interest() const override {
        ProbeInterest interest;
        interest.attention = [layer = layer_](int64_t l, int64_t h) {
            return l == layer && h == 0;
        };
        return interest;
    }
    void onAttention(const AttentionEvent& event) override {
        weights.emplace_back(event.weights.begin(), event.weights.end());
    }
    std::vector<std::vector<float>> weights;

  private:
    int64_t layer_;
};

// Logits of a prompt run as one prefill step, then of decode steps one token at a time.
std::vector<float> logitsWith(const Model& model, AttentionKernel kernel,
                              const std::vector<int32_t>& prompt,
                              const std::vector<int32_t>& decoded, ProbeSet* probes) {
    GeneratorOptions options;
    options.attention = kernel;
    options.threads = 2;
    Generator generator(model, options, probes);
    const auto vocab = size_t(model.config().vocabSize);
    std::vector<float> logits((prompt.size() + decoded.size()) * vocab);
    generator.step(prompt, std::span(logits).first(prompt.size() * vocab));
    for (size_t i = 0; i < decoded.size(); ++i)
        generator.step(std::span(decoded).subspan(i, 1),
                       std::span(logits).subspan((prompt.size() + i) * vocab, vocab));
    return logits;
}

}  // namespace

class TestFusedAttention : public QObject {
    Q_OBJECT

  private slots:
    void agreesWithDoublePrecisionForEveryGrouping() {
        const Case cases[] = {
            {"MHA prefill from 0", 4, 4, 64, 0, 67},
            {"GQA prefill from 0, odd head size", 8, 2, 40, 0, 131},
            {"MQA prefill from 0, odd head size", 6, 1, 24, 0, 33},
            {"MHA prefill after 70", 3, 3, 64, 70, 19},
            {"GQA prefill after 129, padded rows", 8, 2, 32, 129, 17, 8},
            {"MQA decode at 200", 6, 1, 64, 200, 1},
            {"GQA decode at 0", 4, 2, 72, 0, 1},
            {"MHA decode at 63", 2, 2, 20, 63, 1},
            {"GQA decode at 64", 8, 4, 128, 64, 1},
            {"GQA large scores (online rescaling)", 4, 2, 64, 40, 90, 0, 6.0f},
            {"MQA one row", 1, 1, 7, 0, 1},
            {"GQA prefill after 100, window 40 after 4 sinks", 8, 2, 40, 100, 70, 0, 1, 4, 40},
            {"MHA prefill, window 70 after 1 sink across key blocks", 4, 4, 64, 130, 17, 0, 1, 1,
             70},
            {"MQA decode at 200, window 64, no sinks", 6, 1, 64, 200, 1, 0, 1, 0, 64},
        };
        ThreadPool one(1), three(3);
        for (const Case& c : cases) {
            std::mt19937 generator(uint32_t(c.headCount * 1000 + c.count + c.firstPosition));
            AttentionLayout layout;
            layout.headDim = c.headDim;
            layout.headCount = c.headCount;
            layout.kvHeadCount = c.kvHeadCount;
            layout.kvRowWidth = c.kvHeadCount * c.headDim + c.rowPadding;
            layout.scale = float(1.0 / std::sqrt(double(c.headDim)));
            layout.sinks = c.sinks;
            layout.window = c.window;
            const int64_t positions = c.firstPosition + c.count;
            const auto queries =
                randomValues(size_t(c.count * c.headCount * c.headDim), c.magnitude, generator);
            const auto keys =
                randomValues(size_t(positions * layout.kvRowWidth), c.magnitude, generator);
            const auto values =
                randomValues(size_t(positions * layout.kvRowWidth), 1.0f, generator);
            const auto expected =
                referenceAttention(layout, queries, c.firstPosition, c.count, keys, values);

            std::vector<float> alone(expected.size(), NAN), shared(expected.size(), NAN);
            fusedAttention(layout, queries, c.firstPosition, c.count, keys.data(), values.data(),
                           alone, &one);
            fusedAttention(layout, queries, c.firstPosition, c.count, keys.data(), values.data(),
                           shared, &three);
            const double error = test::normalisedError(alone, expected);
            QVERIFY2(error < 2e-6, qPrintable(QString("%1: normalised error %2 against double "
                                                      "precision")
                                                  .arg(c.name)
                                                  .arg(error)));
            QVERIFY2(alone == shared, c.name);

            // The reference kernel, row by row, against the same double-precision figures.
            std::vector<float> rowByRow(expected.size(), NAN), weights;
            const int64_t queryWidth = c.headCount * c.headDim;
            for (int64_t i = 0; i < c.count; ++i) {
                const int64_t position = c.firstPosition + i;
                weights.assign(size_t(c.headCount * (position + 1)), NAN);
                attentionProbabilities(
                    layout, std::span(queries).subspan(size_t(i * queryWidth), size_t(queryWidth)),
                    position, keys.data(), weights, &three);
                weightedValues(
                    layout, weights, position + 1, values.data(),
                    std::span(rowByRow).subspan(size_t(i * queryWidth), size_t(queryWidth)),
                    &three);
            }
            const double referenceError = test::normalisedError(rowByRow, expected);
            QVERIFY2(referenceError < 2e-6,
                     qPrintable(QString("%1: reference kernel's normalised error %2")
                                    .arg(c.name)
                                    .arg(referenceError)));
        }
    }

    void theTeachingTimingRunsBothKernelsAndStopsWhenCancelled() {
        AttentionLayout layout;
        layout.headDim = 32;
        layout.headCount = 4;
        layout.kvHeadCount = 2;
        layout.kvRowWidth = 64;
        layout.scale = float(1.0 / std::sqrt(32.0));
        ThreadPool pool(2);
        const int64_t lengths[] = {40, 130};
        std::vector<std::pair<int, int>> reports;
        const auto progress = [&](int done, int total) { reports.emplace_back(done, total); };
        const auto timings = timeAttentionKernels(layout, lengths, &pool, nullptr, progress);
        QCOMPARE(timings.size(), size_t(2));
        for (size_t i = 0; i < timings.size(); ++i) {
            QCOMPARE(timings[i].tokens, lengths[i]);
            QVERIFY(timings[i].fusedSeconds > 0 && timings[i].referenceSeconds > 0);
            QVERIFY2(timings[i].difference < 1e-5,
                     qPrintable(QString::number(timings[i].difference)));
        }
        QCOMPARE(reports, (std::vector<std::pair<int, int>>{{1, 4}, {2, 4}, {3, 4}, {4, 4}}));

        // Cancelled: the fused run of the first length ends, the reference stops at its first row.
        GenerationControl control;
        control.cancel();
        reports.clear();
        QVERIFY(timeAttentionKernels(layout, lengths, &pool, &control, progress).empty());
        QCOMPARE(reports, (std::vector<std::pair<int, int>>{{1, 4}}));
    }

    void modelLogitsEqualTheReferencePath() {
        QTemporaryDir dir;
        struct Shape {
            const char* architecture;
            int64_t heads, kvHeads;
        };
        // ChatGLM's multi-query groups, LLaMA's grouped and plain multi-head attention.
        for (const Shape shape :
             {Shape{"chatglm", 8, 2}, Shape{"llama", 4, 1}, Shape{"llama", 4, 4}}) {
            SyntheticModelOptions options;
            options.architecture = shape.architecture;
            options.heads = shape.heads;
            options.kvHeads = shape.kvHeads;
            options.hidden = 128;
            options.layers = 3;
            const Model model = Model::open(test::writeSynthetic(
                dir, std::string(shape.architecture) + std::to_string(shape.kvHeads) + ".gguf",
                options));
            const auto prompt = test::testIds(83, options.vocab, 3);
            const auto decoded = test::testIds(5, options.vocab, 4);
            const auto reference =
                logitsWith(model, AttentionKernel::Reference, prompt, decoded, nullptr);
            const auto fused = logitsWith(model, AttentionKernel::Fused, prompt, decoded, nullptr);
            const double error = test::normalisedError(fused, reference);
            QVERIFY2(error < 1e-5, qPrintable(QString("%1 with %2 KV heads: normalised error %3")
                                                  .arg(shape.architecture)
                                                  .arg(shape.kvHeads)
                                                  .arg(error)));

            // Watching a head computes its weights beside the fused kernel: the same weights as
            // the reference path, and not one logit changes. (Layer 0, whose inputs are the same
            // on both paths; later layers' inputs differ by the kernels' rounding.)
            OneHeadProbe fusedProbe(0), referenceProbe(0);
            ProbeSet fusedProbes, referenceProbes;
            fusedProbes.add(&fusedProbe);
            referenceProbes.add(&referenceProbe);
            QCOMPARE(logitsWith(model, AttentionKernel::Fused, prompt, decoded, &fusedProbes),
                     fused);
            QCOMPARE(
                logitsWith(model, AttentionKernel::Reference, prompt, decoded, &referenceProbes),
                reference);
            QCOMPARE(fusedProbe.weights.size(), size_t(1 + decoded.size()));
            QCOMPARE(fusedProbe.weights, referenceProbe.weights);
        }
    }
};

QTEST_GUILESS_MAIN(TestFusedAttention)
#include "test_fused_attention.moc"
