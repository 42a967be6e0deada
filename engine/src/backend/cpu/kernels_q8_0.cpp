// Q8_0 rows times 8-bit activations: per block, the integer dot product of the two sets of 32
// multiples, times both scales. The x86 versions take absolute values of the weights and move
// their signs onto the activations, since the byte-multiply instructions want one unsigned operand
// (|q| ≤ 127 on both sides, so nothing saturates).

#include "backend/cpu/kernels.h"
#include "core/quant_blocks.h"

#include "backend/cpu/simd_x86.h"

namespace inferlens {
namespace {

float portableDot(const std::byte* row, const QuantizedActivations& x) {
    float sum = 0.0f;
    for (int64_t b = 0; b < x.blocks(); ++b) {
        const std::byte* block = row + b * kQ8_0BlockBytes;
        const int8_t* q = x.values.data() + b * kQuantBlockElements;
        int32_t blockSum = 0;
        for (int64_t j = 0; j < kQuantBlockElements; ++j)
            blockSum += q8_0Multiple(block, j) * q[j];
        sum += blockScale(block) * x.scales[size_t(b)] * float(blockSum);
    }
    return sum;
}

#if defined(__x86_64__)

// The same loop for both kernel sets, each compiled for its own instructions: two blocks per
// iteration into two accumulators, so that consecutive blocks do not wait on each other.
#define INFERLENS_Q8_0_BLOCK(acc, b, multiply)                                                  \
    {                                                                                           \
        const std::byte* block = row + (b)*kQ8_0BlockBytes;                                     \
        const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 2));      \
        const __m256i a = _mm256_loadu_si256(                                                   \
            reinterpret_cast<const __m256i*>(x.values.data() + (b)*kQuantBlockElements));       \
        acc = _mm256_fmadd_ps(                                                                  \
            _mm256_set1_ps(simd::halfScale(block) * x.scales[size_t(b)]),                       \
            _mm256_cvtepi32_ps(multiply(_mm256_sign_epi8(w, w), _mm256_sign_epi8(a, w))), acc); \
    }
#define INFERLENS_Q8_0_DOT(name, target, multiply)                           \
    target float name(const std::byte* row, const QuantizedActivations& x) { \
        __m256 even = _mm256_setzero_ps(), odd = _mm256_setzero_ps();        \
        int64_t b = 0;                                                       \
        for (; b + 2 <= x.blocks(); b += 2) {                                \
            INFERLENS_Q8_0_BLOCK(even, b, multiply)                          \
            INFERLENS_Q8_0_BLOCK(odd, b + 1, multiply)                       \
        }                                                                    \
        if (b < x.blocks())                                                  \
            INFERLENS_Q8_0_BLOCK(even, b, multiply)                          \
        return simd::horizontalSum(_mm256_add_ps(even, odd));                \
    }

INFERLENS_Q8_0_DOT(avx2Dot, INFERLENS_AVX2, simd::multiplyBytes)
INFERLENS_Q8_0_DOT(avx512Dot, INFERLENS_AVX512, simd::multiplyBytesVnni)

#endif

}  // namespace

BlockDot q8_0BlockDot(CpuKernels kernels) {
#if defined(__x86_64__)
    if (kernels == CpuKernels::Avx512)
        return avx512Dot;
    if (kernels == CpuKernels::Avx2)
        return avx2Dot;
#endif
    (void)kernels;
    return portableDot;
}

}  // namespace inferlens
