#include "kv_cache.h"

#include <algorithm>

#include "core/error.h"

namespace inferlens {

KvCache::KvCache(int64_t layerCount, int64_t kvHeadCount, int64_t headCount, int64_t headDim,
                 int64_t capacity)
    : layerCount_(layerCount),
      headCount_(headCount),
      headDim_(headDim),
      rowWidth_(kvHeadCount * headDim),
      capacity_(capacity),
      keys_(layerCount),
      values_(layerCount) {
    if (capacity < 1)
        throw Error("context size must be at least 1, got " + std::to_string(capacity));
}

void KvCache::ensureRoomForPending() {
    if (size_ >= capacity_)
        throw Error("the KV cache is full (" + std::to_string(capacity_) + " tokens)");
    if (size_ < allocatedTokens_)
        return;
    allocatedTokens_ = std::min(capacity_, allocatedTokens_ + kGrowthTokens);
    for (int64_t layer = 0; layer < layerCount_; ++layer) {
        keys_[layer].resize(allocatedTokens_ * rowWidth_);
        values_[layer].resize(allocatedTokens_ * rowWidth_);
    }
}

std::span<float> KvCache::pendingKey(int64_t layer) {
    ensureRoomForPending();
    return {keys_[layer].data() + size_ * rowWidth_, size_t(rowWidth_)};
}

std::span<float> KvCache::pendingValue(int64_t layer) {
    ensureRoomForPending();
    return {values_[layer].data() + size_ * rowWidth_, size_t(rowWidth_)};
}

std::span<const float> KvCache::keys(int64_t layer) const {
    return {keys_[layer].data(), size_t((size_ + 1) * rowWidth_)};
}

std::span<const float> KvCache::values(int64_t layer) const {
    return {values_[layer].data(), size_t((size_ + 1) * rowWidth_)};
}

void KvCache::commitToken() {
    if (size_ >= capacity_)
        throw Error("the KV cache is full (" + std::to_string(capacity_) + " tokens)");
    ++size_;
}

void KvCache::clear() {
    size_ = 0;
}

KvCacheStats KvCache::stats() const {
    KvCacheStats stats;
    stats.tokens = size_;
    stats.capacity = capacity_;
    const int64_t bytesPerToken = 2 * rowWidth_ * int64_t(sizeof(float));  // K and V
    for (int64_t layer = 0; layer < layerCount_; ++layer) {
        stats.bytesUsedPerLayer.push_back(size_ * bytesPerToken);
        stats.bytesAllocatedPerLayer.push_back(
            int64_t(keys_[layer].size() + values_[layer].size()) * int64_t(sizeof(float)));
        stats.bytesUsed += stats.bytesUsedPerLayer.back();
        stats.bytesAllocated += stats.bytesAllocatedPerLayer.back();
    }
    stats.bytesUsedFullMultiHead =
        layerCount_ * size_ * 2 * headCount_ * headDim_ * int64_t(sizeof(float));
    return stats;
}

}  // namespace inferlens
