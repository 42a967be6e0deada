// Gemma 3 text models (gemma-3-270m, 1b; the language part of the larger ones): token embeddings
// scaled by √hidden; four RMSNorms per layer (before and after attention, before and after the
// FFN), each multiplying by 1 + w in Hugging Face files (llama.cpp's converter stores 1 + w in
// GGUF); per-head Q/K RMSNorm before RoPE; a GELU-tanh gated FFN; attention scaled by
// query_pre_attn_scalar^−½; local layers that see only the last `sliding_window` positions and
// rotate with their own base (rope_local_base_freq, 10,000), five of every six layers (layer i is
// global when i mod 6 = 5, as llama.cpp and transformers decide it); rotate-half RoPE in both
// layouts; tied output; optional final logit soft-capping. The window is the model's own mask,
// independent of the user's sliding KV cache (models/model.cpp says what happens when both apply).

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "io/gguf_file.h"
#include "io/json_file.h"
#include "models/architecture.h"
#include "models/llama_layout.h"

namespace inferlens {
namespace {

constexpr int64_t kDefaultPattern = 6;  // llama.cpp's and transformers' default for Gemma 3
constexpr double kDefaultLocalBase = 10000.0;

// llama.cpp's Gemma 3 attention scale: 1/√head_dim, except the 27B model (62 layers), whose
// query_pre_attn_scalar is hidden / heads.
double ggufDefaultScale(const ModelConfig& c) {
    return c.layerCount == 62 ? 1.0 / std::sqrt(double(c.hiddenSize / c.headCount))
                              : 1.0 / std::sqrt(double(c.headDim));
}

void setGemmaFeatures(ModelConfig& config) {
    config.ropePairing = RopePairing::RotateHalf;
    config.ffnActivation = FfnActivation::GeluTanh;
    config.embeddingScale = std::sqrt(double(config.hiddenSize));
    config.qkNorm = true;
    config.postNorms = true;
}

std::vector<bool> ggufSlidingLayers(const GgufFile& file, int64_t layers) {
    const GgufValue* value = file.find("gemma3.attention.sliding_window_pattern");
    if (value == nullptr)
        return slidingLayersFromPattern(layers, kDefaultPattern);
    // llama.cpp reads the period as uint32, so 0 is a pattern (every layer slides), but a
    // negative one is not.
    if (const auto period = value->asInteger()) {
        if (*period < 0)
            throwFileError(file.path(), "gemma3.attention.sliding_window_pattern = " +
                                            std::to_string(*period) + " must not be negative");
        return slidingLayersFromPattern(layers, *period);
    }
    const GgufArray* array = value->asArray();
    if (array == nullptr || array->elementType != GgufType::Bool ||
        int64_t(array->size()) != layers)
        throwFileError(file.path(),
                       "gemma3.attention.sliding_window_pattern must be an integer or "
                       "an array of one bool per layer (" +
                           std::to_string(layers) + ")");
    std::vector<bool> sliding(static_cast<size_t>(layers));
    for (int64_t i = 0; i < layers; ++i)
        sliding[size_t(i)] = array->scalarBytes[size_t(i)] != std::byte{0};
    return sliding;
}

// The global layers' RoPE (rope_theta, default 1,000,000, and rope_scaling) and the local base,
// from either form transformers writes: 4.x rope_theta / rope_scaling / rope_local_base_freq, or
// 5.x rope_parameters {full_attention: {…}, sliding_attention: {…}}.
void readGemmaRope(const nlohmann::json& json, ModelConfig& config, const std::string& file) {
    nlohmann::json global{{"rope_theta", 1000000.0}};
    config.localRopeBase =
        optionalJsonNumber(json, "rope_local_base_freq", file).value_or(kDefaultLocalBase);
    if (const auto found = json.find("rope_theta"); found != json.end())
        global["rope_theta"] = *found;
    if (const auto found = json.find("rope_scaling"); found != json.end())
        global["rope_scaling"] = *found;
    if (const auto found = json.find("rope_parameters");
        found != json.end() && found->is_object() && found->contains("full_attention")) {
        global = {{"rope_parameters", (*found)["full_attention"]}};
        if (const auto local = found->find("sliding_attention");
            local != found->end() && local->is_object())
            config.localRopeBase =
                optionalJsonNumber(*local, "rope_theta", file).value_or(kDefaultLocalBase);
    }
    readHfRopeScaling(global, config, file);
}

std::vector<bool> hfSlidingLayers(const nlohmann::json& json, int64_t layers,
                                  const std::string& file) {
    const auto types = json.find("layer_types");
    if (types == json.end() || types->is_null()) {
        // transformers makes layer i global when (i + 1) mod pattern = 0: 0 divides by zero there.
        const int64_t pattern =
            optionalJsonInteger(json, "sliding_window_pattern", file).value_or(kDefaultPattern);
        if (pattern < 1)
            throwFileError(file, "'sliding_window_pattern' = " + std::to_string(pattern) +
                                     " must be at least 1");
        return slidingLayersFromPattern(layers, pattern);
    }
    if (!types->is_array() || int64_t(types->size()) != layers)
        throwFileError(
            file, "'layer_types' must list one type per layer (" + std::to_string(layers) + ")");
    std::vector<bool> sliding;
    for (const auto& type : *types) {
        if (type == "sliding_attention")
            sliding.push_back(true);
        else if (type == "full_attention")
            sliding.push_back(false);
        else
            throwFileError(file, "'layer_types' entry " + describeJson(type) +
                                     " is neither sliding_attention nor full_attention");
    }
    return sliding;
}

void refuseIfSet(const nlohmann::json& json, const char* key, const std::string& file) {
    if (const auto found = json.find(key);
        found != json.end() && !found->is_null() && !(found->is_boolean() && !found->get<bool>()))
        throwFileError(file, std::string("'") + key + "' = " + describeJson(*found) +
                                 " is not supported for gemma3");
}

class Gemma3Architecture final : public LlamaLayoutArchitecture {
  public:
    Gemma3Architecture() : LlamaLayoutArchitecture({.normOffsetInHf = true}) {}

    std::string_view name() const override { return "gemma3"; }
    std::string_view hfModelType() const override { return "gemma3_text"; }

    ModelConfig configFromGguf(const GgufFile& file, int64_t vocabSize) const override {
        ModelConfig config = readGgufConfig(file, vocabSize, RopePairing::RotateHalf);
        setGemmaFeatures(config);
        config.slidingWindow = file.optionalInteger("gemma3.attention.sliding_window").value_or(0);
        if (config.slidingWindow > 0) {
            config.slidingLayers = ggufSlidingLayers(file, config.layerCount);
            config.localRopeBase =
                file.optionalNumber("gemma3.rope.freq_base_swa").value_or(kDefaultLocalBase);
        }
        config.finalLogitSoftcap =
            file.optionalNumber("gemma3.final_logit_softcapping").value_or(0.0);
        if (config.headCount > 0)
            config.attentionScale =
                file.optionalNumber("gemma3.attention.scale").value_or(ggufDefaultScale(config));
        return config;
    }

    ModelConfig configFromHf(const nlohmann::json& json, const std::string& file) const override {
        refuseIfSet(json, "attn_logit_softcapping", file);
        refuseIfSet(json, "attention_bias", file);
        refuseIfSet(json, "use_bidirectional_attention", file);
        if (const auto act = json.find("hidden_activation");
            act != json.end() && *act != "gelu_pytorch_tanh")
            throwFileError(file, "hidden_activation " + describeJson(*act) +
                                     " is not supported for gemma3 (gelu_pytorch_tanh)");
        requireHfHeadShape(json, "gemma3", file);
        ModelConfig config = readHfLlamaLikeConfig(json, "gemma3", file);
        setGemmaFeatures(config);
        config.normWeightOffset = 1.0;
        config.tiedOutput = optionalJsonBool(json, "tie_word_embeddings", file).value_or(true);
        readGemmaRope(json, config, file);
        config.slidingLayers = hfSlidingLayers(json, config.layerCount, file);
        config.slidingWindow = optionalJsonInteger(json, "sliding_window", file).value_or(4096);
        // A window of 0 would silently make the sliding layers global (and rotate them with the
        // global base).
        const bool anySliding = std::find(config.slidingLayers.begin(), config.slidingLayers.end(),
                                          true) != config.slidingLayers.end();
        if (anySliding && config.slidingWindow < 1)
            throwFileError(file, "'sliding_window' = " + std::to_string(config.slidingWindow) +
                                     " must be at least 1 when layers slide");
        const double scalar =
            optionalJsonNumber(json, "query_pre_attn_scalar", file).value_or(256.0);
        if (!(scalar > 0))
            throwFileError(file, "query_pre_attn_scalar must be positive");
        config.attentionScale = 1.0 / std::sqrt(scalar);
        config.finalLogitSoftcap =
            optionalJsonNumber(json, "final_logit_softcapping", file).value_or(0.0);
        return config;
    }

    std::vector<GgufKeyValue> ggufMetadata(const ModelConfig& c) const override {
        std::vector<GgufKeyValue> values = LlamaLayoutArchitecture::ggufMetadata(c);
        if (c.slidingWindow > 0) {
            values.push_back({"gemma3.attention.sliding_window", {uint32_t(c.slidingWindow)}});
            values.push_back({"gemma3.rope.freq_base_swa", {float(c.localRopeBase)}});
            if (c.slidingLayers != slidingLayersFromPattern(c.layerCount, kDefaultPattern)) {
                GgufArray pattern;
                pattern.elementType = GgufType::Bool;
                for (bool sliding : c.slidingLayers)
                    pattern.scalarBytes.push_back(std::byte(sliding ? 1 : 0));
                values.push_back({"gemma3.attention.sliding_window_pattern", {pattern}});
            }
        }
        if (c.finalLogitSoftcap > 0)
            values.push_back({"gemma3.final_logit_softcapping", {float(c.finalLogitSoftcap)}});
        // llama.cpp ignores this key for Gemma 3 and uses its own rule (ggufDefaultScale); written
        // only when the model departs from that rule, so that InferLens reads it back.
        if (std::abs(c.scoreScale() - ggufDefaultScale(c)) > 1e-7 * ggufDefaultScale(c))
            values.push_back({"gemma3.attention.scale", {float(c.scoreScale())}});
        return values;
    }

    nlohmann::json hfConfig(const ModelConfig& c, std::string_view torchDtype) const override {
        nlohmann::json layerTypes = nlohmann::json::array();
        for (int64_t i = 0; i < c.layerCount; ++i)
            layerTypes.push_back(c.isSlidingLayer(i) ? "sliding_attention" : "full_attention");
        // transformers types query_pre_attn_scalar as an integer: write the integer that the
        // scale came from (1/√scale² is off by rounding), or the exact value if it is none.
        double scalar = 1.0 / (c.scoreScale() * c.scoreScale());
        if (std::abs(scalar - std::round(scalar)) < 1e-6 * scalar)
            scalar = std::round(scalar);
        nlohmann::json json = writeHfLlamaLikeConfig(c, "Gemma3ForCausalLM", torchDtype);
        json.update(
            {{"hidden_activation", "gelu_pytorch_tanh"},
             {"query_pre_attn_scalar", std::round(scalar) == scalar
                                           ? nlohmann::json(int64_t(scalar))
                                           : nlohmann::json(scalar)},
             {"sliding_window", c.slidingWindow > 0 ? c.slidingWindow : c.contextLength},
             {"layer_types", layerTypes},
             {"rope_local_base_freq", c.localRopeBase},
             {"final_logit_softcapping",
              c.finalLogitSoftcap > 0 ? nlohmann::json(c.finalLogitSoftcap) : nlohmann::json()},
             {"attn_logit_softcapping", nullptr},
             {"attention_bias", false},
             {"pad_token_id", 0}});
        return json;
    }
};

}  // namespace

const Architecture& gemma3Architecture() {
    static const Gemma3Architecture instance;
    return instance;
}

}  // namespace inferlens
