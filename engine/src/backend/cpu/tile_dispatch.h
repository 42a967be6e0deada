#pragma once
// Any tile up to R rows × T tokens from four fixed-size register tiles — R × T, R × 1, 1 × T and
// 1 × 1, whose loops unroll into registers: whole groups of R rows with T tokens at a time, the
// remaining tokens one by one, then the remaining rows one by one. Shared by the float and the
// block kernel families (X: the activations' type, `length`: elements or blocks per row).

#include <cstddef>
#include <cstdint>

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

}  // namespace inferlens
