#pragma once
// The KV cache: for every layer, the rotated keys and the values of every token processed so far,
// [tokens, kv_heads × head_dim] in f32. Storage grows in blocks of tokens up to a fixed capacity
// (the context size), so "allocated" and "used" differ and both are reported.
//
// A step (the prompt, or one new token) first reserves room for its tokens, then every layer writes
// the K/V rows of those tokens at positions size() .. size() + count − 1, and the step commits them
// after its last layer. Until then they are not counted, so a cancelled step leaves the cache as it
// was.

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

// The statistics of an f32 cache holding `tokens` of `capacity` tokens with `allocatedTokens` rows
// allocated in every layer (a GPU cache allocates the whole capacity at once).
KvCacheStats kvCacheStats(int64_t layerCount, int64_t kvHeadCount, int64_t headCount,
                          int64_t headDim, int64_t tokens, int64_t capacity,
                          int64_t allocatedTokens);

class KvCache {
  public:
    KvCache(int64_t layerCount, int64_t kvHeadCount, int64_t headCount, int64_t headDim,
            int64_t capacity);

    int64_t size() const { return size_; }
    int64_t capacity() const { return capacity_; }
    bool full() const { return size_ >= capacity_; }
    int64_t rowWidth() const { return rowWidth_; }

    // Makes room for `count` tokens after the committed ones; throws Error past the capacity.
    void reserve(int64_t count);
    // The K and V rows of one reserved position, written by `layer`.
    std::span<float> keyRow(int64_t layer, int64_t position);
    std::span<float> valueRow(int64_t layer, int64_t position);
    // K and V rows of positions 0 .. count − 1, [count, rowWidth].
    std::span<const float> keys(int64_t layer, int64_t count) const;
    std::span<const float> values(int64_t layer, int64_t count) const;

    void commit(int64_t count);
    void clear();  // forgets all tokens; keeps the allocation
    // Forgets the tokens after the first `tokens` (0 ≤ tokens ≤ size()); keeps the allocation.
    void truncate(int64_t tokens);
    KvCacheStats stats() const;

  private:
    static constexpr int64_t kGrowthTokens = 256;
    void checkReserved(int64_t position) const;

    int64_t layerCount_, kvHeadCount_, headCount_, headDim_, rowWidth_, capacity_;
    int64_t size_ = 0;
    int64_t allocatedTokens_ = 0;
    std::vector<std::vector<float>> keys_, values_;  // per layer
};

}  // namespace inferlens
