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

class LlamaArchitecture final : public LlamaLayoutArchitecture {
  public:
    LlamaArchitecture() : LlamaLayoutArchitecture({.permuteQueryKeyRows = true}) {}

    std::string_view name() const override { return "llama"; }
    std::string_view hfModelType() const override { return "llama"; }

    ModelConfig configFromGguf(const GgufFile& file, int64_t vocabSize) const override {
        return readGgufConfig(file, vocabSize, RopePairing::Adjacent);
    }

    ModelConfig configFromHf(const nlohmann::json& json, const std::string& file) const override {
        if (optionalJsonBool(json, "attention_bias", file).value_or(false) ||
            optionalJsonBool(json, "mlp_bias", file).value_or(false))
            throwFileError(file, "attention_bias / mlp_bias = true is not supported for llama");
        return readHfLlamaLikeConfig(json, "llama", file);
    }

    nlohmann::json hfConfig(const ModelConfig& c, std::string_view torchDtype) const override {
        nlohmann::json json = writeHfLlamaLikeConfig(c, "LlamaForCausalLM", torchDtype);
        json["hidden_act"] = "silu";
        return json;
    }
};

}  // namespace

const Architecture& llamaArchitecture() {
    static const LlamaArchitecture instance;
    return instance;
}

}  // namespace inferlens
