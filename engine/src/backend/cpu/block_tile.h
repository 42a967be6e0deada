#pragma once
// The register tile every block format's x86 kernels share: rows of a block format times 8-bit
// activations (QuantizedActivations), one accumulator per (row, token) pair, so that every tile
// shape gives the same sums. A format F describes how its bytes unpack:
//
//   F::kBlockBytes, F::kSubBlocks   bytes per block; 32-value sub-blocks per block (1 or 8)
//   F::kSigned                      whether the multiples can be negative
//   F::kHalfScales                  a scale per 16 values (Q6_K) instead of per sub-block
//   F::kOffset                      whether values carry an offset: value = scale · q + offset
//   F::scales(block, BlockScales&)  the block's float scales (and offsets), once per row and block
//   F::multiples(block, s)          sub-block s's 32 multiples as bytes (element order)
//   F::decode                       the scalar decoder of core/block_formats.h, for the portable
//                                   tile (the SIMD tiles are tested against it)
//
// Per sub-block the products are an integer dot product of 32 bytes (two instructions on AVX2,
// one with VNNI) scaled by weight × activation scale; the offset part is offset × the sum of the
// sub-block's activations (precomputed per block), accumulated apart, the tile's tokens side by
// side in one 4-lane register per row (as 16 scalars they would crowd the accumulators out of the
// registers). The byte-multiply
// instructions want one unsigned operand: signed formats take the absolute values of the
// multiples and move their signs onto the activations (|q| ≤ 128 and |a| ≤ 127, so nothing
// saturates).

#include "backend/cpu/kernels.h"
#include "backend/cpu/quantized_activations.h"
#include "backend/cpu/simd_x86.h"
#include "backend/cpu/tile_dispatch.h"
#include "core/quant_blocks.h"

namespace inferlens {

#if defined(__x86_64__)

// Up to 8 sub-blocks, each with one scale (or two, one per 16 values) and an offset.
struct BlockScales {
    float scale[16];
    float offset[8];
};

// Instantiated once per kernel set (its target attribute and byte multiply), so that each is
// compiled for its own instructions.
#define INFERLENS_BLOCK_TILE(name, target, multiply)                                            \
    template <typename F, int R, int T>                                                         \
    target void name(const std::byte* const* rows, const QuantizedActivations* const* xs,       \
                     int64_t subBlocks, float* out, int stride) {                               \
        __m256 acc[R][T];                                                                       \
        __m128 offsets[R]; /* lane t: token t's offset part */                                  \
        _Pragma("GCC unroll 4") for (int r = 0; r < R; ++r)                                     \
            _Pragma("GCC unroll 4") for (int t = 0; t < T; ++t) {                               \
            acc[r][t] = _mm256_setzero_ps();                                                    \
            offsets[r] = _mm_setzero_ps();                                                      \
        }                                                                                       \
        for (int64_t block = 0; block < subBlocks / F::kSubBlocks; ++block) {                   \
            const std::byte* blockOf[R];                                                        \
            BlockScales scales[R];                                                              \
            _Pragma("GCC unroll 4") for (int r = 0; r < R; ++r) {                               \
                blockOf[r] = rows[r] + block * F::kBlockBytes;                                  \
                F::scales(blockOf[r], scales[r]);                                               \
            }                                                                                   \
            _Pragma("GCC unroll 8") for (int s = 0; s < F::kSubBlocks; ++s) {                   \
                const int64_t b = block * F::kSubBlocks + s;                                    \
                __m256i a[T];                                                                   \
                float xScale[T], xSum[4] = {0, 0, 0, 0};                                        \
                _Pragma("GCC unroll 4") for (int t = 0; t < T; ++t) {                           \
                    a[t] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(                 \
                        xs[t]->values.data() + b * kQuantBlockElements));                       \
                    xScale[t] = xs[t]->scales[size_t(b)];                                       \
                    xSum[t] = xs[t]->scaledSums[size_t(b)];                                     \
                }                                                                               \
                /* built in registers: a load of four                                           \
 just-stored floats would stall */                                                              \
                const __m128 sums = _mm_setr_ps(xSum[0], xSum[1], xSum[2], xSum[3]);            \
                _Pragma("GCC unroll 4") for (int r = 0; r < R; ++r) {                           \
                    const __m256i q = F::multiples(blockOf[r], s);                              \
                    const __m256i magnitude = F::kSigned ? _mm256_sign_epi8(q, q) : q;          \
                    _Pragma("GCC unroll 4") for (int t = 0; t < T; ++t) {                       \
                        const __m256i product =                                                 \
                            multiply(magnitude, F::kSigned ? _mm256_sign_epi8(a[t], q) : a[t]); \
                        const __m256 factor =                                                   \
                            F::kHalfScales                                                      \
                                ? _mm256_mul_ps(                                                \
                                      _mm256_set_m128(_mm_set1_ps(scales[r].scale[2 * s + 1]),  \
                                                      _mm_set1_ps(scales[r].scale[2 * s])),     \
                                      _mm256_set1_ps(xScale[t]))                                \
                                : _mm256_set1_ps(scales[r].scale[s] * xScale[t]);               \
                        acc[r][t] =                                                             \
                            _mm256_fmadd_ps(factor, _mm256_cvtepi32_ps(product), acc[r][t]);    \
                    }                                                                           \
                    if (F::kOffset)                                                             \
                        offsets[r] =                                                            \
                            _mm_fmadd_ps(_mm_set1_ps(scales[r].offset[s]), sums, offsets[r]);   \
                }                                                                               \
            }                                                                                   \
        }                                                                                       \
        for (int r = 0; r < R; ++r) {                                                           \
            float offset[4];                                                                    \
            _mm_storeu_ps(offset, offsets[r]);                                                  \
            for (int t = 0; t < T; ++t)                                                         \
                out[r * stride + t] = simd::horizontalSum(acc[r][t]) + offset[t];               \
        }                                                                                       \
    }

INFERLENS_BLOCK_TILE(avx2BlockTile, INFERLENS_AVX2, simd::multiplyBytes)
INFERLENS_BLOCK_TILE(avx512BlockTile, INFERLENS_AVX512, simd::multiplyBytesVnni)

#endif

// A format's tile for a kernel set: AVX2 keeps 2 rows × 4 tokens of accumulators within its 16
// registers, AVX-512 (32 registers) 4 × 4; the portable tile decodes with F::decode.
template <typename F>
BlockTile blockTileFor(CpuKernels kernels) {
    using X = QuantizedActivations;
#if defined(__x86_64__)
    if (kernels == CpuKernels::Avx512)
        return anyTile<X, kTileRows, kTileTokens, avx512BlockTile<F, kTileRows, kTileTokens>,
                       avx512BlockTile<F, kTileRows, 1>, avx512BlockTile<F, 1, kTileTokens>,
                       avx512BlockTile<F, 1, 1>>;
    if (kernels == CpuKernels::Avx2)
        return anyTile<X, 2, kTileTokens, avx2BlockTile<F, 2, kTileTokens>, avx2BlockTile<F, 2, 1>,
                       avx2BlockTile<F, 1, kTileTokens>, avx2BlockTile<F, 1, 1>>;
#endif
    (void)kernels;
    return portableBlockTile<F::kBlockBytes, F::kSubBlocks, F::decode>;
}

}  // namespace inferlens
