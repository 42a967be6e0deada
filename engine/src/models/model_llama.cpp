// The LLaMA family (LLaMA 1/2/3.x, TinyLlama, SmolLM2, Mistral-style GQA without sliding window):
// RMSNorm, grouped-query attention with RoPE over the whole head, SwiGLU with separate gate and up
// projections, output layer optionally tied to the token embedding, RoPE optionally scaled
// (linear, or Llama 3's per-frequency factors: GGUF rope_freqs.weight, Hugging Face rope_scaling
// {rope_type: llama3}). GGUF rows of Q and K are permuted for adjacent-pair RoPE.

#include "core/error.h"
#include "io/gguf_file.h"
#include "io/json_file.h"
#include "models/architecture.h"
#include "models/llama_layout.h"

namespace inferlens {
namespace {

constexpr LlamaLayoutOptions kLayout{.permuteQueryKeyRows = true};

class LlamaArchitecture final : public Architecture {
  public:
    std::string_view name() const override { return "llama"; }
    std::string_view hfModelType() const override { return "llama"; }

    ModelConfig configFromGguf(const GgufFile& file, int64_t vocabSize) const override {
        ModelConfig config =
            readGgufHyperParameters(file, "llama", [](int64_t headDim) { return headDim; });
        config.vocabSize = vocabSize;
        config.ropePairing = RopePairing::Adjacent;
        config.tiedOutput = !ggufHasTensor(file, "output.weight");
        return config;
    }

    ModelConfig configFromHf(const nlohmann::json& json, const std::string& file) const override {
        if (optionalJsonBool(json, "attention_bias", file).value_or(false) ||
            optionalJsonBool(json, "mlp_bias", file).value_or(false))
            throwFileError(file, "attention_bias / mlp_bias = true is not supported for llama");
        return readHfLlamaLikeConfig(json, "llama", file);
    }

    std::vector<GgufKeyValue> ggufMetadata(const ModelConfig& config) const override {
        return writeGgufHyperParameters(config);
    }

    nlohmann::json hfConfig(const ModelConfig& c, std::string_view torchDtype) const override {
        nlohmann::json json{{"architectures", {"LlamaForCausalLM"}},
                            {"model_type", "llama"},
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
                            {"tie_word_embeddings", c.tiedOutput},
                            {"bos_token_id", 1},
                            {"eos_token_id", 2},
                            {"torch_dtype", torchDtype}};
        writeHfRopeScaling(c, json);
        return json;
    }

    std::vector<TensorSpec> tensorSpecs(const ModelConfig& c) const override {
        return llamaLayoutSpecs(c, kLayout);
    }

    DecoderWeights bind(const ModelConfig& c, const TensorLookup& tensor) const override {
        return bindLlamaLayout(c, tensor);
    }

    std::vector<std::string> specialsAfterPieces() const override { return {}; }
};

}  // namespace

const Architecture& llamaArchitecture() {
    static const LlamaArchitecture instance;
    return instance;
}

}  // namespace inferlens
