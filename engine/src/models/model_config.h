#pragma once
// The hyper-parameters of a decoder-only transformer as InferLens runs it, whatever file they came
// from. Every supported architecture (ChatGLM2/3, LLaMA 1-3, Qwen2, Qwen3, Gemma 3) is described
// by these fields; the ones past `tiedOutput` default to the plain pre-norm SwiGLU decoder.

#include <cstdint>
#include <string>
#include <vector>

namespace inferlens {

// How RoPE pairs the rotated dimensions of a head. GGUF LLaMA files and ChatGLM use adjacent pairs
// (x[2i], x[2i+1]); Hugging Face checkpoints, and llama.cpp's "NeoX" architectures (Qwen, Gemma)
// in GGUF too, use rotate-half pairs (x[i], x[i + rot/2]).
enum class RopePairing { Adjacent, RotateHalf };

// The gate's activation in the gated FFN: act(W_gate · h) ⊙ (W_up · h).
enum class FfnActivation { SiLU, GeluTanh };

// Llama 3.x's RoPE scaling (Hugging Face rope_scaling with rope_type "llama3"): long wavelengths
// are divided by `factor`, short ones kept, those between interpolated.
struct Llama3RopeScaling {
    double factor = 8.0;
    double lowFreqFactor = 1.0;
    double highFreqFactor = 4.0;
    int64_t originalContext = 8192;
};

struct ModelConfig {
    std::string architecture;  // GGUF's general.architecture: chatglm, llama, qwen2, qwen3, gemma3
    int64_t layerCount = 0;
    int64_t hiddenSize = 0;
    int64_t headCount = 0;
    int64_t kvHeadCount = 0;  // < headCount: grouped-query (LLaMA) or multi-query groups (GLM)
    int64_t headDim = 0;
    int64_t ffnSize = 0;    // gated FFN inner size
    int64_t vocabSize = 0;  // rows of the output layer
    int64_t contextLength = 0;
    int64_t ropeDims = 0;  // leading dimensions of each head that rotate (GLM: headDim / 2)
    double ropeBase = 10000.0;
    RopePairing ropePairing = RopePairing::Adjacent;
    double rmsNormEps = 1e-5;
    bool qkvBias = false;
    bool tiedOutput = false;  // the output layer reuses the token embedding

    FfnActivation ffnActivation = FfnActivation::SiLU;
    // Gemma: the token embedding is multiplied by √hidden before the first layer.
    double embeddingScale = 1.0;
    // The attention scores' factor; 0 means 1/√headDim (Gemma: query_pre_attn_scalar^−½).
    double attentionScale = 0.0;
    // RMSNorm multiplies by (normWeightOffset + w): 1 for Gemma's Hugging Face weights, whose
    // GGUF conversion stores 1 + w instead (llama.cpp's converter adds it), 0 otherwise.
    double normWeightOffset = 0.0;
    bool qkNorm = false;     // per-head RMSNorm of Q and K (weights [headDim]) before RoPE
    bool postNorms = false;  // RMSNorm of the attention and FFN outputs before the residual add
    // logits = cap · tanh(logits / cap) when > 0.
    double finalLogitSoftcap = 0.0;

    // RoPE scaling of the global (or all) layers: positions divided by `ropeLinearFactor`, and
    // per-pair divisors of the frequencies (llama3: GGUF rope_freqs.weight, or computed from
    // `llama3Scaling` for a Hugging Face config). Empty: none.
    double ropeLinearFactor = 1.0;
    std::vector<float> ropeFrequencyDivisors;  // [ropeDims / 2]
    bool hasLlama3Scaling = false;             // llama3Scaling is what produced the divisors
    Llama3RopeScaling llama3Scaling;

    // Local (sliding-window) layers: the query at position p sees positions p − slidingWindow + 1
    // .. p. They rotate with their own base, unscaled. Empty slidingLayers: every layer global.
    int64_t slidingWindow = 0;
    std::vector<bool> slidingLayers;  // [layerCount]
    double localRopeBase = 10000.0;

    int64_t queryWidth() const { return headCount * headDim; }
    int64_t kvWidth() const { return kvHeadCount * headDim; }
    bool isSlidingLayer(int64_t layer) const {
        return slidingWindow > 0 && size_t(layer) < slidingLayers.size() &&
               slidingLayers[size_t(layer)];
    }
    // The window of `layer` in positions (0: the whole causal past).
    int64_t layerWindow(int64_t layer) const { return isSlidingLayer(layer) ? slidingWindow : 0; }
    double scoreScale() const;
};

// Every `pattern`-th layer global, the others local (llama.cpp's set_swa_pattern: layer i slides
// when i mod pattern < pattern − 1; Gemma 3: pattern 6; 0: every layer slides). Needs
// 1 ≤ layers ≤ kMaxLayerCount and pattern ≥ 0, which the readers check first.
std::vector<bool> slidingLayersFromPattern(int64_t layers, int64_t pattern);

constexpr int64_t kMaxLayerCount = 1024;

// Throws Error("<file>: layer count … is outside the supported range") unless 1 ≤ layers ≤
// kMaxLayerCount. The readers call it as soon as they have the count, before anything is built
// per layer, so that a hostile count is refused before it costs memory or time.
void requireSupportedLayerCount(int64_t layers, const std::string& file);

// Throws Error("<file>: ...") unless every field is positive, mutually consistent and within sane
// limits (so that no later allocation is driven by an absurd number).
void validateConfig(const ModelConfig& config, const std::string& file);

}  // namespace inferlens
