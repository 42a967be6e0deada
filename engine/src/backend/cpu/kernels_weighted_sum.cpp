// Weighted sums of f32 rows — attention's Σ_t p_t · v_t over the cached values — per kernel set.
// Each output element is its own sum over the rows in row order, so the vector versions only
// compute several elements at once (with fused multiply-adds: they may differ from the portable
// version in the last bit, never between a prefill and a decode step).

#include "backend/cpu/kernels.h"
#include "backend/cpu/simd_x86.h"

namespace inferlens {
namespace {

void portableWeightedSum(const float* weights, int64_t rowCount, const float* first, int64_t stride,
                         int64_t n, float* out) {
    for (int64_t d = 0; d < n; ++d)
        out[d] = 0.0f;
    for (int64_t r = 0; r < rowCount; ++r)
        for (int64_t d = 0; d < n; ++d)
            out[d] += weights[r] * first[r * stride + d];
}

#if defined(__x86_64__)

// `lanes` floats per vector, up to 4 vectors (a head of 64 values with AVX-512, 32 with AVX2) per
// pass over the rows, the rest of the columns one at a time.
#define INFERLENS_WEIGHTED_SUM(name, target, vector, lanes, zero, set1, load, store, fma)        \
    target void name(const float* weights, int64_t rowCount, const float* first, int64_t stride, \
                     int64_t n, float* out) {                                                    \
        int64_t d = 0;                                                                           \
        for (; d + 4 * lanes <= n; d += 4 * lanes) {                                             \
            vector acc[4] = {zero(), zero(), zero(), zero()};                                    \
            for (int64_t r = 0; r < rowCount; ++r) {                                             \
                const vector w = set1(weights[r]);                                               \
                const float* row = first + r * stride + d;                                       \
                for (int k = 0; k < 4; ++k)                                                      \
                    acc[k] = fma(w, load(row + k * lanes), acc[k]);                              \
            }                                                                                    \
            for (int k = 0; k < 4; ++k)                                                          \
                store(out + d + k * lanes, acc[k]);                                              \
        }                                                                                        \
        for (; d < n; ++d) {                                                                     \
            float sum = 0.0f;                                                                    \
            for (int64_t r = 0; r < rowCount; ++r)                                               \
                sum = __builtin_fmaf(weights[r], first[r * stride + d], sum);                    \
            out[d] = sum;                                                                        \
        }                                                                                        \
    }

INFERLENS_WEIGHTED_SUM(avx2WeightedSum, INFERLENS_AVX2, __m256, 8, _mm256_setzero_ps,
                       _mm256_set1_ps, _mm256_loadu_ps, _mm256_storeu_ps, _mm256_fmadd_ps)
INFERLENS_WEIGHTED_SUM(avx512WeightedSum, INFERLENS_AVX512, __m512, 16, _mm512_setzero_ps,
                       _mm512_set1_ps, _mm512_loadu_ps, _mm512_storeu_ps, _mm512_fmadd_ps)

#endif

}  // namespace

WeightedSum weightedSum(CpuKernels kernels) {
#if defined(__x86_64__)
    if (kernels >= CpuKernels::Avx512)
        return avx512WeightedSum;
    if (kernels == CpuKernels::Avx2)
        return avx2WeightedSum;
#endif
    (void)kernels;
    return portableWeightedSum;
}

}  // namespace inferlens
