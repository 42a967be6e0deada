// Weighted sums of f32 rows — attention's Σ_t p_t · v_t over the cached values — per kernel set.
// Each output element is its own sum over the rows in row order, so the vector versions only
// compute several elements (and several weight vectors) at once (with fused multiply-adds: they
// may differ from the portable version in the last bit, never between a prefill and a decode
// step, nor with the number of vectors taken together).

#include "backend/cpu/kernels.h"
#include "backend/cpu/simd_x86.h"

namespace inferlens {
namespace {

void portableWeightedSums(const float* weights, int64_t weightStride, int count, int64_t rowCount,
                          const float* first, int64_t stride, int64_t n, float* out,
                          int64_t outStride) {
    for (int v = 0; v < count; ++v) {
        const float* w = weights + v * weightStride;
        float* o = out + v * outStride;
        for (int64_t d = 0; d < n; ++d)
            o[d] = 0.0f;
        for (int64_t r = 0; r < rowCount; ++r)
            for (int64_t d = 0; d < n; ++d)
                o[d] += w[r] * first[r * stride + d];
    }
}

#if defined(__x86_64__)

// The accumulators must stay in registers: at -O2 GCC keeps small loops over them rolled, and then
// spills them to the stack, at a third of the speed.
#define UNROLL_ALL _Pragma("GCC unroll 4")

// `lanes` floats per vector, up to 4 vectors (a head of 64 values with AVX-512, 32 with AVX2) per
// pass over the rows for V weight vectors at once (each row's loads shared by them, 4 · V sums in
// flight rather than the 4 whose fma latency bounds one), the rest of the columns one at a time.
#define INFERLENS_WEIGHTED_SUMS(name, target, vector, lanes, zero, set1, load, store, fma)         \
    template <int V>                                                                               \
    target void name##Of(const float* weights, int64_t weightStride, int64_t rowCount,             \
                         const float* first, int64_t stride, int64_t n, float* out,                \
                         int64_t outStride) {                                                      \
        int64_t d = 0;                                                                             \
        for (; d + 4 * lanes <= n; d += 4 * lanes) {                                               \
            vector acc[V][4];                                                                      \
            UNROLL_ALL for (int v = 0; v < V; ++v) UNROLL_ALL for (int k = 0; k < 4; ++k)          \
                acc[v][k] = zero();                                                                \
            for (int64_t r = 0; r < rowCount; ++r) {                                               \
                const float* row = first + r * stride + d;                                         \
                vector x[4];                                                                       \
                UNROLL_ALL for (int k = 0; k < 4; ++k) x[k] = load(row + k * lanes);               \
                UNROLL_ALL for (int v = 0; v < V; ++v) {                                           \
                    const vector w = set1(weights[v * weightStride + r]);                          \
                    UNROLL_ALL for (int k = 0; k < 4; ++k) acc[v][k] = fma(w, x[k], acc[v][k]);    \
                }                                                                                  \
            }                                                                                      \
            UNROLL_ALL for (int v = 0; v < V; ++v) UNROLL_ALL for (int k = 0; k < 4; ++k)          \
                store(out + v * outStride + d + k * lanes, acc[v][k]);                             \
        }                                                                                          \
        for (; d < n; ++d)                                                                         \
            for (int v = 0; v < V; ++v) {                                                          \
                float sum = 0.0f;                                                                  \
                for (int64_t r = 0; r < rowCount; ++r)                                             \
                    sum =                                                                          \
                        __builtin_fmaf(weights[v * weightStride + r], first[r * stride + d], sum); \
                out[v * outStride + d] = sum;                                                      \
            }                                                                                      \
    }                                                                                              \
    target void name(const float* weights, int64_t weightStride, int count, int64_t rowCount,      \
                     const float* first, int64_t stride, int64_t n, float* out,                    \
                     int64_t outStride) {                                                          \
        int v = 0;                                                                                 \
        for (; v + 4 <= count; v += 4)                                                             \
            name##Of<4>(weights + v * weightStride, weightStride, rowCount, first, stride, n,      \
                        out + v * outStride, outStride);                                           \
        for (; v + 2 <= count; v += 2)                                                             \
            name##Of<2>(weights + v * weightStride, weightStride, rowCount, first, stride, n,      \
                        out + v * outStride, outStride);                                           \
        if (v < count)                                                                             \
            name##Of<1>(weights + v * weightStride, weightStride, rowCount, first, stride, n,      \
                        out + v * outStride, outStride);                                           \
    }

INFERLENS_WEIGHTED_SUMS(avx2WeightedSums, INFERLENS_AVX2, __m256, 8, _mm256_setzero_ps,
                        _mm256_set1_ps, _mm256_loadu_ps, _mm256_storeu_ps, _mm256_fmadd_ps)
INFERLENS_WEIGHTED_SUMS(avx512WeightedSums, INFERLENS_AVX512, __m512, 16, _mm512_setzero_ps,
                        _mm512_set1_ps, _mm512_loadu_ps, _mm512_storeu_ps, _mm512_fmadd_ps)

#endif

}  // namespace

WeightedSums weightedSums(CpuKernels kernels) {
#if defined(__x86_64__)
    if (kernels >= CpuKernels::Avx512)
        return avx512WeightedSums;
    if (kernels == CpuKernels::Avx2)
        return avx2WeightedSums;
#endif
    (void)kernels;
    return portableWeightedSums;
}

}  // namespace inferlens
