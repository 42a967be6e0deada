// Q4_0 rows times 8-bit activations, as tiles of rows × tokens. A block's value j is d · (n_j − 8)
// with n_j a nibble, so its product with activations e · a_j is d · e · Σ (n_j a_j − 8 a_j): the
// nibbles are unsigned, which is what the byte-multiply instructions want for one operand, and
// the 8 · a_j part is computed once per token and block and taken off each row's products. One
// accumulator per (row, token) pair, so every tile shape gives the same sums.

#include "backend/cpu/kernels.h"
#include "backend/cpu/simd_x86.h"
#include "backend/cpu/tile_dispatch.h"
#include "core/quant_blocks.h"

namespace inferlens {
namespace {

#if defined(__x86_64__)

// Elements 0..15 (low nibbles) in the low 16 bytes, 16..31 (high nibbles) in the high 16.
INFERLENS_AVX2 inline __m256i nibbles(const std::byte* block) {
    const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 2));
    return _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(packed, 4), packed),
                            _mm256_set1_epi8(0x0f));
}

// The register tile for both kernel sets, each compiled for its own instructions.
#define INFERLENS_Q4_0_TILE(name, target, multiply)                                              \
    template <int R, int T>                                                                      \
    target void name(const std::byte* const* rows, const QuantizedActivations* const* xs,        \
                     int64_t blocks, float* out, int stride) {                                   \
        const __m256i eights = _mm256_set1_epi8(8);                                              \
        __m256 acc[R][T];                                                                        \
        _Pragma("GCC unroll 4") for (int r = 0; r < R; ++r)                                      \
            _Pragma("GCC unroll 4") for (int t = 0; t < T; ++t) acc[r][t] = _mm256_setzero_ps(); \
        for (int64_t b = 0; b < blocks; ++b) {                                                   \
            __m256i a[T], offset[T];                                                             \
            float xScale[T];                                                                     \
            _Pragma("GCC unroll 4") for (int t = 0; t < T; ++t) {                                \
                a[t] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(                      \
                    xs[t]->values.data() + b * kQuantBlockElements));                            \
                offset[t] = multiply(eights, a[t]);                                              \
                xScale[t] = xs[t]->scales[size_t(b)];                                            \
            }                                                                                    \
            _Pragma("GCC unroll 4") for (int r = 0; r < R; ++r) {                                \
                const std::byte* block = rows[r] + b * kQ4_0BlockBytes;                          \
                const __m256i n = nibbles(block);                                                \
                const float wScale = simd::halfScale(block);                                     \
                _Pragma("GCC unroll 4") for (int t = 0; t < T; ++t) acc[r][t] = _mm256_fmadd_ps( \
                    _mm256_set1_ps(wScale * xScale[t]),                                          \
                    _mm256_cvtepi32_ps(_mm256_sub_epi32(multiply(n, a[t]), offset[t])),          \
                    acc[r][t]);                                                                  \
            }                                                                                    \
        }                                                                                        \
        for (int r = 0; r < R; ++r)                                                              \
            for (int t = 0; t < T; ++t)                                                          \
                out[r * stride + t] = simd::horizontalSum(acc[r][t]);                            \
    }

INFERLENS_Q4_0_TILE(avx2Tile, INFERLENS_AVX2, simd::multiplyBytes)
INFERLENS_Q4_0_TILE(avx512Tile, INFERLENS_AVX512, simd::multiplyBytesVnni)

using X = QuantizedActivations;
// AVX2: 2 rows × 4 tokens of accumulators within its 16 registers; AVX-512 (32): 4 × 4.
constexpr BlockTile avx2Kernels = anyTile<X, 2, kTileTokens, avx2Tile<2, kTileTokens>,
                                          avx2Tile<2, 1>, avx2Tile<1, kTileTokens>, avx2Tile<1, 1>>;
constexpr BlockTile avx512Kernels =
    anyTile<X, kTileRows, kTileTokens, avx512Tile<kTileRows, kTileTokens>, avx512Tile<kTileRows, 1>,
            avx512Tile<1, kTileTokens>, avx512Tile<1, 1>>;

#endif

}  // namespace

BlockTile q4_0Tile(CpuKernels kernels) {
#if defined(__x86_64__)
    if (kernels == CpuKernels::Avx512)
        return avx512Kernels;
    if (kernels == CpuKernels::Avx2)
        return avx2Kernels;
#endif
    (void)kernels;
    return portableBlockTile<kQ4_0BlockBytes, q4_0Multiple>;
}

}  // namespace inferlens
