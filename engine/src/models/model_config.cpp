#include "models/model_config.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace inferlens {
namespace {

void requireRange(const std::string& file, const char* name, int64_t value, int64_t lowest,
                  int64_t highest) {
    if (value < lowest || value > highest)
        throwFileError(file, std::string(name) + " = " + std::to_string(value) +
                                 " is outside the supported range [" + std::to_string(lowest) +
                                 ", " + std::to_string(highest) + "]");
}

}  // namespace

double ModelConfig::scoreScale() const {
    return attentionScale > 0 ? attentionScale : 1.0 / std::sqrt(double(headDim));
}

std::vector<bool> slidingLayersFromPattern(int64_t layers, int64_t pattern) {
    std::vector<bool> sliding(size_t(std::max<int64_t>(layers, 0)));
    for (int64_t i = 0; i < layers; ++i)
        sliding[size_t(i)] = pattern == 0 || i % pattern < pattern - 1;
    return sliding;
}

void requireSupportedLayerCount(int64_t layers, const std::string& file) {
    requireRange(file, "layer count", layers, 1, kMaxLayerCount);
}

void validateConfig(const ModelConfig& c, const std::string& file) {
    requireSupportedLayerCount(c.layerCount, file);
    requireRange(file, "hidden size", c.hiddenSize, 1, 1 << 20);
    requireRange(file, "head count", c.headCount, 1, 4096);
    requireRange(file, "KV head count", c.kvHeadCount, 1, c.headCount);
    requireRange(file, "head dimension", c.headDim, 2, 4096);
    requireRange(file, "feed-forward size", c.ffnSize, 1, 1 << 22);
    requireRange(file, "vocabulary size", c.vocabSize, 1, 1 << 24);
    requireRange(file, "context length", c.contextLength, 1, 1 << 24);
    requireRange(file, "RoPE dimensions", c.ropeDims, 0, c.headDim);
    if (c.headCount % c.kvHeadCount != 0)
        throwFileError(file, "head count " + std::to_string(c.headCount) +
                                 " is not a multiple of the KV head count " +
                                 std::to_string(c.kvHeadCount));
    if (c.headDim % 2 != 0 || c.ropeDims % 2 != 0)
        throwFileError(file, "head dimension and RoPE dimensions must be even");
    if (!(c.rmsNormEps > 0 && c.rmsNormEps < 1))
        throwFileError(file,
                       "RMSNorm epsilon " + std::to_string(c.rmsNormEps) + " is not in (0, 1)");
    if (!(c.ropeBase > 1 && c.ropeBase < 1e12))
        throwFileError(file, "RoPE base " + std::to_string(c.ropeBase) + " is not in (1, 1e12)");
    if (!(c.embeddingScale > 0 && c.embeddingScale < 1e6) ||
        !(c.attentionScale >= 0 && c.attentionScale < 1e6) ||
        !(c.finalLogitSoftcap >= 0 && c.finalLogitSoftcap < 1e6))
        throwFileError(file, "embedding scale, attention scale or logit softcap out of range");
    if (!(c.ropeLinearFactor >= 1 && c.ropeLinearFactor < 1e6))
        throwFileError(file, "RoPE linear scaling factor " + std::to_string(c.ropeLinearFactor) +
                                 " is not in [1, 1e6)");
    if (!c.ropeFrequencyDivisors.empty()) {
        if (int64_t(c.ropeFrequencyDivisors.size()) != c.ropeDims / 2)
            throwFileError(
                file, "RoPE frequency factors: " + std::to_string(c.ropeFrequencyDivisors.size()) +
                          " values for " + std::to_string(c.ropeDims / 2) + " rotated pairs");
        for (float divisor : c.ropeFrequencyDivisors)
            if (!(divisor > 0 && divisor < 1e6))
                throwFileError(file, "RoPE frequency factor " + std::to_string(divisor) +
                                         " is not in (0, 1e6)");
    }
    if (c.slidingWindow < 0 || c.slidingWindow > (int64_t(1) << 24))
        throwFileError(file,
                       "sliding window " + std::to_string(c.slidingWindow) + " is out of range");
    if (!c.slidingLayers.empty() && int64_t(c.slidingLayers.size()) != c.layerCount)
        throwFileError(file, "the sliding-window layer pattern names " +
                                 std::to_string(c.slidingLayers.size()) +
                                 " layers, the model has " + std::to_string(c.layerCount));
    if (c.slidingWindow > 0 && !(c.localRopeBase > 1 && c.localRopeBase < 1e12))
        throwFileError(
            file, "local RoPE base " + std::to_string(c.localRopeBase) + " is not in (1, 1e12)");
}

}  // namespace inferlens
