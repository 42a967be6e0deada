// Q8_0 rows times 8-bit activations, as tiles of rows × tokens: per block, the integer dot product
// of the two sets of 32 multiples, times both scales, into one accumulator per (row, token) pair
// (so every tile shape gives the same sums). The x86 versions take absolute values of the weights
// and move their signs onto the activations, since the byte-multiply instructions want one
// unsigned operand (|q| ≤ 127 on both sides, so nothing saturates).

#include "backend/cpu/kernels.h"
#include "backend/cpu/simd_x86.h"
#include "backend/cpu/tile_dispatch.h"
#include "core/quant_blocks.h"

namespace inferlens {
namespace {

#if defined(__x86_64__)

// The register tile for both kernel sets, each compiled for its own instructions.
#define INFERLENS_Q8_0_TILE(name, target, multiply)                                                \
    template <int R, int T>                                                                        \
    target void name(const std::byte* const* rows, const QuantizedActivations* const* xs,          \
                     int64_t blocks, float* out, int stride) {                                     \
        __m256 acc[R][T];                                                                          \
        _Pragma("GCC unroll 4") for (int r = 0; r < R; ++r)                                        \
            _Pragma("GCC unroll 4") for (int t = 0; t < T; ++t) acc[r][t] = _mm256_setzero_ps();   \
        for (int64_t b = 0; b < blocks; ++b) {                                                     \
            __m256i a[T];                                                                          \
            float xScale[T];                                                                       \
            _Pragma("GCC unroll 4") for (int t = 0; t < T; ++t) {                                  \
                a[t] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(                        \
                    xs[t]->values.data() + b * kQuantBlockElements));                              \
                xScale[t] = xs[t]->scales[size_t(b)];                                              \
            }                                                                                      \
            _Pragma("GCC unroll 4") for (int r = 0; r < R; ++r) {                                  \
                const std::byte* block = rows[r] + b * kQ8_0BlockBytes;                            \
                const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 2)); \
                const __m256i magnitude = _mm256_sign_epi8(w, w);                                  \
                const float wScale = simd::halfScale(block);                                       \
                _Pragma("GCC unroll 4") for (int t = 0; t < T; ++t) acc[r][t] = _mm256_fmadd_ps(   \
                    _mm256_set1_ps(wScale * xScale[t]),                                            \
                    _mm256_cvtepi32_ps(multiply(magnitude, _mm256_sign_epi8(a[t], w))),            \
                    acc[r][t]);                                                                    \
            }                                                                                      \
        }                                                                                          \
        for (int r = 0; r < R; ++r)                                                                \
            for (int t = 0; t < T; ++t)                                                            \
                out[r * stride + t] = simd::horizontalSum(acc[r][t]);                              \
    }

INFERLENS_Q8_0_TILE(avx2Tile, INFERLENS_AVX2, simd::multiplyBytes)
INFERLENS_Q8_0_TILE(avx512Tile, INFERLENS_AVX512, simd::multiplyBytesVnni)

using X = QuantizedActivations;
// AVX2: 2 rows × 4 tokens of accumulators within its 16 registers; AVX-512 (32): 4 × 4.
constexpr BlockTile avx2Kernels = anyTile<X, 2, kTileTokens, avx2Tile<2, kTileTokens>,
                                          avx2Tile<2, 1>, avx2Tile<1, kTileTokens>, avx2Tile<1, 1>>;
constexpr BlockTile avx512Kernels =
    anyTile<X, kTileRows, kTileTokens, avx512Tile<kTileRows, kTileTokens>, avx512Tile<kTileRows, 1>,
            avx512Tile<1, kTileTokens>, avx512Tile<1, 1>>;

#endif

}  // namespace

BlockTile q8_0Tile(CpuKernels kernels) {
#if defined(__x86_64__)
    if (kernels == CpuKernels::Avx512)
        return avx512Kernels;
    if (kernels == CpuKernels::Avx2)
        return avx2Kernels;
#endif
    (void)kernels;
    return portableBlockTile<kQ8_0BlockBytes, q8_0Multiple>;
}

}  // namespace inferlens
