// ChatGLM2-6B and ChatGLM3-6B (the GLM architecture): RMSNorm, multi-query attention with a few KV
// groups, one fused QKV projection with bias (rows: all Q heads, then K groups, then V groups),
// RoPE on the first half of each head in adjacent pairs, SwiGLU with gate and up fused (gate rows
// first), untied output layer. Tensor names follow llama.cpp's `chatglm` architecture in GGUF and
// THUDM's modeling_chatglm.py in Hugging Face directories.

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
    return "transformer.encoder.layers." + std::to_string(layer) + "." + suffix;
}

void requireFlag(const nlohmann::json& json, const char* key, bool expected,
                 const std::string& file) {
    const auto value = optionalJsonBool(json, key, file);
    if (value && *value != expected)
        throwFileError(file, std::string("'") + key + "' = " + (*value ? "true" : "false") +
                                 " is not supported by the GLM architecture");
}

class GlmArchitecture final : public Architecture {
  public:
    std::string_view name() const override { return "chatglm"; }
    std::string_view hfModelType() const override { return "chatglm"; }

    ModelConfig configFromGguf(const GgufFile& file, int64_t vocabSize) const override {
        ModelConfig config =
            readGgufHyperParameters(file, "chatglm", [](int64_t headDim) { return headDim / 2; });
        config.vocabSize = vocabSize;
        config.ropePairing = RopePairing::Adjacent;
        config.qkvBias = true;
        return config;
    }

    ModelConfig configFromHf(const nlohmann::json& json, const std::string& file) const override {
        requireFlag(json, "rmsnorm", true, file);
        requireFlag(json, "add_bias_linear", false, file);
        requireFlag(json, "add_qkv_bias", true, file);
        requireFlag(json, "post_layer_norm", true, file);
        requireFlag(json, "apply_residual_connection_post_layernorm", false, file);
        requireFlag(json, "original_rope", true, file);
        ModelConfig config;
        config.architecture = "chatglm";
        config.layerCount = requireJsonInteger(json, "num_layers", file);
        config.hiddenSize = requireJsonInteger(json, "hidden_size", file);
        config.headCount = requireJsonInteger(json, "num_attention_heads", file);
        config.headDim = requireJsonInteger(json, "kv_channels", file);
        const bool multiQuery =
            optionalJsonBool(json, "multi_query_attention", file).value_or(false);
        config.kvHeadCount =
            multiQuery ? requireJsonInteger(json, "multi_query_group_num", file) : config.headCount;
        config.ffnSize = requireJsonInteger(json, "ffn_hidden_size", file);
        config.vocabSize = requireJsonInteger(json, "padded_vocab_size", file);
        config.contextLength = requireJsonInteger(json, "seq_length", file);
        config.ropeDims = config.headDim / 2;
        config.ropeBase = 10000.0 * optionalJsonNumber(json, "rope_ratio", file).value_or(1.0);
        config.ropePairing = RopePairing::Adjacent;
        config.rmsNormEps = optionalJsonNumber(json, "layernorm_epsilon", file).value_or(1e-5);
        config.qkvBias = true;
        return config;
    }

    std::vector<GgufKeyValue> ggufMetadata(const ModelConfig& config) const override {
        return writeGgufHyperParameters(config);
    }

    nlohmann::json hfConfig(const ModelConfig& c, std::string_view torchDtype) const override {
        return {{"architectures", {"ChatGLMModel"}},
                {"model_type", "chatglm"},
                {"num_layers", c.layerCount},
                {"hidden_size", c.hiddenSize},
                {"num_attention_heads", c.headCount},
                {"kv_channels", c.headDim},
                {"multi_query_attention", c.kvHeadCount != c.headCount},
                {"multi_query_group_num", c.kvHeadCount},
                {"ffn_hidden_size", c.ffnSize},
                {"padded_vocab_size", c.vocabSize},
                {"seq_length", c.contextLength},
                {"layernorm_epsilon", c.rmsNormEps},
                {"rope_ratio", c.ropeBase / 10000.0},
                {"rmsnorm", true},
                {"add_bias_linear", false},
                {"add_qkv_bias", true},
                {"post_layer_norm", true},
                {"apply_residual_connection_post_layernorm", false},
                {"original_rope", true},
                {"torch_dtype", torchDtype}};
    }

    std::vector<TensorSpec> tensorSpecs(const ModelConfig& c) const override {
        const int64_t h = c.hiddenSize, f = c.ffnSize;
        const int64_t qkv = c.queryWidth() + 2 * c.kvWidth();
        std::vector<TensorSpec> specs{
            {"token_embd.weight", "transformer.embedding.word_embeddings.weight", {c.vocabSize, h}},
        };
        for (int64_t i = 0; i < c.layerCount; ++i) {
            specs.push_back(
                {layerName(i, "attn_norm.weight"), hfLayerName(i, "input_layernorm.weight"), {h}});
            specs.push_back({layerName(i, "attn_qkv.weight"),
                             hfLayerName(i, "self_attention.query_key_value.weight"),
                             {qkv, h}});
            specs.push_back({layerName(i, "attn_qkv.bias"),
                             hfLayerName(i, "self_attention.query_key_value.bias"),
                             {qkv}});
            specs.push_back({layerName(i, "attn_output.weight"),
                             hfLayerName(i, "self_attention.dense.weight"),
                             {h, c.queryWidth()}});
            specs.push_back({layerName(i, "ffn_norm.weight"),
                             hfLayerName(i, "post_attention_layernorm.weight"),
                             {h}});
            specs.push_back({layerName(i, "ffn_up.weight"),
                             hfLayerName(i, "mlp.dense_h_to_4h.weight"),
                             {2 * f, h}});
            specs.push_back({layerName(i, "ffn_down.weight"),
                             hfLayerName(i, "mlp.dense_4h_to_h.weight"),
                             {h, f}});
        }
        specs.push_back({"output_norm.weight", "transformer.encoder.final_layernorm.weight", {h}});
        specs.push_back({"output.weight", "transformer.output_layer.weight", {c.vocabSize, h}});
        return specs;
    }

    DecoderWeights bind(const ModelConfig& c, const TensorLookup& tensor) const override {
        const int64_t q = c.queryWidth(), kv = c.kvWidth(), f = c.ffnSize;
        DecoderWeights weights;
        weights.tokenEmbedding = *tensor("token_embd.weight");
        for (int64_t i = 0; i < c.layerCount; ++i) {
            const TensorView& qkv = *tensor(layerName(i, "attn_qkv.weight"));
            const TensorView& qkvBias = *tensor(layerName(i, "attn_qkv.bias"));
            const TensorView& gateUp = *tensor(layerName(i, "ffn_up.weight"));
            LayerWeights layer;
            layer.attentionNorm = *tensor(layerName(i, "attn_norm.weight"));
            layer.query = qkv.slice(0, q);
            layer.key = qkv.slice(q, kv);
            layer.value = qkv.slice(q + kv, kv);
            layer.queryBias = qkvBias.slice(0, q);
            layer.keyBias = qkvBias.slice(q, kv);
            layer.valueBias = qkvBias.slice(q + kv, kv);
            layer.attentionOutput = *tensor(layerName(i, "attn_output.weight"));
            layer.ffnNorm = *tensor(layerName(i, "ffn_norm.weight"));
            layer.ffnGate = gateUp.slice(0, f);
            layer.ffnUp = gateUp.slice(f, f);
            layer.ffnDown = *tensor(layerName(i, "ffn_down.weight"));
            weights.layers.push_back(std::move(layer));
        }
        weights.outputNorm = *tensor("output_norm.weight");
        weights.output = *tensor("output.weight");
        return weights;
    }

    std::vector<std::string> specialsAfterPieces() const override {
        return {"[MASK]",   "[gMASK]",       "[sMASK]",        "sop", "eop", "<|system|>",
                "<|user|>", "<|assistant|>", "<|observation|>"};
    }
};

}  // namespace

const Architecture& glmArchitecture() {
    static const GlmArchitecture instance;
    return instance;
}

}  // namespace inferlens
