// Qwen2 and Qwen2.5: the LLaMA layout with biases on the Q, K and V projections, rotate-half
// ("NeoX") RoPE in GGUF as in Hugging Face files (llama.cpp's converter does not permute Q/K for
// Qwen), usually a large RoPE base and, in the small models, a tied output layer. The sliding
// window that Qwen2's config can switch on (use_sliding_window) is off in every released model
// and refused here.

#include "core/error.h"
#include "io/gguf_file.h"
#include "io/json_file.h"
#include "models/architecture.h"
#include "models/llama_layout.h"

namespace inferlens {
namespace {

class Qwen2Architecture final : public Architecture {
  public:
    std::string_view name() const override { return "qwen2"; }
    std::string_view hfModelType() const override { return "qwen2"; }

    ModelConfig configFromGguf(const GgufFile& file, int64_t vocabSize) const override {
        ModelConfig config =
            readGgufHyperParameters(file, "qwen2", [](int64_t headDim) { return headDim; });
        config.vocabSize = vocabSize;
        config.ropePairing = RopePairing::RotateHalf;
        config.qkvBias = true;
        config.tiedOutput = !ggufHasTensor(file, "output.weight");
        return config;
    }

    ModelConfig configFromHf(const nlohmann::json& json, const std::string& file) const override {
        if (optionalJsonBool(json, "use_sliding_window", file).value_or(false))
            throwFileError(file, "use_sliding_window = true is not supported for qwen2");
        ModelConfig config = readHfLlamaLikeConfig(json, "qwen2", file);
        config.qkvBias = true;
        return config;
    }

    std::vector<GgufKeyValue> ggufMetadata(const ModelConfig& config) const override {
        return writeGgufHyperParameters(config);
    }

    nlohmann::json hfConfig(const ModelConfig& c, std::string_view torchDtype) const override {
        nlohmann::json json{{"architectures", {"Qwen2ForCausalLM"}},
                            {"model_type", "qwen2"},
                            {"hidden_act", "silu"},
                            {"num_hidden_layers", c.layerCount},
                            {"hidden_size", c.hiddenSize},
                            {"num_attention_heads", c.headCount},
                            {"num_key_value_heads", c.kvHeadCount},
                            {"intermediate_size", c.ffnSize},
                            {"vocab_size", c.vocabSize},
                            {"max_position_embeddings", c.contextLength},
                            {"rms_norm_eps", c.rmsNormEps},
                            {"tie_word_embeddings", c.tiedOutput},
                            {"use_sliding_window", false},
                            {"bos_token_id", 1},
                            {"eos_token_id", 2},
                            {"torch_dtype", torchDtype}};
        if (c.headDim * c.headCount != c.hiddenSize)
            throw Error("qwen2: Hugging Face's Qwen2 derives head_dim = hidden / heads; " +
                        std::to_string(c.headDim) + " × " + std::to_string(c.headCount) + " ≠ " +
                        std::to_string(c.hiddenSize));
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

const Architecture& qwen2Architecture() {
    static const Qwen2Architecture instance;
    return instance;
}

}  // namespace inferlens
