#pragma once
// What the kernel families share: running any tile from fixed-size register tiles, and the
// portable tile of the block types.
//
// Any tile up to R rows × T tokens from four fixed-size register tiles — R × T, R × 1, 1 × T and
// 1 × 1, whose loops unroll into registers: whole groups of R rows with T tokens at a time, the
// remaining tokens one by one, then the remaining rows one by one. Shared by the float and the
// block kernel families (X: the activations' type, `length`: elements or blocks per row).

#include <cstddef>
#include <cstdint>

#include "backend/cpu/quantized_activations.h"
#include "core/quant_blocks.h"

namespace inferlens {

template <typename X>
using FixedTile = void (*)(const std::byte* const* rows, const X* const* xs, int64_t length,
                           float* out, int stride);

template <typename X, int R, int T, FixedTile<X> tile, FixedTile<X> rowsByOne,
          FixedTile<X> oneByTokens, FixedTile<X> oneByOne>
void anyTile(const std::byte* const* rows, int rowCount, const X* const* xs, int tokenCount,
             int64_t length, float* out) {
    int r = 0;
    for (; r + R <= rowCount; r += R) {
        int t = 0;
        for (; t + T <= tokenCount; t += T)
            tile(rows + r, xs + t, length, out + r * tokenCount + t, tokenCount);
        for (; t < tokenCount; ++t)
            rowsByOne(rows + r, xs + t, length, out + r * tokenCount + t, tokenCount);
    }
    for (; r < rowCount; ++r) {
        int t = 0;
        for (; t + T <= tokenCount; t += T)
            oneByTokens(rows + r, xs + t, length, out + r * tokenCount + t, tokenCount);
        for (; t < tokenCount; ++t)
            oneByOne(rows + r, xs + t, length, out + r * tokenCount + t, tokenCount);
    }
}

// The portable tile of a block type whose element j of a block is blockScale · multiple(block, j):
// per block, the integer dot product with the 8-bit activations, times both scales.
template <int64_t blockBytes, int (*multiple)(const std::byte*, int64_t)>
void portableBlockTile(const std::byte* const* rows, int rowCount,
                       const QuantizedActivations* const* xs, int tokenCount, int64_t blocks,
                       float* out) {
    for (int r = 0; r < rowCount; ++r)
        for (int t = 0; t < tokenCount; ++t) {
            float sum = 0.0f;
            for (int64_t b = 0; b < blocks; ++b) {
                const std::byte* block = rows[r] + b * blockBytes;
                const int8_t* q = xs[t]->values.data() + b * kQuantBlockElements;
                int32_t blockSum = 0;
                for (int64_t j = 0; j < kQuantBlockElements; ++j)
                    blockSum += multiple(block, j) * q[j];
                sum += blockScale(block) * xs[t]->scales[size_t(b)] * float(blockSum);
            }
            out[r * tokenCount + t] = sum;
        }
}

}  // namespace inferlens
