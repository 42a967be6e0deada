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

class Qwen3Architecture final : public LlamaLayoutArchitecture {
  public:
    Qwen3Architecture() : LlamaLayoutArchitecture({}) {}

    std::string_view name() const override { return "qwen3"; }
    std::string_view hfModelType() const override { return "qwen3"; }

    ModelConfig configFromGguf(const GgufFile& file, int64_t vocabSize) const override {
        ModelConfig config = readGgufConfig(file, vocabSize, RopePairing::RotateHalf);
        config.qkNorm = true;
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

    nlohmann::json hfConfig(const ModelConfig& c, std::string_view torchDtype) const override {
        nlohmann::json json = writeHfLlamaLikeConfig(c, "Qwen3ForCausalLM", torchDtype);
        json["hidden_act"] = "silu";
        json["attention_bias"] = false;
        json["use_sliding_window"] = false;
        return json;
    }
};

}  // namespace

const Architecture& qwen3Architecture() {
    static const Qwen3Architecture instance;
    return instance;
}

}  // namespace inferlens
