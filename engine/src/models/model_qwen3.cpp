// Qwen3 (dense): the LLaMA layout without Q/K/V biases (attention_bias, false in every released
// model, would also add an output bias, and is refused) and with a per-head RMSNorm of the queries
// and keys (q_norm, k_norm: one [head_dim] weight shared by the heads) before RoPE; rotate-half
// RoPE in both layouts, head_dim given explicitly (128 even where hidden / heads differs).

#include "core/error.h"
#include "io/gguf_file.h"
#include "io/json_file.h"
#include "models/architecture.h"
#include "models/llama_layout.h"

namespace inferlens {
namespace {

class Qwen3Architecture final : public Architecture {
  public:
    std::string_view name() const override { return "qwen3"; }
    std::string_view hfModelType() const override { return "qwen3"; }

    ModelConfig configFromGguf(const GgufFile& file, int64_t vocabSize) const override {
        ModelConfig config =
            readGgufHyperParameters(file, "qwen3", [](int64_t headDim) { return headDim; });
        config.vocabSize = vocabSize;
        config.ropePairing = RopePairing::RotateHalf;
        config.qkNorm = true;
        config.tiedOutput = !ggufHasTensor(file, "output.weight");
        return config;
    }

    ModelConfig configFromHf(const nlohmann::json& json, const std::string& file) const override {
        if (optionalJsonBool(json, "use_sliding_window", file).value_or(false))
            throwFileError(file, "use_sliding_window = true is not supported for qwen3");
        if (optionalJsonBool(json, "attention_bias", file).value_or(false))
            throwFileError(file, "attention_bias = true is not supported for qwen3");
        requireHfHeadShape(json, "qwen3", file);
        ModelConfig config = readHfLlamaLikeConfig(json, "qwen3", file);
        config.qkNorm = true;
        return config;
    }

    std::vector<GgufKeyValue> ggufMetadata(const ModelConfig& config) const override {
        return writeGgufHyperParameters(config);
    }

    nlohmann::json hfConfig(const ModelConfig& c, std::string_view torchDtype) const override {
        nlohmann::json json{{"architectures", {"Qwen3ForCausalLM"}},
                            {"model_type", "qwen3"},
                            {"hidden_act", "silu"},
                            {"num_hidden_layers", c.layerCount},
                            {"hidden_size", c.hiddenSize},
                            {"num_attention_heads", c.headCount},
                            {"num_key_value_heads", c.kvHeadCount},
                            {"head_dim", c.headDim},
                            {"intermediate_size", c.ffnSize},
                            {"vocab_size", c.vocabSize},
                            {"max_position_embeddings", c.contextLength},
                            {"rms_norm_eps", c.rmsNormEps},
                            {"attention_bias", false},
                            {"tie_word_embeddings", c.tiedOutput},
                            {"use_sliding_window", false},
                            {"bos_token_id", 1},
                            {"eos_token_id", 2},
                            {"torch_dtype", torchDtype}};
        writeHfRopeScaling(c, json);
        return json;
    }

    std::vector<TensorSpec> tensorSpecs(const ModelConfig& c) const override {
        return llamaLayoutSpecs(c, {});
    }

    DecoderWeights bind(const ModelConfig& c, const TensorLookup& tensor) const override {
        return bindLlamaLayout(c, tensor);
    }

    std::vector<std::string> specialsAfterPieces() const override { return {}; }
};

}  // namespace

const Architecture& qwen3Architecture() {
    static const Qwen3Architecture instance;
    return instance;
}

}  // namespace inferlens
