#include "models/llama_layout.h"

#include "core/error.h"
#include "io/gguf_file.h"
#include "io/json_file.h"
#include "models/rope_frequencies.h"

namespace inferlens {
namespace {

std::string layerName(int64_t layer, const char* suffix) {
    return "blk." + std::to_string(layer) + "." + suffix;
}

std::string hfLayerName(int64_t layer, const char* suffix) {
    return "model.layers." + std::to_string(layer) + "." + suffix;
}

}  // namespace

std::vector<TensorSpec> llamaLayoutSpecs(const ModelConfig& c, const LlamaLayoutOptions& o) {
    const int64_t h = c.hiddenSize, q = c.queryWidth(), kv = c.kvWidth(), f = c.ffnSize;
    const float normOffset = o.normOffsetInHf ? 1.0f : 0.0f;
    std::vector<TensorSpec> specs{
        {"token_embd.weight", "model.embed_tokens.weight", {c.vocabSize, h}},
    };
    const auto norm = [&](int64_t i, const char* gguf, const char* hf, int64_t width) {
        TensorSpec spec{layerName(i, gguf), hfLayerName(i, hf), {width}};
        spec.hfNormOffset = normOffset;
        specs.push_back(std::move(spec));
    };
    const auto matrix = [&](int64_t i, const char* gguf, const char* hf, int64_t rows,
                            int64_t columns, int64_t permuteHeads = 0) {
        specs.push_back({layerName(i, gguf),
                         hfLayerName(i, hf),
                         {rows, columns},
                         false,
                         o.permuteQueryKeyRows ? permuteHeads : 0});
    };
    for (int64_t i = 0; i < c.layerCount; ++i) {
        norm(i, "attn_norm.weight", "input_layernorm.weight", h);
        matrix(i, "attn_q.weight", "self_attn.q_proj.weight", q, h, c.headCount);
        matrix(i, "attn_k.weight", "self_attn.k_proj.weight", kv, h, c.kvHeadCount);
        matrix(i, "attn_v.weight", "self_attn.v_proj.weight", kv, h);
        if (c.qkvBias) {
            specs.push_back({layerName(i, "attn_q.bias"),
                             hfLayerName(i, "self_attn.q_proj.bias"),
                             {q},
                             false,
                             o.permuteQueryKeyRows ? c.headCount : 0});
            specs.push_back({layerName(i, "attn_k.bias"),
                             hfLayerName(i, "self_attn.k_proj.bias"),
                             {kv},
                             false,
                             o.permuteQueryKeyRows ? c.kvHeadCount : 0});
            specs.push_back(
                {layerName(i, "attn_v.bias"), hfLayerName(i, "self_attn.v_proj.bias"), {kv}});
        }
        if (c.qkNorm) {
            norm(i, "attn_q_norm.weight", "self_attn.q_norm.weight", c.headDim);
            norm(i, "attn_k_norm.weight", "self_attn.k_norm.weight", c.headDim);
        }
        matrix(i, "attn_output.weight", "self_attn.o_proj.weight", h, q);
        // Gemma names its four norms differently: its post_attention_layernorm is the
        // attention's post-norm, and the FFN's pre-norm is pre_feedforward_layernorm.
        if (c.postNorms) {
            norm(i, "post_attention_norm.weight", "post_attention_layernorm.weight", h);
            norm(i, "ffn_norm.weight", "pre_feedforward_layernorm.weight", h);
        } else {
            norm(i, "ffn_norm.weight", "post_attention_layernorm.weight", h);
        }
        matrix(i, "ffn_gate.weight", "mlp.gate_proj.weight", f, h);
        matrix(i, "ffn_up.weight", "mlp.up_proj.weight", f, h);
        matrix(i, "ffn_down.weight", "mlp.down_proj.weight", h, f);
        if (c.postNorms)
            norm(i, "post_ffw_norm.weight", "post_feedforward_layernorm.weight", h);
    }
    TensorSpec outputNorm{"output_norm.weight", "model.norm.weight", {h}};
    outputNorm.hfNormOffset = normOffset;
    specs.push_back(std::move(outputNorm));
    if (!c.tiedOutput)
        specs.push_back({"output.weight", "lm_head.weight", {c.vocabSize, h}});
    if (!c.ropeFrequencyDivisors.empty()) {
        TensorSpec factors{"rope_freqs.weight", "", {c.ropeDims / 2}};
        factors.derivedValues = c.ropeFrequencyDivisors;
        specs.push_back(std::move(factors));
    }
    return specs;
}

DecoderWeights bindLlamaLayout(const ModelConfig& c, const TensorLookup& tensor) {
    DecoderWeights weights;
    weights.tokenEmbedding = *tensor("token_embd.weight");
    for (int64_t i = 0; i < c.layerCount; ++i) {
        const auto named = [&](const char* suffix) { return *tensor(layerName(i, suffix)); };
        LayerWeights layer;
        layer.attentionNorm = named("attn_norm.weight");
        layer.query = named("attn_q.weight");
        layer.key = named("attn_k.weight");
        layer.value = named("attn_v.weight");
        if (c.qkvBias) {
            layer.queryBias = named("attn_q.bias");
            layer.keyBias = named("attn_k.bias");
            layer.valueBias = named("attn_v.bias");
        }
        if (c.qkNorm) {
            layer.queryNorm = named("attn_q_norm.weight");
            layer.keyNorm = named("attn_k_norm.weight");
        }
        layer.attentionOutput = named("attn_output.weight");
        layer.ffnNorm = named("ffn_norm.weight");
        layer.ffnGate = named("ffn_gate.weight");
        layer.ffnUp = named("ffn_up.weight");
        layer.ffnDown = named("ffn_down.weight");
        if (c.postNorms) {
            layer.postAttentionNorm = named("post_attention_norm.weight");
            layer.postFfnNorm = named("post_ffw_norm.weight");
        }
        weights.layers.push_back(std::move(layer));
    }
    weights.outputNorm = *tensor("output_norm.weight");
    weights.output = c.tiedOutput ? weights.tokenEmbedding : *tensor("output.weight");
    return weights;
}

std::vector<GgufKeyValue> LlamaLayoutArchitecture::ggufMetadata(const ModelConfig& config) const {
    return writeGgufHyperParameters(config);
}

std::vector<TensorSpec> LlamaLayoutArchitecture::tensorSpecs(const ModelConfig& config) const {
    return llamaLayoutSpecs(config, options_);
}

DecoderWeights LlamaLayoutArchitecture::bind(const ModelConfig& config,
                                             const TensorLookup& tensor) const {
    return bindLlamaLayout(config, tensor);
}

ModelConfig LlamaLayoutArchitecture::readGgufConfig(const GgufFile& file, int64_t vocabSize,
                                                    RopePairing pairing) const {
    ModelConfig config =
        readGgufHyperParameters(file, name(), [](int64_t headDim) { return headDim; });
    config.vocabSize = vocabSize;
    config.ropePairing = pairing;
    config.tiedOutput = !ggufHasTensor(file, "output.weight");
    return config;
}

bool ggufHasTensor(const GgufFile& file, std::string_view name) {
    for (const auto& tensor : file.tensors())
        if (tensor.name == name)
            return true;
    return false;
}

ModelConfig readHfLlamaLikeConfig(const nlohmann::json& json, const std::string& architecture,
                                  const std::string& file) {
    ModelConfig config;
    config.architecture = architecture;
    config.layerCount = requireJsonInteger(json, "num_hidden_layers", file);
    requireSupportedLayerCount(config.layerCount, file);
    config.hiddenSize = requireJsonInteger(json, "hidden_size", file);
    config.headCount = requireJsonInteger(json, "num_attention_heads", file);
    config.kvHeadCount =
        optionalJsonInteger(json, "num_key_value_heads", file).value_or(config.headCount);
    if (config.headCount <= 0)
        throwFileError(file, "num_attention_heads must be positive");
    // head_dim may be written as null (transformers' default: hidden / heads).
    config.headDim = json.contains("head_dim") && json["head_dim"].is_null()
                         ? config.hiddenSize / config.headCount
                         : optionalJsonInteger(json, "head_dim", file)
                               .value_or(config.hiddenSize / config.headCount);
    config.ffnSize = requireJsonInteger(json, "intermediate_size", file);
    config.vocabSize = requireJsonInteger(json, "vocab_size", file);
    config.contextLength = requireJsonInteger(json, "max_position_embeddings", file);
    config.ropeDims = config.headDim;
    config.ropePairing = RopePairing::RotateHalf;
    config.rmsNormEps = optionalJsonNumber(json, "rms_norm_eps", file).value_or(1e-6);
    config.tiedOutput = optionalJsonBool(json, "tie_word_embeddings", file).value_or(false);
    readHfRopeScaling(json, config, file);
    return config;
}

void requireHfHeadShape(const nlohmann::json& json, const std::string& architecture,
                        const std::string& file) {
    for (const char* key : {"head_dim", "num_key_value_heads"})
        if (!optionalJsonInteger(json, key, file))
            throwFileError(file, std::string("required field '") + key + "' is missing (" +
                                     architecture +
                                     " files must give it: transformers' default is a constant, "
                                     "not derived from the other sizes)");
}

void readHfRopeScaling(const nlohmann::json& json, ModelConfig& config, const std::string& file) {
    config.ropeBase = optionalJsonNumber(json, "rope_theta", file).value_or(10000.0);
    const nlohmann::json* scaling = nullptr;
    std::string key = "rope_scaling";
    if (const auto found = json.find("rope_scaling"); found != json.end() && !found->is_null())
        scaling = &*found;
    if (const auto found = json.find("rope_parameters"); found != json.end() && !found->is_null()) {
        scaling = &*found;
        key = "rope_parameters";
    }
    if (scaling == nullptr)
        return;
    if (!scaling->is_object())
        throwFileError(file, "'" + key + "' must be an object");
    if (const auto theta = optionalJsonNumber(*scaling, "rope_theta", file))
        config.ropeBase = *theta;
    std::string type = "default";
    for (const char* typeKey : {"rope_type", "type"})
        if (const auto found = scaling->find(typeKey); found != scaling->end()) {
            if (!found->is_string())
                throwFileError(file, "'" + key + "." + typeKey + "' must be a string");
            type = found->get<std::string>();
            break;
        }
    if (type == "default")
        return;
    const auto factor = optionalJsonNumber(*scaling, "factor", file);
    if (!factor)
        throwFileError(file, "'" + key + "' of type " + type + " has no 'factor'");
    if (type == "linear") {
        config.ropeLinearFactor = *factor;
    } else if (type == "llama3") {
        // Its GGUF form, rope_freqs.weight, is read by llama.cpp's llama loader only.
        if (config.architecture != "llama")
            throwFileError(file, "llama3 RoPE scaling is not supported for " + config.architecture +
                                     " (llama only)");
        Llama3RopeScaling& s = config.llama3Scaling;
        s.factor = *factor;
        s.lowFreqFactor = optionalJsonNumber(*scaling, "low_freq_factor", file).value_or(1.0);
        s.highFreqFactor = optionalJsonNumber(*scaling, "high_freq_factor", file).value_or(4.0);
        s.originalContext = requireJsonInteger(*scaling, "original_max_position_embeddings", file);
        if (!(s.factor >= 1 && s.lowFreqFactor > 0 && s.highFreqFactor > s.lowFreqFactor &&
              s.originalContext > 0))
            throwFileError(file, "'" + key +
                                     "' (llama3): needs factor ≥ 1, 0 < low_freq_factor < "
                                     "high_freq_factor and original_max_position_embeddings > 0");
        config.hasLlama3Scaling = true;
        config.ropeFrequencyDivisors = llama3RopeDivisors(s, config.ropeBase, config.ropeDims);
    } else {
        throwFileError(file, "'" + key + "' rope_type '" + type +
                                 "' is not supported (supported: default, linear, llama3)");
    }
}

void writeHfRopeScaling(const ModelConfig& c, nlohmann::json& json) {
    json["rope_theta"] = c.ropeBase;
    if (c.hasLlama3Scaling) {
        const Llama3RopeScaling& s = c.llama3Scaling;
        json["rope_scaling"] = {{"rope_type", "llama3"},
                                {"factor", s.factor},
                                {"low_freq_factor", s.lowFreqFactor},
                                {"high_freq_factor", s.highFreqFactor},
                                {"original_max_position_embeddings", s.originalContext}};
    } else if (!c.ropeFrequencyDivisors.empty()) {
        throw Error(
            "this model's RoPE frequency factors (GGUF rope_freqs.weight) cannot be written "
            "to config.json without the Llama 3 parameters that produced them");
    } else if (c.ropeLinearFactor != 1.0) {
        json["rope_scaling"] = {{"rope_type", "linear"}, {"factor", c.ropeLinearFactor}};
    }
}

nlohmann::json LlamaLayoutArchitecture::writeHfLlamaLikeConfig(const ModelConfig& c,
                                                               std::string_view architectures,
                                                               std::string_view torchDtype) const {
    nlohmann::json json{{"architectures", {architectures}},
                        {"model_type", hfModelType()},
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

}  // namespace inferlens
