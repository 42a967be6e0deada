#include "convert/synthetic_model.h"

#include <algorithm>
#include <cmath>

#include "convert/model_writer.h"
#include "core/error.h"
#include "models/rope_frequencies.h"
#include "tokenizer/synthetic_vocabulary.h"

namespace inferlens {
namespace {

uint64_t splitMix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint64_t hashName(const std::string& name) {
    uint64_t hash = 1469598103934665603ull;  // FNV-1a
    for (unsigned char c : name)
        hash = (hash ^ c) * 1099511628211ull;
    return hash;
}

// Values depend only on (seed, tensor name, index): the same model whatever the write order.
std::function<void(std::span<float>)> randomValues(uint64_t seed, const std::string& name,
                                                   float offset, float scale) {
    const uint64_t stream = splitMix64(seed ^ hashName(name));
    return [stream, offset, scale](std::span<float> out) {
        for (size_t i = 0; i < out.size(); ++i) {
            const double uniform = double(splitMix64(stream + i) >> 11) * 0x1.0p-53;  // [0, 1)
            out[i] = offset + scale * float(2.0 * uniform - 1.0);
        }
    };
}

// Scales that keep activations O(1) through the layers and make attention far from uniform, so
// that a wrong RoPE pairing or head grouping visibly changes the logits.
std::pair<float, float> initialisation(const std::string& name, const std::vector<int64_t>& shape) {
    if (name.ends_with("norm.weight"))
        return {1.0f, 0.2f};
    if (name.ends_with(".bias"))
        return {0.0f, 0.5f};
    if (name == "token_embd.weight")
        return {0.0f, 1.0f};
    const float fanIn = float(shape.back());
    const bool queryOrKey = name.find("attn_q") != std::string::npos ||
                            name.find("attn_k") != std::string::npos ||
                            name.find("attn_qkv") != std::string::npos;
    return {0.0f, (queryOrKey ? 3.0f : 1.7f) / std::sqrt(fanIn)};
}

// The features past the plain decoder that each architecture has, as its configFromGguf sets
// them, and the options' RoPE scaling and sliding window.
void setArchitectureFeatures(const SyntheticModelOptions& o, ModelConfig& c) {
    const bool gemma = o.architecture == "gemma3";
    if (o.architecture == "qwen2" || o.architecture == "qwen3" || gemma)
        c.ropePairing = RopePairing::RotateHalf;
    c.qkNorm = o.architecture == "qwen3" || gemma;
    if (gemma) {
        c.ffnActivation = FfnActivation::GeluTanh;
        c.embeddingScale = std::sqrt(double(c.hiddenSize));
        c.postNorms = true;
        c.attentionScale = 1.0 / std::sqrt(double(c.headDim));
        c.slidingWindow = o.slidingWindow;
        if (o.slidingPattern < 0)
            throw Error("--sliding-pattern must not be negative (0: every layer slides)");
        if (o.slidingWindow > 0)
            c.slidingLayers = slidingLayersFromPattern(c.layerCount, o.slidingPattern);
        c.localRopeBase = o.localRopeBase;
        c.finalLogitSoftcap = o.finalLogitSoftcap;
    }
    if (o.ropeScaling == "linear") {
        c.ropeLinearFactor = o.ropeFactor;
    } else if (o.ropeScaling == "llama3" && o.architecture == "llama") {
        c.hasLlama3Scaling = true;
        c.llama3Scaling = {o.ropeFactor, 1.0, 4.0, o.ropeOriginalContext};
        c.ropeFrequencyDivisors = llama3RopeDivisors(c.llama3Scaling, c.ropeBase, c.ropeDims);
    } else if (o.ropeScaling != "none") {
        throw Error(
            "--rope-scaling " + o.ropeScaling + " is not available for " + o.architecture +
            " (none, linear; llama3 for llama only, the one architecture whose llama.cpp loader "
            "reads rope_freqs.weight)");
    }
}

}  // namespace

void writeSyntheticModel(const SyntheticModelOptions& o, const std::string& path) {
    ModelToWrite model;
    model.architecture = &architectureByName(o.architecture, "--arch");
    model.name = "synthetic " + o.architecture;
    ModelConfig& c = model.config;
    c.architecture = o.architecture;
    c.layerCount = o.layers;
    c.hiddenSize = o.hidden;
    c.headCount = o.heads;
    c.kvHeadCount = o.kvHeads;
    c.headDim = o.headDim != 0 ? o.headDim : (o.heads > 0 ? o.hidden / o.heads : 0);
    c.ffnSize = o.ffn;
    c.vocabSize = o.vocab;
    c.contextLength = o.context;
    c.ropeDims = o.architecture == "chatglm" ? c.headDim / 2 : c.headDim;
    c.ropeBase = o.ropeBase;
    c.rmsNormEps = 1e-5;
    c.qkvBias = o.architecture == "chatglm" || o.architecture == "qwen2";
    if (o.tiedOutput && o.architecture == "chatglm")
        throw Error("--tied-embeddings: ChatGLM does not tie the output layer to the embedding");
    c.tiedOutput = o.tiedOutput;
    setArchitectureFeatures(o, c);
    validateConfig(c, "synthetic model");

    const auto specials = model.architecture->specialsAfterPieces();
    model.pieceCount = c.vocabSize - int64_t(specials.size());
    GgufVocabulary vocabulary;
    vocabulary.entries = syntheticVocabulary(model.pieceCount, specials);
    for (const auto& special : specials)
        vocabulary.entries.push_back({special, 0.0f, PieceType::Control});
    vocabulary.bosId = 1;
    vocabulary.eosId = 2;
    vocabulary.addBos = specials.empty();
    model.vocabulary = std::move(vocabulary);

    for (const TensorSpec& spec : model.architecture->tensorSpecs(c)) {
        if (!spec.derivedValues.empty()) {
            const std::vector<float> values = spec.derivedValues;
            model.weights.push_back(
                {spec.ggufName, spec.shape, DType::F32, [values](std::span<float> out) {
                     std::copy(values.begin(), values.end(), out.begin());
                 }});
            continue;
        }
        const auto [offset, scale] = initialisation(spec.ggufName, spec.shape);
        model.weights.push_back({spec.ggufName, spec.shape, o.dtype,
                                 randomValues(o.seed, spec.ggufName, offset, scale)});
    }
    writeModel(model, o.format, path);
}

}  // namespace inferlens
