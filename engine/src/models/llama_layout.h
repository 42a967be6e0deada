#pragma once
// The tensor layout that LLaMA, Qwen2, Qwen3 and Gemma 3 share — GGUF `blk.N.attn_q.weight` …,
// Hugging Face `model.layers.N.self_attn.q_proj.weight` … — with the optional tensors the
// configuration asks for: Q/K/V biases (qkvBias), per-head Q/K norms (qkNorm), Gemma's post-norms
// (postNorms), an untied output layer, and Llama 3's rope_freqs.weight. One list of names for
// every architecture that uses it, so that the specs (validation) and the binding cannot drift.

#include <nlohmann/json.hpp>

#include "models/architecture.h"

namespace inferlens {

struct LlamaLayoutOptions {
    // Q/K rows are stored for adjacent-pair RoPE in GGUF (llama) and permuted per head from the
    // Hugging Face rotate-half order; the NeoX architectures (Qwen, Gemma) store both alike.
    bool permuteQueryKeyRows = false;
    // Gemma: every RMSNorm weight is stored as w in Hugging Face files and 1 + w in GGUF.
    bool normOffsetInHf = false;
};

std::vector<TensorSpec> llamaLayoutSpecs(const ModelConfig& config,
                                         const LlamaLayoutOptions& options);
DecoderWeights bindLlamaLayout(const ModelConfig& config, const TensorLookup& tensor);

// What the architectures of this layout share: its tensors (with their options) and their binding,
// the common GGUF hyper-parameters, no special tokens after the pieces. Each one adds what sets it
// apart: its names, how it reads and writes its configuration.
class LlamaLayoutArchitecture : public Architecture {
  public:
    explicit LlamaLayoutArchitecture(LlamaLayoutOptions options) : options_(options) {}

    std::vector<GgufKeyValue> ggufMetadata(const ModelConfig& config) const override;
    std::vector<TensorSpec> tensorSpecs(const ModelConfig& config) const override;
    DecoderWeights bind(const ModelConfig& config, const TensorLookup& tensor) const override;
    std::vector<std::string> specialsAfterPieces() const override { return {}; }

  protected:
    // configFromGguf's common part: the hyper-parameters under name()'s keys (RoPE over the whole
    // head unless the file says otherwise), the vocabulary, the pairing, and the output layer tied
    // to the token embedding where the file has none of its own.
    ModelConfig readGgufConfig(const GgufFile& file, int64_t vocabSize, RopePairing pairing) const;
    // config.json with the fields that readHfLlamaLikeConfig reads (head_dim included), the RoPE
    // parameters (writeHfRopeScaling), bos/eos ids 1 and 2, hfModelType() and `architectures`;
    // the caller adds its activation and its own keys.
    nlohmann::json writeHfLlamaLikeConfig(const ModelConfig& config, std::string_view architectures,
                                          std::string_view torchDtype) const;

  private:
    LlamaLayoutOptions options_;
};

// Whether a GGUF file has a tensor of this name (an untied output layer, say).
bool ggufHasTensor(const GgufFile& file, std::string_view name);

// The config.json fields that these architectures share (transformers' LlamaConfig names):
// layers, sizes, heads, head_dim, vocabulary, context, rope_theta, rms_norm_eps, tied embeddings;
// pairing rotate-half. RoPE scaling is read by readHfRopeScaling.
ModelConfig readHfLlamaLikeConfig(const nlohmann::json& json, const std::string& architecture,
                                  const std::string& file);
// transformers' Gemma3Config and Qwen3Config default head_dim (256, 128) and num_key_value_heads
// to constants of their own, not to hidden / heads and the head count as readHfLlamaLikeConfig
// does: for them a config.json without both keys is refused rather than read differently.
void requireHfHeadShape(const nlohmann::json& json, const std::string& architecture,
                        const std::string& file);
// RoPE parameters in either form transformers writes: `rope_theta` + `rope_scaling`
// {rope_type|type: default, linear, llama3, …} (4.x), or `rope_parameters` {rope_type, rope_theta,
// …} (5.x). Sets ropeBase and the scaling; other rope types, and llama3 for any architecture but
// llama (config.architecture), are refused, naming the file.
void readHfRopeScaling(const nlohmann::json& json, ModelConfig& config, const std::string& file);
// The reverse, in the 4.x form (which 5.x still reads): rope_theta and rope_scaling.
void writeHfRopeScaling(const ModelConfig& config, nlohmann::json& json);

}  // namespace inferlens
