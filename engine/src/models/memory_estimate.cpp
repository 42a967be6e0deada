#include "models/memory_estimate.h"

#include "core/error.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace inferlens {

MemoryEstimate estimateMemory(const ModelConfig& c, int64_t weightBytes, int64_t contextSize,
                              int64_t promptTokens, KvType kvType) {
    MemoryEstimate estimate;
    estimate.weightBytes = weightBytes;
    estimate.contextSize = contextSize;
    // Keys and values for every layer and position (kv_cache.h).
    estimate.kvCacheBytes =
        2 * c.layerCount * contextSize * kvRowBytes(kvType, c.kvHeadCount, c.headDim);
    // The residual streams of a prompt, one token's scratch vectors and one row of logits: small
    // next to the weights, but counted so that a tiny model's estimate is not just its file size.
    const int64_t tokens = std::clamp<int64_t>(promptTokens, 1, contextSize);
    estimate.workBytes = (tokens * c.hiddenSize + 4 * c.hiddenSize + 3 * c.headCount * c.headDim +
                          2 * c.ffnSize + contextSize + c.vocabSize) *
                         4;
    return estimate;
}

std::optional<int64_t> availableMemoryBytes() {
    std::ifstream meminfo("/proc/meminfo");
    std::string key, unit;
    int64_t kibibytes = 0;
    while (meminfo >> key >> kibibytes) {
        std::getline(meminfo, unit);
        if (key == "MemAvailable:")
            return kibibytes * 1024;
    }
    return std::nullopt;
}

std::string gigabytesText(int64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f GB", double(bytes) / 1e9);
    return text;
}

void requireMemory(const MemoryEstimate& estimate, std::optional<int64_t> availableBytes,
                   const std::string& path) {
    if (!availableBytes || estimate.total() <= *availableBytes)
        return;
    throwFileError(path, "needs " + gigabytesText(estimate.total()) + " (weights " +
                             gigabytesText(estimate.weightBytes) + ", KV cache " +
                             gigabytesText(estimate.kvCacheBytes) + " for " +
                             std::to_string(estimate.contextSize) + " tokens, work " +
                             gigabytesText(estimate.workBytes) + ") but only " +
                             gigabytesText(*availableBytes) +
                             " of memory are free; choose a smaller --ctx-size, a quantized "
                             "model, or close programs");
}

bool prefetchWeights(const ModelFiles& files,
                     const std::function<bool(int64_t, int64_t)>& progress) {
    // Tensors in address order, so that the reads go through each file front to back.
    std::vector<const TensorView*> tensors;
    for (const auto& [name, tensor] : files.tensors)
        tensors.push_back(&tensor);
    std::sort(tensors.begin(), tensors.end(),
              [](const TensorView* a, const TensorView* b) { return a->data < b->data; });
    const int64_t total = files.weightBytes();
    constexpr int64_t kPage = 4096;
    constexpr int64_t kReportEvery = int64_t(8) << 20;
    int64_t done = 0, reported = 0;
    volatile unsigned char sink = 0;  // keeps the reads from being optimised away
    for (const TensorView* tensor : tensors) {
        const auto* bytes = reinterpret_cast<const unsigned char*>(tensor->data);
        for (int64_t offset = 0; offset < tensor->byteCount; offset += kPage) {
            sink = sink ^ bytes[offset];
            if (done + offset - reported >= kReportEvery) {
                reported = done + offset;
                if (!progress(reported, total))
                    return false;
            }
        }
        done += tensor->byteCount;
    }
    return progress(total, total);
}

}  // namespace inferlens
