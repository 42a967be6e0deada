#include "models/architecture.h"

#include "core/error.h"
#include "io/gguf_file.h"

namespace inferlens {

const Architecture& architectureByName(std::string_view name, const std::string& file) {
    for (const Architecture* arch : {&glmArchitecture(), &llamaArchitecture()})
        if (arch->name() == name)
            return *arch;
    throwFileError(file, "architecture '" + std::string(name) +
                             "' is not supported (supported: chatglm, llama)");
}

const Architecture& architectureForHfConfig(const nlohmann::json& config, const std::string& file) {
    const auto type = config.find("model_type");
    if (type == config.end())
        throwFileError(file, "'model_type' is missing; cannot tell the architecture");
    if (!type->is_string())
        throwFileError(file, "'model_type' must be a string");
    for (const Architecture* arch : {&glmArchitecture(), &llamaArchitecture()})
        if (arch->hfModelType() == type->get<std::string>())
            return *arch;
    throwFileError(file, "model_type '" + type->get<std::string>() +
                             "' is not supported (supported: chatglm, llama)");
}

ModelConfig readGgufHyperParameters(const GgufFile& file, std::string_view arch,
                                    int64_t (*defaultRopeDims)(int64_t headDim)) {
    const std::string prefix = std::string(arch) + ".";
    ModelConfig config;
    config.architecture = std::string(arch);
    config.layerCount = file.requireInteger(prefix + "block_count");
    config.hiddenSize = file.requireInteger(prefix + "embedding_length");
    config.headCount = file.requireInteger(prefix + "attention.head_count");
    config.kvHeadCount =
        file.optionalInteger(prefix + "attention.head_count_kv").value_or(config.headCount);
    config.ffnSize = file.requireInteger(prefix + "feed_forward_length");
    config.contextLength = file.requireInteger(prefix + "context_length");
    if (config.headCount <= 0)
        throwFileError(file.path(), "attention.head_count must be positive");
    config.headDim = file.optionalInteger(prefix + "attention.key_length")
                         .value_or(config.hiddenSize / config.headCount);
    const auto valueLength = file.optionalInteger(prefix + "attention.value_length");
    if (valueLength && *valueLength != config.headDim)
        throwFileError(file.path(), "attention.key_length and value_length differ");
    config.ropeDims = file.optionalInteger(prefix + "rope.dimension_count")
                          .value_or(defaultRopeDims(config.headDim));
    config.ropeBase = file.optionalNumber(prefix + "rope.freq_base").value_or(10000.0);
    const auto eps = file.optionalNumber(prefix + "attention.layer_norm_rms_epsilon");
    if (!eps)
        throwFileError(file.path(), "required metadata '" + prefix +
                                        "attention.layer_norm_rms_epsilon' is missing");
    config.rmsNormEps = *eps;
    if (const auto* scaling = file.find(prefix + "rope.scaling.type")) {
        const auto* type = scaling->asString();
        if (type == nullptr || *type != "none")
            throwFileError(file.path(), "RoPE scaling is not supported yet");
    }
    return config;
}

std::vector<GgufKeyValue> writeGgufHyperParameters(const ModelConfig& c) {
    const std::string p = c.architecture + ".";
    return {
        {"general.architecture", {c.architecture}},
        {p + "context_length", {uint32_t(c.contextLength)}},
        {p + "embedding_length", {uint32_t(c.hiddenSize)}},
        {p + "block_count", {uint32_t(c.layerCount)}},
        {p + "feed_forward_length", {uint32_t(c.ffnSize)}},
        {p + "attention.head_count", {uint32_t(c.headCount)}},
        {p + "attention.head_count_kv", {uint32_t(c.kvHeadCount)}},
        {p + "attention.key_length", {uint32_t(c.headDim)}},
        {p + "attention.value_length", {uint32_t(c.headDim)}},
        {p + "attention.layer_norm_rms_epsilon", {float(c.rmsNormEps)}},
        {p + "rope.dimension_count", {uint32_t(c.ropeDims)}},
        {p + "rope.freq_base", {float(c.ropeBase)}},
        {p + "vocab_size", {uint32_t(c.vocabSize)}},
    };
}

}  // namespace inferlens
