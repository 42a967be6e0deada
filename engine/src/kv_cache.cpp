#include "kv_cache.h"

#include <algorithm>

#include "core/error.h"

namespace inferlens {

KvCache::KvCache(int64_t layerCount, int64_t kvHeadCount, int64_t headCount, int64_t headDim,
                 int64_t capacity)
    : layerCount_(layerCount),
      kvHeadCount_(kvHeadCount),
      headCount_(headCount),
      headDim_(headDim),
      rowWidth_(kvHeadCount * headDim),
      capacity_(capacity),
      keys_(layerCount),
      values_(layerCount) {
    if (capacity < 1)
        throw Error("context size must be at least 1, got " + std::to_string(capacity));
}

void KvCache::reserve(int64_t count) {
    if (count < 0 || count > capacity_ - size_)
        throw Error("the KV cache is full: " + std::to_string(size_) + " of " +
                    std::to_string(capacity_) + " tokens held, " + std::to_string(count) +
                    " more do not fit");
    const int64_t needed = size_ + count;
    if (needed <= allocatedTokens_)
        return;
    const int64_t blocks = (needed + kGrowthTokens - 1) / kGrowthTokens;
    allocatedTokens_ = std::min(capacity_, blocks * kGrowthTokens);
    for (int64_t layer = 0; layer < layerCount_; ++layer) {
        keys_[layer].resize(size_t(allocatedTokens_ * rowWidth_));
        values_[layer].resize(size_t(allocatedTokens_ * rowWidth_));
    }
}

void KvCache::checkReserved(int64_t position) const {
    if (position < 0 || position >= allocatedTokens_)
        throw Error("KV cache position " + std::to_string(position) + " was not reserved");
}

std::span<float> KvCache::keyRow(int64_t layer, int64_t position) {
    checkReserved(position);
    return {keys_[layer].data() + position * rowWidth_, size_t(rowWidth_)};
}

std::span<float> KvCache::valueRow(int64_t layer, int64_t position) {
    checkReserved(position);
    return {values_[layer].data() + position * rowWidth_, size_t(rowWidth_)};
}

std::span<const float> KvCache::keys(int64_t layer, int64_t count) const {
    checkReserved(count - 1);
    return {keys_[layer].data(), size_t(count * rowWidth_)};
}

std::span<const float> KvCache::values(int64_t layer, int64_t count) const {
    checkReserved(count - 1);
    return {values_[layer].data(), size_t(count * rowWidth_)};
}

void KvCache::commit(int64_t count) {
    if (count < 0 || size_ + count > allocatedTokens_)
        throw Error("committing " + std::to_string(count) +
                    " KV cache rows that were not reserved");
    size_ += count;
}

void KvCache::clear() {
    size_ = 0;
}

void KvCache::truncate(int64_t tokens) {
    if (tokens < 0 || tokens > size_)
        throw Error("cannot keep " + std::to_string(tokens) + " of the " + std::to_string(size_) +
                    " tokens in the KV cache");
    size_ = tokens;
}

KvCacheStats KvCache::stats() const {
    return kvCacheStats(layerCount_, kvHeadCount_, headCount_, headDim_, size_, capacity_,
                        allocatedTokens_);
}

KvCacheStats kvCacheStats(int64_t layerCount, int64_t kvHeadCount, int64_t headCount,
                          int64_t headDim, int64_t tokens, int64_t capacity,
                          int64_t allocatedTokens) {
    KvCacheStats stats;
    stats.tokens = tokens;
    stats.capacity = capacity;
    const int64_t bytesPerToken = 2 * kvHeadCount * headDim * int64_t(sizeof(float));  // K and V
    for (int64_t layer = 0; layer < layerCount; ++layer) {
        stats.bytesUsedPerLayer.push_back(tokens * bytesPerToken);
        stats.bytesAllocatedPerLayer.push_back(allocatedTokens * bytesPerToken);
        stats.bytesUsed += stats.bytesUsedPerLayer.back();
        stats.bytesAllocated += stats.bytesAllocatedPerLayer.back();
    }
    stats.bytesUsedFullMultiHead =
        layerCount * tokens * 2 * headCount * headDim * int64_t(sizeof(float));
    return stats;
}

}  // namespace inferlens
