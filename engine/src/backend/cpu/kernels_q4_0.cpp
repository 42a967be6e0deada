// Q4_0 rows times 8-bit activations: a block's value j is d · (n_j − 8) with n_j a nibble, so its
// product with activations e · a_j is d · e · (Σ n_j a_j − 8 Σ a_j); the activations' block sums
// are computed once per vector (QuantizedActivations::sums). Nibbles are unsigned, which is what
// the byte-multiply instructions want for one operand.

#include "backend/cpu/kernels.h"
#include "core/quant_blocks.h"

#include "backend/cpu/simd_x86.h"

namespace inferlens {
namespace {

float portableDot(const std::byte* row, const QuantizedActivations& x) {
    float sum = 0.0f;
    for (int64_t b = 0; b < x.blocks(); ++b) {
        const std::byte* block = row + b * kQ4_0BlockBytes;
        const int8_t* q = x.values.data() + b * kQuantBlockElements;
        int32_t blockSum = 0;
        for (int64_t j = 0; j < kQuantBlockElements; ++j)
            blockSum += q4_0Multiple(block, j) * q[j];
        sum += blockScale(block) * x.scales[size_t(b)] * float(blockSum);
    }
    return sum;
}

#if defined(__x86_64__)

// Elements 0..15 (low nibbles) in the low 16 bytes, 16..31 (high nibbles) in the high 16.
INFERLENS_AVX2 inline __m256i nibbles(const std::byte* block) {
    const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 2));
    return _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(packed, 4), packed),
                            _mm256_set1_epi8(0x0f));
}

// The same loop for both kernel sets, each compiled for its own instructions: two blocks per
// iteration into two accumulators. `offset` gathers Σ d · e · 8 Σ a_j, taken off at the end.
#define INFERLENS_Q4_0_BLOCK(acc, b, multiply)                                            \
    {                                                                                     \
        const std::byte* block = row + (b)*kQ4_0BlockBytes;                               \
        const __m256i a = _mm256_loadu_si256(                                             \
            reinterpret_cast<const __m256i*>(x.values.data() + (b)*kQuantBlockElements)); \
        const float scale = simd::halfScale(block) * x.scales[size_t(b)];                 \
        acc = _mm256_fmadd_ps(_mm256_set1_ps(scale),                                      \
                              _mm256_cvtepi32_ps(multiply(nibbles(block), a)), acc);      \
        offset += scale * float(8 * x.sums[size_t(b)]);                                   \
    }
#define INFERLENS_Q4_0_DOT(name, target, multiply)                           \
    target float name(const std::byte* row, const QuantizedActivations& x) { \
        __m256 even = _mm256_setzero_ps(), odd = _mm256_setzero_ps();        \
        float offset = 0.0f;                                                 \
        int64_t b = 0;                                                       \
        for (; b + 2 <= x.blocks(); b += 2) {                                \
            INFERLENS_Q4_0_BLOCK(even, b, multiply)                          \
            INFERLENS_Q4_0_BLOCK(odd, b + 1, multiply)                       \
        }                                                                    \
        if (b < x.blocks())                                                  \
            INFERLENS_Q4_0_BLOCK(even, b, multiply)                          \
        return simd::horizontalSum(_mm256_add_ps(even, odd)) - offset;       \
    }

INFERLENS_Q4_0_DOT(avx2Dot, INFERLENS_AVX2, simd::multiplyBytes)
INFERLENS_Q4_0_DOT(avx512Dot, INFERLENS_AVX512, simd::multiplyBytesVnni)

#endif

}  // namespace

BlockDot q4_0BlockDot(CpuKernels kernels) {
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
