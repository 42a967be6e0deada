#pragma once
// The KV cache: for every layer, the rotated keys and the values of every token processed so far,
// [tokens, kv_heads × head_dim] in f32. Storage grows in blocks of tokens up to a fixed capacity
// (the context size), so "allocated" and "used" differ and both are reported. A token's K/V rows
// are written layer by layer while the token runs, and the token counts as held once commitToken()
// is called after its last layer.

#include <cstdint>
#include <span>
#include <vector>

namespace inferlens {

struct KvCacheStats {
    int64_t tokens = 0;
    int64_t capacity = 0;
    std::vector<int64_t> bytesUsedPerLayer;
    std::vector<int64_t> bytesAllocatedPerLayer;
    int64_t bytesUsed = 0;
    int64_t bytesAllocated = 0;
    // What the same tokens would take if every query head had its own K/V head (no GQA/MQA
    // sharing).
    int64_t bytesUsedFullMultiHead = 0;
};

class KvCache {
  public:
    KvCache(int64_t layerCount, int64_t kvHeadCount, int64_t headCount, int64_t headDim,
            int64_t capacity);

    int64_t size() const { return size_; }
    int64_t capacity() const { return capacity_; }
    bool full() const { return size_ >= capacity_; }
    int64_t rowWidth() const { return rowWidth_; }

    // The K and V rows of the token at position size(), to be written by `layer`.
    std::span<float> pendingKey(int64_t layer);
    std::span<float> pendingValue(int64_t layer);
    // K and V rows of position 0 .. size() (the pending token included), [positions, rowWidth].
    std::span<const float> keys(int64_t layer) const;
    std::span<const float> values(int64_t layer) const;

    void commitToken();
    void clear();  // forgets all tokens; keeps the allocation
    KvCacheStats stats() const;

  private:
    static constexpr int64_t kGrowthTokens = 256;
    void ensureRoomForPending();

    int64_t layerCount_, headCount_, headDim_, rowWidth_, capacity_;
    int64_t size_ = 0;
    int64_t allocatedTokens_ = 0;
    std::vector<std::vector<float>> keys_, values_;  // per layer
};

}  // namespace inferlens
