// The LLaMA family (LLaMA 1/2/3 shapes, TinyLlama, Mistral-style GQA without sliding window):
// RMSNorm, grouped-query attention with RoPE over the whole head, SwiGLU with separate gate and up
// projections, output layer optionally tied to the token embedding.

#include "core/error.h"
#include "io/gguf_file.h"
#include "io/json_file.h"
#include "models/architecture.h"

namespace inferlens {
namespace {

std::string layerName(int64_t layer, const char* suffix) {
    return "blk." + std::to_string(layer) + "." + suffix;
}

std::string hfLayerName(int64_t layer, const char* suffix) {
    return "model.layers." + std::to_string(layer) + "." + suffix;
}

class LlamaArchitecture final : public Architecture {
  public:
    std::string_view name() const override { return "llama"; }
    std::string_view hfModelType() const override { return "llama"; }

    ModelConfig configFromGguf(const GgufFile& file, int64_t vocabSize) const override {
        ModelConfig config =
            readGgufHyperParameters(file, "llama", [](int64_t headDim) { return headDim; });
        config.vocabSize = vocabSize;
        config.ropePairing = RopePairing::Adjacent;
        config.tiedOutput = !hasTensor(file, "output.weight");
        return config;
    }

    ModelConfig configFromHf(const nlohmann::json& json, const std::string& file) const override {
        if (json.contains("rope_scaling") && !json["rope_scaling"].is_null())
            throwFileError(file, "rope_scaling is not supported yet");
        ModelConfig config;
        config.architecture = "llama";
        config.layerCount = requireJsonInteger(json, "num_hidden_layers", file);
        config.hiddenSize = requireJsonInteger(json, "hidden_size", file);
        config.headCount = requireJsonInteger(json, "num_attention_heads", file);
        config.kvHeadCount =
            optionalJsonInteger(json, "num_key_value_heads", file).value_or(config.headCount);
        if (config.headCount <= 0)
            throwFileError(file, "num_attention_heads must be positive");
        config.headDim = optionalJsonInteger(json, "head_dim", file)
                             .value_or(config.hiddenSize / config.headCount);
        config.ffnSize = requireJsonInteger(json, "intermediate_size", file);
        config.vocabSize = requireJsonInteger(json, "vocab_size", file);
        config.contextLength = requireJsonInteger(json, "max_position_embeddings", file);
        config.ropeDims = config.headDim;
        config.ropeBase = optionalJsonNumber(json, "rope_theta", file).value_or(10000.0);
        config.ropePairing = RopePairing::RotateHalf;
        config.rmsNormEps = optionalJsonNumber(json, "rms_norm_eps", file).value_or(1e-6);
        config.tiedOutput = optionalJsonBool(json, "tie_word_embeddings", file).value_or(false);
        return config;
    }

    std::vector<GgufKeyValue> ggufMetadata(const ModelConfig& config) const override {
        return writeGgufHyperParameters(config);
    }

    nlohmann::json hfConfig(const ModelConfig& c, std::string_view torchDtype) const override {
        return {{"architectures", {"LlamaForCausalLM"}},
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
                {"rope_theta", c.ropeBase},
                {"rms_norm_eps", c.rmsNormEps},
                {"tie_word_embeddings", c.tiedOutput},
                {"bos_token_id", 1},
                {"eos_token_id", 2},
                {"torch_dtype", torchDtype}};
    }

    std::vector<TensorSpec> tensorSpecs(const ModelConfig& c) const override {
        const int64_t h = c.hiddenSize, q = c.queryWidth(), kv = c.kvWidth(), f = c.ffnSize;
        std::vector<TensorSpec> specs{
            {"token_embd.weight", "model.embed_tokens.weight", {c.vocabSize, h}},
        };
        for (int64_t i = 0; i < c.layerCount; ++i) {
            specs.push_back(
                {layerName(i, "attn_norm.weight"), hfLayerName(i, "input_layernorm.weight"), {h}});
            specs.push_back({layerName(i, "attn_q.weight"),
                             hfLayerName(i, "self_attn.q_proj.weight"),
                             {q, h},
                             false,
                             c.headCount});
            specs.push_back({layerName(i, "attn_k.weight"),
                             hfLayerName(i, "self_attn.k_proj.weight"),
                             {kv, h},
                             false,
                             c.kvHeadCount});
            specs.push_back({layerName(i, "attn_v.weight"),
                             hfLayerName(i, "self_attn.v_proj.weight"),
                             {kv, h}});
            specs.push_back({layerName(i, "attn_output.weight"),
                             hfLayerName(i, "self_attn.o_proj.weight"),
                             {h, q}});
            specs.push_back({layerName(i, "ffn_norm.weight"),
                             hfLayerName(i, "post_attention_layernorm.weight"),
                             {h}});
            specs.push_back(
                {layerName(i, "ffn_gate.weight"), hfLayerName(i, "mlp.gate_proj.weight"), {f, h}});
            specs.push_back(
                {layerName(i, "ffn_up.weight"), hfLayerName(i, "mlp.up_proj.weight"), {f, h}});
            specs.push_back(
                {layerName(i, "ffn_down.weight"), hfLayerName(i, "mlp.down_proj.weight"), {h, f}});
        }
        specs.push_back({"output_norm.weight", "model.norm.weight", {h}});
        if (!c.tiedOutput)
            specs.push_back({"output.weight", "lm_head.weight", {c.vocabSize, h}});
        return specs;
    }

    DecoderWeights bind(const ModelConfig& c, const TensorLookup& tensor) const override {
        DecoderWeights weights;
        weights.tokenEmbedding = *tensor("token_embd.weight");
        for (int64_t i = 0; i < c.layerCount; ++i) {
            LayerWeights layer;
            layer.attentionNorm = *tensor(layerName(i, "attn_norm.weight"));
            layer.query = *tensor(layerName(i, "attn_q.weight"));
            layer.key = *tensor(layerName(i, "attn_k.weight"));
            layer.value = *tensor(layerName(i, "attn_v.weight"));
            layer.attentionOutput = *tensor(layerName(i, "attn_output.weight"));
            layer.ffnNorm = *tensor(layerName(i, "ffn_norm.weight"));
            layer.ffnGate = *tensor(layerName(i, "ffn_gate.weight"));
            layer.ffnUp = *tensor(layerName(i, "ffn_up.weight"));
            layer.ffnDown = *tensor(layerName(i, "ffn_down.weight"));
            weights.layers.push_back(std::move(layer));
        }
        weights.outputNorm = *tensor("output_norm.weight");
        weights.output = c.tiedOutput ? weights.tokenEmbedding : *tensor("output.weight");
        return weights;
    }

    std::vector<std::string> specialsAfterPieces() const override { return {}; }

  private:
    static bool hasTensor(const GgufFile& file, std::string_view name) {
        for (const auto& tensor : file.tensors())
            if (tensor.name == name)
                return true;
        return false;
    }
};

}  // namespace

const Architecture& llamaArchitecture() {
    static const LlamaArchitecture instance;
    return instance;
}

}  // namespace inferlens
