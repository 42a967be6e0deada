#pragma once
// One model architecture = one implementation of this interface, in its own file (model_glm.cpp,
// model_llama.cpp, model_qwen2.cpp, model_qwen3.cpp, model_gemma3.cpp). An architecture knows its
// hyper-parameters in GGUF metadata and in a Hugging Face config.json, the names and shapes of its
// tensors in both layouts, and how its tensors map onto the shared decoder (decoder_weights.h).
// docs/adding-a-model.md explains how to add one.

#include <functional>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor.h"
#include "io/gguf_value.h"
#include "models/decoder_weights.h"
#include "models/model_config.h"

namespace inferlens {

class GgufFile;

struct TensorSpec {
    std::string ggufName;        // also the canonical name inside the engine
    std::string hfName;          // empty: a GGUF-only tensor (see derivedValues)
    std::vector<int64_t> shape;  // PyTorch order
    bool optional = false;
    // Q and K projections of LLaMA: rows are ordered per head for adjacent-pair RoPE in GGUF and
    // for rotate-half RoPE in Hugging Face files; converting between the two permutes rows within
    // each of this many heads. 0: no permutation.
    int64_t ropePermuteHeads = 0;
    // Gemma's RMSNorm weights: Hugging Face stores w (the norm multiplies by 1 + w), GGUF stores
    // 1 + w (llama.cpp's converter adds it). Hugging Face value = canonical value − this.
    float hfNormOffset = 0.0f;
    // A GGUF-only tensor that a Hugging Face config.json describes instead (Llama 3's
    // rope_freqs.weight): its values, for writing it.
    std::vector<float> derivedValues = {};
};

using TensorLookup = std::function<const TensorView*(const std::string& ggufName)>;

class Architecture {
  public:
    virtual ~Architecture() = default;

    virtual std::string_view name() const = 0;         // GGUF general.architecture
    virtual std::string_view hfModelType() const = 0;  // config.json "model_type"

    // `vocabSize` comes from the token embedding's rows, which the caller has checked exist.
    virtual ModelConfig configFromGguf(const GgufFile& file, int64_t vocabSize) const = 0;
    virtual ModelConfig configFromHf(const nlohmann::json& config,
                                     const std::string& file) const = 0;
    virtual std::vector<GgufKeyValue> ggufMetadata(const ModelConfig& config) const = 0;
    virtual nlohmann::json hfConfig(const ModelConfig& config,
                                    std::string_view torchDtype) const = 0;

    virtual std::vector<TensorSpec> tensorSpecs(const ModelConfig& config) const = 0;
    // Binds validated tensors (every required spec is present with its shape) to the decoder.
    virtual DecoderWeights bind(const ModelConfig& config, const TensorLookup& tensor) const = 0;

    // Tokens that the architecture appends after the sentencepiece pieces, by id (ChatGLM's
    // [MASK], [gMASK], sop, ...). Empty for architectures whose specials are pieces.
    virtual std::vector<std::string> specialsAfterPieces() const = 0;
};

const Architecture& glmArchitecture();
const Architecture& llamaArchitecture();
const Architecture& qwen2Architecture();
const Architecture& qwen3Architecture();
const Architecture& gemma3Architecture();

// Throws Error naming `file` and the supported architectures when none matches.
const Architecture& architectureByName(std::string_view name, const std::string& file);
const Architecture& architectureForHfConfig(const nlohmann::json& config, const std::string& file);

// GGUF keys shared by llama.cpp's architectures: "<arch>.block_count" and so on, and RoPE scaling
// (rope.scaling.type none or linear; the rope_freqs.weight tensor's per-pair divisors). Reads every
// field except vocabSize, ropePairing, qkvBias, tiedOutput and the fields after them in
// ModelConfig, which the architecture decides; ropeDims defaults to `defaultRopeDims(headDim)`
// when the file does not say.
ModelConfig readGgufHyperParameters(const GgufFile& file, std::string_view arch,
                                    int64_t (*defaultRopeDims)(int64_t headDim));
std::vector<GgufKeyValue> writeGgufHyperParameters(const ModelConfig& config);

}  // namespace inferlens
