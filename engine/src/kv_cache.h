#pragma once
// The KV cache: for every layer, the rotated keys and the values of the tokens processed so far,
// one row of kv_heads × head_dim numbers per token, stored as f32, f16 or int8
// (backend/cpu/kv_rows.h). Storage grows in blocks of tokens up to a fixed capacity, so
// "allocated" and "used" differ and both are reported.
//
// A step (the prompt, or one new token) first reserves room for its tokens, then every layer
// stores the K/V rows of those tokens at rows size() .. size() + count − 1, and the step commits
// them after its last layer. Until then they are not counted, so a cancelled step leaves the
// cache's tokens as they were.
//
// A sliding cache never fills up: it keeps the first `sinks` tokens (the "attention sinks" that
// models pour otherwise unneeded attention into) and the last W = capacity − sinks tokens,
// evicting the oldest of the others. Every token sees the sinks and the last W positions (itself
// included), whatever the size of its step: during a step of up to W tokens the cache also holds
// the W − 1 tokens before it, and the attention kernels mask, row by row, those a row must not
// see (AttentionLayout::windowStart); after the step it is cut back to the capacity. Rows then no
// longer equal positions: row r holds position r below the sinks and r + evicted() above. Keys
// keep the rotation of their original position (RoPE is never re-applied), so a query at
// position t scores every key it sees at its true distance t − p; the README's "The KV cache's
// storage and its sliding window" says why.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "backend/cpu/kv_rows.h"

namespace inferlens {

struct KvCacheOptions {
    KvType type = KvType::F32;
    bool slides = false;  // evict instead of refusing once the capacity is reached
    int64_t sinks = 0;    // with slides: the first tokens that are never evicted
};

struct KvCacheStats {
    int64_t tokens = 0;  // held now
    int64_t capacity = 0;
    std::vector<int64_t> bytesUsedPerLayer;
    std::vector<int64_t> bytesAllocatedPerLayer;
    int64_t bytesUsed = 0;
    int64_t bytesAllocated = 0;
    // What the same tokens would take if every query head had its own K/V head (no GQA/MQA
    // sharing), in the same storage type.
    int64_t bytesUsedFullMultiHead = 0;
    KvType type = KvType::F32;
    int64_t bytesUsedAsF32 = 0;  // the same tokens in an f32 cache: what f16 and int8 save
    bool slides = false;
    int64_t sinkTokens = 0;
    int64_t evictedTokens = 0;  // positions dropped by the sliding window so far
};

// The statistics of a `type` cache holding `tokens` of `capacity` tokens with `allocatedTokens`
// rows allocated in every layer (a GPU cache allocates the whole capacity at once).
KvCacheStats kvCacheStats(int64_t layerCount, int64_t kvHeadCount, int64_t headCount,
                          int64_t headDim, int64_t tokens, int64_t capacity,
                          int64_t allocatedTokens, KvType type = KvType::F32);

// Rows a cache of `capacity` tokens allocates at most in each layer: the capacity, or for a
// sliding cache what a step needs (the sinks, the W − 1 tokens before the step and its W) plus a
// block of spare rows (see KvCache).
int64_t kvCacheRowsAtMost(int64_t capacity, const KvCacheOptions& options);

class KvCache {
  public:
    // `capacity`: the tokens held at most (with options.slides, the sinks plus the window).
    KvCache(int64_t layerCount, int64_t kvHeadCount, int64_t headCount, int64_t headDim,
            int64_t capacity, KvCacheOptions options = {});

    int64_t size() const { return size_; }  // tokens held
    int64_t capacity() const { return capacity_; }
    bool full() const { return !options_.slides && size_ >= capacity_; }
    const KvCacheOptions& options() const { return options_; }
    int64_t window() const { return capacity_ - options_.sinks; }
    int64_t evicted() const { return evicted_; }
    // The position of the next token: the tokens held plus those evicted.
    int64_t nextPosition() const { return size_ + evicted_; }
    // The position whose K/V row `row` holds.
    int64_t positionOf(int64_t row) const { return row < options_.sinks ? row : row + evicted_; }

    // Makes room for `count` tokens after the held ones (a sliding cache evicts for them);
    // throws Error past the capacity, or for a step longer than the window.
    void reserve(int64_t count);
    // Stores the K and V rows (kv_heads × head_dim floats each) of reserved row `row`.
    void store(int64_t layer, int64_t row, std::span<const float> key,
               std::span<const float> value);
    // The rows of `layer` from row 0: those held and those reserved.
    KvRows keys(int64_t layer) const;
    KvRows values(int64_t layer) const;

    void commit(int64_t count);
    void clear();  // forgets all tokens; keeps the allocation
    // Keeps the first `tokens` positions (0 ≤ tokens ≤ nextPosition()) and forgets the rest;
    // keeps the allocation. Returns how many were kept: `tokens`, or 0 when the window has
    // evicted some that the next token would see (they must be computed again).
    int64_t truncate(int64_t tokens);
    KvCacheStats stats() const;

  private:
    static constexpr int64_t kGrowthTokens = 256;
    void evict(int64_t count);
    // In every layer's K and V storage (rows from its start, not from origin_), overlapping or
    // not.
    void moveStorageRows(int64_t from, int64_t to, int64_t count);
    std::byte* rowAt(std::vector<std::byte>& rows, int64_t row);

    int64_t layerCount_, kvHeadCount_, headCount_, headDim_, capacity_;
    KvCacheOptions options_;
    int64_t rowBytes_;
    int64_t size_ = 0;
    int64_t evicted_ = 0;
    // Rows allocated in every layer, and those a sliding cache may use: beyond what a step needs
    // (the capacity, less one, plus the window), a block of spare rows lets the held rows slide
    // forward, so that they are moved back to the start only once per block of evictions rather
    // than on every token.
    int64_t allocatedRows_ = 0;
    int64_t storageRows_;
    int64_t origin_ = 0;                                 // the storage row of row 0
    std::vector<std::vector<std::byte>> keys_, values_;  // per layer
};

}  // namespace inferlens
