#pragma once
// The scores of both attention kernels (fused_attention, reference_attention): query vectors
// against key rows, through the SIMD tiles the weights use, and a sliding window's mask. The tiles
// sum a pair the same way whatever their shape, so a score does not depend on which kernel, block
// or thread computed it.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "backend/cpu/fused_attention.h"
#include "backend/cpu/kernels.h"

namespace inferlens {

// out[t × outStride + k] = scale · queries[t] · key k, for `queryCount` (≤ kTileTokens) query
// vectors and `keyCount` key rows; `keys` points at the first row's head, rows `stride` floats
// apart.
inline void scoreKeys(FloatTile tile, const float* const* queries, int queryCount,
                      const float* keys, int64_t stride, int64_t keyCount, int64_t headDim,
                      float scale, float* out, int64_t outStride) {
    for (int64_t k0 = 0; k0 < keyCount; k0 += kTileRows) {
        const int rows = int(std::min<int64_t>(kTileRows, keyCount - k0));
        const std::byte* keyRows[kTileRows];
        for (int r = 0; r < rows; ++r)
            keyRows[r] = reinterpret_cast<const std::byte*>(keys + (k0 + r) * stride);
        float products[kTileRows * kTileTokens];
        tile(keyRows, rows, queries, queryCount, headDim, products);
        for (int r = 0; r < rows; ++r)
            for (int t = 0; t < queryCount; ++t)
                out[t * outStride + k0 + r] = products[t * rows + r] * scale;
    }
}

// −∞ for the scores of keys firstKey .. firstKey + count − 1 (scores[0] is firstKey's) that a
// sliding window hides from the query in row `row`, so that the softmax gives them 0.
inline void maskOutsideWindow(const AttentionLayout& layout, int64_t row, int64_t firstKey,
                              int64_t count, float* scores) {
    const int64_t begin = std::max(firstKey, layout.sinks);
    const int64_t end = std::min(firstKey + count, layout.windowStart(row));
    for (int64_t key = begin; key < end; ++key)
        scores[key - firstKey] = -std::numeric_limits<float>::infinity();
}

}  // namespace inferlens
