#include "models/model_config.h"

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

void validateConfig(const ModelConfig& c, const std::string& file) {
    requireRange(file, "layer count", c.layerCount, 1, 1024);
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
}

}  // namespace inferlens
