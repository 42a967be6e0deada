#pragma once
// What the kernel families share: running any tile from fixed-size register tiles, and the
// portable tile of the block formats.
//
// Any tile of any number of rows and tokens from four fixed-size register tiles — R × T, R × 1,
// 1 × T and 1 × 1, whose loops unroll into registers: whole groups of R rows with T tokens at a
// time, the remaining tokens one by one, then the remaining rows one by one. Shared by the float
// and the block kernel families (X: the activations' type, `length`: elements or blocks per row).
// Outputs are token-major, each token's rows side by side: a fixed tile writes out[t · stride +
// r], a whole tile out[t · rowCount + r].

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
            tile(rows + r, xs + t, length, out + t * rowCount + r, rowCount);
        for (; t < tokenCount; ++t)
            rowsByOne(rows + r, xs + t, length, out + t * rowCount + r, rowCount);
    }
    for (; r < rowCount; ++r) {
        int t = 0;
        for (; t + T <= tokenCount; t += T)
            oneByTokens(rows + r, xs + t, length, out + t * rowCount + r, rowCount);
        for (; t < tokenCount; ++t)
            oneByOne(rows + r, xs + t, length, out + t * rowCount + r, rowCount);
    }
}

// Any tile from a family of register tiles R × t for every t = 1 … T (Tiles::template
// run<R, t>(rows, xs, length, out, stride)): whole groups of R rows, then the rows one by one,
// each taking T tokens at a time and the rest of them in one tile of as many — a tile wide enough
// that its remainders matter (the AVX-512 float tiles' six tokens) does not leave them to a
// token at a time.
template <typename Tiles, int R, int T, typename X>
void tokensInTiles(const std::byte* const* rows, const X* const* xs, int tokenCount, int64_t length,
                   float* out, int stride) {
    int t = 0;
    for (; t + T <= tokenCount; t += T)
        Tiles::template run<R, T>(rows, xs + t, length, out + t * stride, stride);
    if constexpr (T > 1)
        if (t < tokenCount)
            tokensInTiles<Tiles, R, T - 1, X>(rows, xs + t, tokenCount - t, length,
                                              out + t * stride, stride);
}
template <typename X, int R, int T, typename Tiles>
void anyTileOfTokens(const std::byte* const* rows, int rowCount, const X* const* xs, int tokenCount,
                     int64_t length, float* out) {
    int r = 0;
    for (; r + R <= rowCount; r += R)
        tokensInTiles<Tiles, R, T, X>(rows + r, xs, tokenCount, length, out + r, rowCount);
    for (; r < rowCount; ++r)
        tokensInTiles<Tiles, 1, T, X>(rows + r, xs, tokenCount, length, out + r, rowCount);
}

// The portable tile of a block format (core/block_formats.h), from its scalar sub-block decoder:
// per 16 values the integer dot product with the 8-bit activations, times both scales, plus the
// offset times the activations' sum.
template <int64_t blockBytes, int64_t subBlocks,
          void (*decode)(const std::byte* block, int subBlock, SubBlock& out)>
void portableBlockTile(const std::byte* const* rows, int rowCount,
                       const QuantizedActivations* const* xs, int tokenCount, int64_t length,
                       float* out) {
    SubBlock sub;
    for (int r = 0; r < rowCount; ++r)
        for (int t = 0; t < tokenCount; ++t) {
            float sum = 0.0f;
            for (int64_t b = 0; b < length; ++b) {
                decode(rows[r] + b / subBlocks * blockBytes, int(b % subBlocks), sub);
                const int8_t* a = xs[t]->values.data() + b * kQuantBlockElements;
                int32_t halves[2] = {0, 0};
                for (int64_t j = 0; j < kQuantBlockElements; ++j)
                    halves[j / 16] += int32_t(sub.q[j]) * a[j];
                const float xScale = xs[t]->scales[size_t(b)];
                sum += sub.scale[0] * xScale * float(halves[0]) +
                       sub.scale[1] * xScale * float(halves[1]) +
                       sub.offset * xs[t]->scaledSums[size_t(b)];
            }
            out[t * rowCount + r] = sum;
        }
}

}  // namespace inferlens
