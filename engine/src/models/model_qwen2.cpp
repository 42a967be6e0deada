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

class Qwen2Architecture final : public LlamaLayoutArchitecture {
  public:
    Qwen2Architecture() : LlamaLayoutArchitecture({}) {}

    std::string_view name() const override { return "qwen2"; }
    std::string_view hfModelType() const override { return "qwen2"; }

    ModelConfig configFromGguf(const GgufFile& file, int64_t vocabSize) const override {
        ModelConfig config = readGgufConfig(file, vocabSize, RopePairing::RotateHalf);
        config.qkvBias = true;
        return config;
    }

    ModelConfig configFromHf(const nlohmann::json& json, const std::string& file) const override {
        if (optionalJsonBool(json, "use_sliding_window", file).value_or(false))
            throwFileError(file, "use_sliding_window = true is not supported for qwen2");
        ModelConfig config = readHfLlamaLikeConfig(json, "qwen2", file);
        config.qkvBias = true;
        return config;
    }

    nlohmann::json hfConfig(const ModelConfig& c, std::string_view torchDtype) const override {
        if (c.headDim * c.headCount != c.hiddenSize)
            throw Error("qwen2: Hugging Face's Qwen2 derives head_dim = hidden / heads; " +
                        std::to_string(c.headDim) + " × " + std::to_string(c.headCount) + " ≠ " +
                        std::to_string(c.hiddenSize));
        nlohmann::json json = writeHfLlamaLikeConfig(c, "Qwen2ForCausalLM", torchDtype);
        json.erase("head_dim");  // derived, as above
        json["hidden_act"] = "silu";
        json["use_sliding_window"] = false;
        return json;
    }
};

}  // namespace

const Architecture& qwen2Architecture() {
    static const Qwen2Architecture instance;
    return instance;
}

}  // namespace inferlens
