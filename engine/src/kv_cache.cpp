#include "kv_cache.h"

#include <algorithm>
#include <cstring>

#include "core/error.h"

namespace inferlens {

KvCache::KvCache(int64_t layerCount, int64_t kvHeadCount, int64_t headCount, int64_t headDim,
                 int64_t capacity, KvCacheOptions options)
    : layerCount_(layerCount),
      kvHeadCount_(kvHeadCount),
      headCount_(headCount),
      headDim_(headDim),
      capacity_(capacity),
      options_(options),
      rowBytes_(kvRowBytes(options.type, kvHeadCount, headDim)),
      storageRows_(kvCacheRowsAtMost(capacity, options)),
      keys_(layerCount),
      values_(layerCount) {
    if (capacity < 1)
        throw Error("context size must be at least 1, got " + std::to_string(capacity));
    if (options.slides && (options.sinks < 0 || options.sinks >= capacity))
        throw Error("a sliding window needs at least one token besides its " +
                    std::to_string(options.sinks) + " sink tokens");
}

void KvCache::reserve(int64_t count) {
    if (count < 0)
        throw Error("cannot reserve " + std::to_string(count) + " KV cache rows");
    if (options_.slides) {
        if (count > window())
            throw Error("a step of " + std::to_string(count) +
                        " tokens does not fit the sliding window of " + std::to_string(window()) +
                        " tokens");
        // Every token of the step sees the W − 1 before it: of the tokens before the step, the
        // last W − 1 stay during it (the kernels mask them row by row, AttentionLayout), and
        // commit() evicts down to the capacity again. Until the sequence outgrows the capacity
        // nothing is evicted or masked. (A cancelled step keeps these evictions; the positions
        // stay right.)
        if (size_ + count > capacity_)
            evict(std::max<int64_t>(0, size_ - (capacity_ - 1)));
    } else if (count > capacity_ - size_) {
        throw Error("the KV cache is full: " + std::to_string(size_) + " of " +
                    std::to_string(capacity_) + " tokens held, " + std::to_string(count) +
                    " more do not fit");
    }
    if (origin_ > 0 && origin_ + size_ + count > storageRows_) {
        // Out of spare rows: slide the held rows back to the start.
        moveStorageRows(origin_, 0, size_);
        origin_ = 0;
    }
    const int64_t needed = origin_ + size_ + count;
    if (needed <= allocatedRows_)
        return;
    const int64_t blocks = (needed + kGrowthTokens - 1) / kGrowthTokens;
    allocatedRows_ = std::min(storageRows_, blocks * kGrowthTokens);
    for (int64_t layer = 0; layer < layerCount_; ++layer) {
        keys_[size_t(layer)].resize(size_t(allocatedRows_ * rowBytes_));
        values_[size_t(layer)].resize(size_t(allocatedRows_ * rowBytes_));
    }
}

void KvCache::evict(int64_t count) {
    if (count == 0)
        return;
    // The oldest `count` rows after the sinks go: the sinks move forward over them.
    moveStorageRows(origin_, origin_ + count, std::min(options_.sinks, size_));
    origin_ += count;
    size_ -= count;
    evicted_ += count;
}

void KvCache::moveStorageRows(int64_t from, int64_t to, int64_t count) {
    for (int64_t layer = 0; layer < layerCount_; ++layer)
        for (std::vector<std::byte>* rows : {&keys_[size_t(layer)], &values_[size_t(layer)]})
            std::memmove(rows->data() + to * rowBytes_, rows->data() + from * rowBytes_,
                         size_t(count * rowBytes_));
}

std::byte* KvCache::rowAt(std::vector<std::byte>& rows, int64_t row) {
    return rows.data() + (origin_ + row) * rowBytes_;
}

void KvCache::store(int64_t layer, int64_t row, std::span<const float> key,
                    std::span<const float> value) {
    if (row < size_ || origin_ + row >= allocatedRows_)
        throw Error("KV cache row " + std::to_string(row) + " was not reserved");
    encodeKvRow(options_.type, key, headDim_, rowAt(keys_[size_t(layer)], row));
    encodeKvRow(options_.type, value, headDim_, rowAt(values_[size_t(layer)], row));
}

KvRows KvCache::keys(int64_t layer) const {
    return {options_.type, keys_[size_t(layer)].data() + origin_ * rowBytes_, kvHeadCount_,
            headDim_, rowBytes_};
}

KvRows KvCache::values(int64_t layer) const {
    return {options_.type, values_[size_t(layer)].data() + origin_ * rowBytes_, kvHeadCount_,
            headDim_, rowBytes_};
}

void KvCache::commit(int64_t count) {
    if (count < 0 || origin_ + size_ + count > allocatedRows_)
        throw Error("committing " + std::to_string(count) +
                    " KV cache rows that were not reserved");
    size_ += count;
    if (options_.slides && size_ > capacity_)
        evict(size_ - capacity_);
}

void KvCache::clear() {
    size_ = 0;
    evicted_ = 0;
    origin_ = 0;
}

int64_t KvCache::truncate(int64_t tokens) {
    if (tokens < 0 || tokens > nextPosition())
        throw Error("cannot keep " + std::to_string(tokens) + " of the " +
                    std::to_string(nextPosition()) + " tokens in the KV cache");
    // The next token, at position `tokens`, must find the W − 1 positions before it (or all of
    // them, when it is that close to the sinks) still held.
    if (evicted_ > 0 && tokens - (window() - 1) < options_.sinks + evicted_) {
        clear();
        return 0;
    }
    size_ = tokens - evicted_;
    return tokens;
}

int64_t kvCacheRowsAtMost(int64_t capacity, const KvCacheOptions& options) {
    // A sliding cache holds, during a step, the W − 1 tokens before it and the step's at most W.
    constexpr int64_t kSpareRows = 256;
    return options.slides ? 2 * capacity - options.sinks - 1 + kSpareRows : capacity;
}

KvCacheStats KvCache::stats() const {
    KvCacheStats stats = kvCacheStats(layerCount_, kvHeadCount_, headCount_, headDim_, size_,
                                      capacity_, allocatedRows_, options_.type);
    stats.slides = options_.slides;
    stats.sinkTokens = options_.slides ? std::min(options_.sinks, size_) : 0;
    stats.evictedTokens = evicted_;
    return stats;
}

KvCacheStats kvCacheStats(int64_t layerCount, int64_t kvHeadCount, int64_t headCount,
                          int64_t headDim, int64_t tokens, int64_t capacity,
                          int64_t allocatedTokens, KvType type) {
    KvCacheStats stats;
    stats.tokens = tokens;
    stats.capacity = capacity;
    stats.type = type;
    const int64_t bytesPerToken = 2 * kvRowBytes(type, kvHeadCount, headDim);  // K and V
    for (int64_t layer = 0; layer < layerCount; ++layer) {
        stats.bytesUsedPerLayer.push_back(tokens * bytesPerToken);
        stats.bytesAllocatedPerLayer.push_back(allocatedTokens * bytesPerToken);
        stats.bytesUsed += stats.bytesUsedPerLayer.back();
        stats.bytesAllocated += stats.bytesAllocatedPerLayer.back();
    }
    stats.bytesUsedFullMultiHead = layerCount * tokens * 2 * kvRowBytes(type, headCount, headDim);
    stats.bytesUsedAsF32 = layerCount * tokens * 2 * kvRowBytes(KvType::F32, kvHeadCount, headDim);
    return stats;
}

}  // namespace inferlens
