#pragma once
// The hyper-parameters of a decoder-only transformer as InferLens runs it, whatever file they came
// from. Both supported architectures (ChatGLM2/3 and LLaMA) are described by these fields.

#include <cstdint>
#include <string>

namespace inferlens {

// How RoPE pairs the rotated dimensions of a head. GGUF files and ChatGLM use adjacent pairs
// (x[2i], x[2i+1]); Hugging Face LLaMA checkpoints use rotate-half pairs (x[i], x[i + rot/2]).
enum class RopePairing { Adjacent, RotateHalf };

struct ModelConfig {
    std::string architecture;  // "llama" or "chatglm", as GGUF's general.architecture
    int64_t layerCount = 0;
    int64_t hiddenSize = 0;
    int64_t headCount = 0;
    int64_t kvHeadCount = 0;  // < headCount: grouped-query (LLaMA) or multi-query groups (GLM)
    int64_t headDim = 0;
    int64_t ffnSize = 0;    // SwiGLU inner size
    int64_t vocabSize = 0;  // rows of the output layer
    int64_t contextLength = 0;
    int64_t ropeDims = 0;  // leading dimensions of each head that rotate (GLM: headDim / 2)
    double ropeBase = 10000.0;
    RopePairing ropePairing = RopePairing::Adjacent;
    double rmsNormEps = 1e-5;
    bool qkvBias = false;
    bool tiedOutput = false;  // the output layer reuses the token embedding

    int64_t queryWidth() const { return headCount * headDim; }
    int64_t kvWidth() const { return kvHeadCount * headDim; }
};

// Throws Error("<file>: ...") unless every field is positive, mutually consistent and within sane
// limits (so that no later allocation is driven by an absurd number).
void validateConfig(const ModelConfig& config, const std::string& file);

}  // namespace inferlens
