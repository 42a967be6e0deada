#include "models/architecture.h"

#include <array>

#include "core/dtype_codec.h"
#include "core/error.h"
#include "io/gguf_file.h"

namespace inferlens {

namespace {

std::array<const Architecture*, 5> allArchitectures() {
    return {&glmArchitecture(), &llamaArchitecture(), &qwen2Architecture(), &qwen3Architecture(),
            &gemma3Architecture()};
}

// The per-pair RoPE divisors of llama.cpp's rope_freqs.weight (Llama 3.x), when the file has it.
// Only llama.cpp's llama loader reads that tensor; the others count it as one too many and refuse
// the file, and so does InferLens rather than run what llama.cpp would not.
std::vector<float> ropeFrequencyDivisors(const GgufFile& file, std::string_view arch,
                                         int64_t ropeDims) {
    for (const TensorView& tensor : file.tensors()) {
        if (tensor.name != "rope_freqs.weight")
            continue;
        if (arch != "llama")
            throwFileError(file.path(), "rope_freqs.weight is not used by " + std::string(arch) +
                                            " (llama.cpp reads it for llama only)");
        if (tensor.shape != std::vector<int64_t>{ropeDims / 2})
            throwFileError(file.path(),
                           "tensor 'rope_freqs.weight' has shape " + shapeToString(tensor.shape) +
                               " but " + std::to_string(ropeDims) + " rotated dimensions imply [" +
                               std::to_string(ropeDims / 2) + "]");
        std::vector<float> divisors(size_t(ropeDims / 2));
        decodeRow(tensor.dtype, tensor.data, divisors);
        return divisors;
    }
    return {};
}

}  // namespace

const Architecture& architectureByName(std::string_view name, const std::string& file) {
    for (const Architecture* arch : allArchitectures())
        if (arch->name() == name)
            return *arch;
    throwFileError(file,
                   "architecture '" + std::string(name) +
                       "' is not supported (supported: chatglm, llama, qwen2, qwen3, gemma3)");
}

const Architecture& architectureForHfConfig(const nlohmann::json& config, const std::string& file) {
    const auto type = config.find("model_type");
    if (type == config.end())
        throwFileError(file, "'model_type' is missing; cannot tell the architecture");
    if (!type->is_string())
        throwFileError(file, "'model_type' must be a string");
    for (const Architecture* arch : allArchitectures())
        if (arch->hfModelType() == type->get<std::string>())
            return *arch;
    throwFileError(file, "model_type '" + type->get<std::string>() +
                             "' is not supported (supported: chatglm, llama, qwen2, qwen3, "
                             "gemma3_text)");
}

ModelConfig readGgufHyperParameters(const GgufFile& file, std::string_view arch,
                                    int64_t (*defaultRopeDims)(int64_t headDim)) {
    const std::string prefix = std::string(arch) + ".";
    ModelConfig config;
    config.architecture = std::string(arch);
    config.layerCount = file.requireInteger(prefix + "block_count");
    requireSupportedLayerCount(config.layerCount, file.path());
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
        if (type != nullptr && *type == "linear") {
            const auto factor = file.optionalNumber(prefix + "rope.scaling.factor");
            if (!factor)
                throwFileError(file.path(), prefix + "rope.scaling.type is linear but " + prefix +
                                                "rope.scaling.factor is missing");
            config.ropeLinearFactor = *factor;
        } else if (type == nullptr || *type != "none") {
            throwFileError(file.path(),
                           prefix + "rope.scaling.type = " + (type ? "'" + *type + "'" : "?") +
                               " is not supported (supported: none, linear; Llama 3 scaling "
                               "comes as the rope_freqs.weight tensor)");
        }
    } else if (const auto linear = file.optionalNumber(prefix + "rope.scale_linear")) {
        config.ropeLinearFactor = *linear;
    }
    config.ropeFrequencyDivisors = ropeFrequencyDivisors(file, arch, config.ropeDims);
    return config;
}

std::vector<GgufKeyValue> writeGgufHyperParameters(const ModelConfig& c) {
    const std::string p = c.architecture + ".";
    std::vector<GgufKeyValue> values{
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
    if (c.ropeLinearFactor != 1.0) {
        values.push_back({p + "rope.scaling.type", {std::string("linear")}});
        values.push_back({p + "rope.scaling.factor", {float(c.ropeLinearFactor)}});
    }
    return values;
}

}  // namespace inferlens
