#pragma once
// The register tiles every block format's x86 kernels share: rows of a block format times 8-bit
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
// one with VNNI) scaled by weight × activation scale. The byte-multiply instructions want one
// unsigned operand: signed formats take the absolute values of the multiples and move their signs
// onto the activations (|q| ≤ 128 and |a| ≤ 127, so nothing saturates). The offset part of a
// sub-block is its offset × the sum of its activations (precomputed per activation block).
//
// Two tiles: one for the 32-value formats, one for the 256-value K formats, which work a whole
// super-block at a time — the eight weight × activation scales of a (row, token) pair in one
// vector multiply, and the eight offset parts in one FMA into the pair's accumulator — where the
// 32-value formats must take every block's scale as it comes.

#include <utility>

#include "backend/cpu/kernels.h"
#include "backend/cpu/quantized_activations.h"
#include "backend/cpu/simd_x86.h"
#include "backend/cpu/tile_dispatch.h"
#include "core/quant_blocks.h"

namespace inferlens {

#if defined(__x86_64__)

// Up to 8 sub-blocks, each with one scale (or two, one per 16 values) and an offset.
struct BlockScales {
    alignas(32) float scale[16];
    alignas(32) float offset[8];
};

// Both tiles, instantiated once per kernel set (its target attribute and byte multiply) so that
// each is compiled for its own instructions.
#define INFERLENS_BLOCK_TILES(prefix, target, multiply)                                            \
    /* The integer products of a sub-block's multiples q with a token's activations a. */          \
    target inline __m256i prefix##Products(__m256i q, __m256i a, bool isSigned) {                  \
        return isSigned ? multiply(_mm256_sign_epi8(q, q), _mm256_sign_epi8(a, q))                 \
                        : multiply(q, a);                                                          \
    }                                                                                              \
                                                                                                   \
    /* 32-value formats: N (1 or 2) consecutive blocks from `b` into the accumulators. Two at a    \
       time, a pair's two products are summed apart and then added: one addition per two           \
       blocks on the accumulator's chain instead of two dependent FMAs, whose latency would        \
       bound a decode step, which has one pair only. The offset parts of the tile's tokens lie     \
       side by side in one 4-lane register per row: as 16 scalars they would crowd the             \
       accumulators out of the registers. */                                                       \
    template <typename F, int R, int T, int N>                                                     \
    target inline void prefix##Blocks(const std::byte* const* rows,                                \
                                      const QuantizedActivations* const* xs, int64_t b,            \
                                      __m256(&acc)[R][T], __m128(&offsets)[R]) {                   \
        __m256i a[N][T];                                                                           \
        float xScale[N][T];                                                                        \
        __m128 sums[N];                                                                            \
        _Pragma("GCC unroll 2") for (int k = 0; k < N; ++k) {                                      \
            float xSum[4] = {0, 0, 0, 0};                                                          \
            _Pragma("GCC unroll 4") for (int t = 0; t < T; ++t) {                                  \
                a[k][t] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(                     \
                    xs[t]->values.data() + (b + k) * kQuantBlockElements));                        \
                xScale[k][t] = xs[t]->scales[size_t(b + k)];                                       \
                xSum[t] = xs[t]->scaledSums[size_t(b + k)];                                        \
            }                                                                                      \
            /* Built in registers: a load of four just-stored floats would stall. */               \
            sums[k] = _mm_setr_ps(xSum[0], xSum[1], xSum[2], xSum[3]);                             \
        }                                                                                          \
        _Pragma("GCC unroll 4") for (int r = 0; r < R; ++r) {                                      \
            BlockScales scales[N];                                                                 \
            __m256i q[N];                                                                          \
            _Pragma("GCC unroll 2") for (int k = 0; k < N; ++k) {                                  \
                const std::byte* block = rows[r] + (b + k) * F::kBlockBytes;                       \
                F::scales(block, scales[k]);                                                       \
                q[k] = F::multiples(block, 0);                                                     \
            }                                                                                      \
            _Pragma("GCC unroll 4") for (int t = 0; t < T; ++t) {                                  \
                const __m256 p0 = _mm256_cvtepi32_ps(prefix##Products(q[0], a[0][t], F::kSigned)); \
                const __m256 f0 = _mm256_set1_ps(scales[0].scale[0] * xScale[0][t]);               \
                if (N == 1) {                                                                      \
                    acc[r][t] = _mm256_fmadd_ps(f0, p0, acc[r][t]);                                \
                } else {                                                                           \
                    const __m256 p1 =                                                              \
                        _mm256_cvtepi32_ps(prefix##Products(q[N - 1], a[N - 1][t], F::kSigned));   \
                    const __m256 f1 = _mm256_set1_ps(scales[N - 1].scale[0] * xScale[N - 1][t]);   \
                    acc[r][t] =                                                                    \
                        _mm256_add_ps(acc[r][t], _mm256_fmadd_ps(f1, p1, _mm256_mul_ps(f0, p0)));  \
                }                                                                                  \
            }                                                                                      \
            if (F::kOffset)                                                                        \
                _Pragma("GCC unroll 2") for (int k = 0; k < N; ++k) offsets[r] =                   \
                    _mm_fmadd_ps(_mm_set1_ps(scales[k].offset[0]), sums[k], offsets[r]);           \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    template <typename F, int R, int T>                                                            \
    target void prefix##BlockTile(const std::byte* const* rows,                                    \
                                  const QuantizedActivations* const* xs, int64_t blocks,           \
                                  float* out, int stride) {                                        \
        __m256 acc[R][T];                                                                          \
        __m128 offsets[R];                                                                         \
        _Pragma("GCC unroll 4") for (int r = 0; r < R; ++r) {                                      \
            offsets[r] = _mm_setzero_ps();                                                         \
            _Pragma("GCC unroll 4") for (int t = 0; t < T; ++t) acc[r][t] = _mm256_setzero_ps();   \
        }                                                                                          \
        int64_t b = 0;                                                                             \
        for (; b + 2 <= blocks; b += 2)                                                            \
            prefix##Blocks<F, R, T, 2>(rows, xs, b, acc, offsets);                                 \
        if (b < blocks)                                                                            \
            prefix##Blocks<F, R, T, 1>(rows, xs, b, acc, offsets);                                 \
        for (int r = 0; r < R; ++r) {                                                              \
            float offset[4];                                                                       \
            _mm_storeu_ps(offset, offsets[r]);                                                     \
            for (int t = 0; t < T; ++t)                                                            \
                out[t * stride + r] = simd::horizontalSum(acc[r][t]) + offset[t];                  \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* Sub-block s's weight × activation scale: one value, or two (per 16 values, Q6_K). */       \
    template <typename F>                                                                          \
    target inline __m256 prefix##Factor(const float* factors, int s) {                             \
        return F::kHalfScales ? _mm256_set_m128(_mm_broadcast_ss(&factors[2 * s + 1]),             \
                                                _mm_broadcast_ss(&factors[2 * s]))                 \
                              : _mm256_broadcast_ss(&factors[s]);                                  \
    }                                                                                              \
                                                                                                   \
    /* K formats, a super-block of eight sub-blocks at a time. */                                  \
    template <typename F, int R, int T>                                                            \
    target void prefix##SuperBlockTile(const std::byte* const* rows,                               \
                                       const QuantizedActivations* const* xs, int64_t subBlocks,   \
                                       float* out, int stride) {                                   \
        /* Q6_K's scales per 16 values take the activation scale of their sub-block twice. */      \
        const __m256i firstHalves = _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3);                     \
        const __m256i secondHalves = _mm256_setr_epi32(4, 4, 5, 5, 6, 6, 7, 7);                    \
        constexpr int kFactors = F::kHalfScales ? 16 : 8;                                          \
        __m256 acc[R][T];                                                                          \
        _Pragma("GCC unroll 4") for (int r = 0; r < R; ++r)                                        \
            _Pragma("GCC unroll 4") for (int t = 0; t < T; ++t) acc[r][t] = _mm256_setzero_ps();   \
        for (int64_t block = 0; block < subBlocks / 8; ++block) {                                  \
            const std::byte* blockOf[R];                                                           \
            alignas(32) float factor[R][T][kFactors];                                              \
            _Pragma("GCC unroll 4") for (int r = 0; r < R; ++r) {                                  \
                blockOf[r] = rows[r] + block * F::kBlockBytes;                                     \
                BlockScales scales;                                                                \
                F::scales(blockOf[r], scales);                                                     \
                _Pragma("GCC unroll 4") for (int t = 0; t < T; ++t) {                              \
                    const __m256 xScales = _mm256_loadu_ps(xs[t]->scales.data() + 8 * block);      \
                    if (F::kHalfScales) {                                                          \
                        _mm256_store_ps(factor[r][t], _mm256_mul_ps(_mm256_load_ps(scales.scale),  \
                                                                    _mm256_permutevar8x32_ps(      \
                                                                        xScales, firstHalves)));   \
                        _mm256_store_ps(                                                           \
                            factor[r][t] + 8,                                                      \
                            _mm256_mul_ps(_mm256_load_ps(scales.scale + 8),                        \
                                          _mm256_permutevar8x32_ps(xScales, secondHalves)));       \
                    } else {                                                                       \
                        _mm256_store_ps(factor[r][t],                                              \
                                        _mm256_mul_ps(_mm256_load_ps(scales.scale), xScales));     \
                    }                                                                              \
                    if (F::kOffset)                                                                \
                        acc[r][t] = _mm256_fmadd_ps(                                               \
                            _mm256_load_ps(scales.offset),                                         \
                            _mm256_loadu_ps(xs[t]->scaledSums.data() + 8 * block), acc[r][t]);     \
                }                                                                                  \
            }                                                                                      \
            /* Sub-blocks two at a time, summed apart and then added (as in the 32-value tile). */ \
            _Pragma("GCC unroll 4") for (int s = 0; s < 8; s += 2) {                               \
                __m256i a[2][T];                                                                   \
                _Pragma("GCC unroll 2") for (int k = 0; k < 2; ++k)                                \
                    _Pragma("GCC unroll 4") for (int t = 0; t < T; ++t) a[k][t] =                  \
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(                       \
                            xs[t]->values.data() + (8 * block + s + k) * kQuantBlockElements));    \
                _Pragma("GCC unroll 4") for (int r = 0; r < R; ++r) {                              \
                    const __m256i q[2] = {F::multiples(blockOf[r], s),                             \
                                          F::multiples(blockOf[r], s + 1)};                        \
                    _Pragma("GCC unroll 4") for (int t = 0; t < T; ++t) {                          \
                        const __m256 p0 =                                                          \
                            _mm256_cvtepi32_ps(prefix##Products(q[0], a[0][t], F::kSigned));       \
                        const __m256 p1 =                                                          \
                            _mm256_cvtepi32_ps(prefix##Products(q[1], a[1][t], F::kSigned));       \
                        const __m256 f0 = prefix##Factor<F>(factor[r][t], s);                      \
                        const __m256 f1 = prefix##Factor<F>(factor[r][t], s + 1);                  \
                        acc[r][t] = _mm256_add_ps(acc[r][t],                                       \
                                                  _mm256_fmadd_ps(f1, p1, _mm256_mul_ps(f0, p0))); \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        for (int r = 0; r < R; ++r)                                                                \
            for (int t = 0; t < T; ++t)                                                            \
                out[t * stride + r] = simd::horizontalSum(acc[r][t]);                              \
    }                                                                                              \
                                                                                                   \
    template <typename F, int R, int T>                                                            \
    target void prefix##Tile(const std::byte* const* rows, const QuantizedActivations* const* xs,  \
                             int64_t subBlocks, float* out, int stride) {                          \
        if constexpr (F::kSubBlocks == 1)                                                          \
            prefix##BlockTile<F, R, T>(rows, xs, subBlocks, out, stride);                          \
        else                                                                                       \
            prefix##SuperBlockTile<F, R, T>(rows, xs, subBlocks, out, stride);                     \
    }

INFERLENS_BLOCK_TILES(avx2, INFERLENS_AVX2, simd::multiplyBytes)
INFERLENS_BLOCK_TILES(avx512, INFERLENS_AVX512, simd::multiplyBytesVnni)

#endif

// A format's tile for a kernel set: AVX2 keeps 2 rows × 4 tokens of accumulators within its 16
// registers, AVX-512 (32 registers) 4 × 4; the portable tile decodes with F::decode.
template <typename F>
BlockTile blockTileFor(CpuKernels kernels) {
    using X = QuantizedActivations;
#if defined(__x86_64__)
    if (kernels >= CpuKernels::Avx512)
        return anyTile<X, kTileRows, kTileTokens, avx512Tile<F, kTileRows, kTileTokens>,
                       avx512Tile<F, kTileRows, 1>, avx512Tile<F, 1, kTileTokens>,
                       avx512Tile<F, 1, 1>>;
    if (kernels == CpuKernels::Avx2)
        return anyTile<X, 2, kTileTokens, avx2Tile<F, 2, kTileTokens>, avx2Tile<F, 2, 1>,
                       avx2Tile<F, 1, kTileTokens>, avx2Tile<F, 1, 1>>;
#endif
    (void)kernels;
    return portableBlockTile<F::kBlockBytes, F::kSubBlocks, F::decode>;
}

}  // namespace inferlens
