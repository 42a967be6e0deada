// The FFN's gated activations, gate[i] ← act(gate[i]) · up[i], per kernel set. Both activations
// are x · σ(k): SiLU with k = x, GELU's tanh form with k = 2z, z = √(2/π) · (x + 0.044715 x³),
// since 0.5 x (1 + tanh z) = x / (1 + e^(−2z)). The portable set calls the C library's exp (and
// tanh, as the models' reference code writes GELU); AVX-512 and AVX2 evaluate e^(−k) themselves,
// 16 or 8 values at a time: a prefill's FFN has a few hundred thousand of them per layer, and one
// call of the library's expf per value was 3 % of a TinyLlama prompt (on AVX2 too: F16, 512
// tokens, one AMD Zen 3 core, SiLU and expf 4.5 % of the profile). Element by element, so a token's
// values do not depend on where in a buffer (a prefill's or a decode step's) they are.

#include <cmath>

#include "backend/cpu/kernels.h"
#include "backend/cpu/simd_x86.h"

INFERLENS_QUIET_GCC_VECTOR_HEADERS

namespace inferlens {
namespace {

void portableSilu(float* gate, const float* up, int64_t count) {
    for (int64_t i = 0; i < count; ++i)
        gate[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
}

constexpr float kSqrtTwoOverPi = 0.7978845608028654f;
constexpr float kGeluCubic = 0.044715f;

void portableGeluTanh(float* gate, const float* up, int64_t count) {
    for (int64_t i = 0; i < count; ++i) {
        const float x = gate[i];
        gate[i] =
            0.5f * x * (1.0f + std::tanh(kSqrtTwoOverPi * (x + kGeluCubic * x * x * x))) * up[i];
    }
}

#if defined(__x86_64__)

// gate ← gate · σ(k(gate)) · up, the last count % 16 values through masked loads and stores.
template <__m512 (*argument)(__m512)>
INFERLENS_AVX512 void avx512Gated(float* gate, const float* up, int64_t count) {
    const __m512 one = _mm512_set1_ps(1.0f);
    for (int64_t i = 0; i < count; i += 16) {
        const __mmask16 lanes =
            i + 16 <= count ? __mmask16(0xffff) : __mmask16((1u << (count - i)) - 1);
        const __m512 x = _mm512_maskz_loadu_ps(lanes, gate + i);
        const __m512 sigmoidDenominator =
            _mm512_add_ps(one, simd::exponential(_mm512_sub_ps(_mm512_setzero_ps(), argument(x))));
        _mm512_mask_storeu_ps(gate + i, lanes,
                              _mm512_mul_ps(_mm512_div_ps(x, sigmoidDenominator),
                                            _mm512_maskz_loadu_ps(lanes, up + i)));
    }
}

INFERLENS_AVX512 inline __m512 siluArgument(__m512 x) {
    return x;
}
INFERLENS_AVX512 inline __m512 geluTanhArgument(__m512 x) {
    const __m512 cubic = _mm512_mul_ps(_mm512_mul_ps(x, x), x);
    const __m512 z = _mm512_fmadd_ps(_mm512_set1_ps(kGeluCubic), cubic, x);
    return _mm512_mul_ps(_mm512_set1_ps(2.0f * kSqrtTwoOverPi), z);
}

// The same on AVX2, 8 values at a time, the last count % 8 through masked loads and stores.
template <__m256 (*argument)(__m256)>
INFERLENS_AVX2 inline __m256 avx2GatedValues(__m256 x, __m256 up) {
    const __m256 sigmoidDenominator = _mm256_add_ps(
        _mm256_set1_ps(1.0f), simd::exponential(_mm256_sub_ps(_mm256_setzero_ps(), argument(x))));
    return _mm256_mul_ps(_mm256_div_ps(x, sigmoidDenominator), up);
}
template <__m256 (*argument)(__m256)>
INFERLENS_AVX2 void avx2Gated(float* gate, const float* up, int64_t count) {
    int64_t i = 0;
    for (; i + 8 <= count; i += 8)
        _mm256_storeu_ps(gate + i, avx2GatedValues<argument>(_mm256_loadu_ps(gate + i),
                                                             _mm256_loadu_ps(up + i)));
    if (i < count) {
        const __m256i lanes = simd::firstLanes(count - i);
        _mm256_maskstore_ps(gate + i, lanes,
                            avx2GatedValues<argument>(_mm256_maskload_ps(gate + i, lanes),
                                                      _mm256_maskload_ps(up + i, lanes)));
    }
}

INFERLENS_AVX2 inline __m256 siluArgument8(__m256 x) {
    return x;
}
INFERLENS_AVX2 inline __m256 geluTanhArgument8(__m256 x) {
    const __m256 cubic = _mm256_mul_ps(_mm256_mul_ps(x, x), x);
    const __m256 z = _mm256_fmadd_ps(_mm256_set1_ps(kGeluCubic), cubic, x);
    return _mm256_mul_ps(_mm256_set1_ps(2.0f * kSqrtTwoOverPi), z);
}

#endif

}  // namespace

GatedActivation siluGate(CpuKernels kernels) {
#if defined(__x86_64__)
    if (kernels >= CpuKernels::Avx512)
        return avx512Gated<siluArgument>;
    if (kernels == CpuKernels::Avx2)
        return avx2Gated<siluArgument8>;
#endif
    (void)kernels;
    return portableSilu;
}

GatedActivation geluTanhGate(CpuKernels kernels) {
#if defined(__x86_64__)
    if (kernels >= CpuKernels::Avx512)
        return avx512Gated<geluTanhArgument>;
    if (kernels == CpuKernels::Avx2)
        return avx2Gated<geluTanhArgument8>;
#endif
    (void)kernels;
    return portableGeluTanh;
}

}  // namespace inferlens
