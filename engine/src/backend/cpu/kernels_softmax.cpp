// Attention's online softmax, one key block's step for one query vector, per kernel set: the
// block's largest score, then each score's exponential relative to the running maximum and their
// sum. The portable set calls the C library's exp one score at a time; AVX-512 and AVX2 take 16 or
// 8 scores at a time with their own exp (simd::exponential): one call of the library's expf per
// score was a fifth of a long prompt's attention.

#include <algorithm>
#include <cmath>
#include <limits>

#include "backend/cpu/kernels.h"
#include "backend/cpu/simd_x86.h"

INFERLENS_QUIET_GCC_VECTOR_HEADERS

namespace inferlens {
namespace {

constexpr float kMinusInfinity = -std::numeric_limits<float>::infinity();

// The running sums' side of a step once the block's largest score is known.
SoftmaxStep raiseMaximum(float blockMax, float& maximum, float& sum) {
    SoftmaxStep step;
    step.adds = blockMax != kMinusInfinity;
    if (step.adds && blockMax > maximum) {
        // exp(−∞) = 0 clears the (empty) sum on the vector's first block.
        step.rescale = std::exp(maximum - blockMax);
        sum *= step.rescale;
        maximum = blockMax;
    }
    return step;
}

SoftmaxStep portableSoftmaxStep(float* scores, int64_t count, float& maximum, float& sum) {
    float blockMax = kMinusInfinity;
    for (int64_t j = 0; j < count; ++j)
        blockMax = std::max(blockMax, scores[j]);
    const SoftmaxStep step = raiseMaximum(blockMax, maximum, sum);
    if (!step.adds)
        return step;
    float blockSum = 0;
    for (int64_t j = 0; j < count; ++j) {
        scores[j] = std::exp(scores[j] - maximum);
        blockSum += scores[j];
    }
    sum += blockSum;
    return step;
}

#if defined(__x86_64__)

// Lanes past `count` read as −∞, whose exponential is 0.
INFERLENS_AVX512 SoftmaxStep avx512SoftmaxStep(float* scores, int64_t count, float& maximum,
                                               float& sum) {
    const __m512 minusInfinity = _mm512_set1_ps(kMinusInfinity);
    const auto lanesFrom = [count](int64_t j) {
        return j + 16 <= count ? __mmask16(0xffff) : __mmask16((1u << (count - j)) - 1);
    };
    __m512 largest = minusInfinity;
    for (int64_t j = 0; j < count; j += 16)
        largest =
            _mm512_max_ps(largest, _mm512_mask_loadu_ps(minusInfinity, lanesFrom(j), scores + j));
    const SoftmaxStep step = raiseMaximum(_mm512_reduce_max_ps(largest), maximum, sum);
    if (!step.adds)
        return step;
    const __m512 shift = _mm512_set1_ps(maximum);
    __m512 total = _mm512_setzero_ps();
    for (int64_t j = 0; j < count; j += 16) {
        const __mmask16 lanes = lanesFrom(j);
        const __m512 e = simd::exponential(
            _mm512_sub_ps(_mm512_mask_loadu_ps(minusInfinity, lanes, scores + j), shift));
        _mm512_mask_storeu_ps(scores + j, lanes, e);
        total = _mm512_add_ps(total, e);
    }
    sum += simd::laneSum(total);
    return step;
}

// The same on AVX2, 8 scores at a time; the tail's lanes past `count` read as −∞ (masked loads
// give 0 there, replaced).
INFERLENS_AVX2 inline __m256 avx2Scores(const float* scores, int64_t count) {
    if (count >= 8)
        return _mm256_loadu_ps(scores);
    const __m256i lanes = simd::firstLanes(count);
    return _mm256_blendv_ps(_mm256_set1_ps(kMinusInfinity), _mm256_maskload_ps(scores, lanes),
                            _mm256_castsi256_ps(lanes));
}
INFERLENS_AVX2 SoftmaxStep avx2SoftmaxStep(float* scores, int64_t count, float& maximum,
                                           float& sum) {
    __m256 largest = _mm256_set1_ps(kMinusInfinity);
    for (int64_t j = 0; j < count; j += 8)
        largest = _mm256_max_ps(largest, avx2Scores(scores + j, count - j));
    const __m128 four =
        _mm_max_ps(_mm256_castps256_ps128(largest), _mm256_extractf128_ps(largest, 1));
    const __m128 two = _mm_max_ps(four, _mm_movehl_ps(four, four));
    const SoftmaxStep step =
        raiseMaximum(_mm_cvtss_f32(_mm_max_ss(two, _mm_movehdup_ps(two))), maximum, sum);
    if (!step.adds)
        return step;
    const __m256 shift = _mm256_set1_ps(maximum);
    __m256 total = _mm256_setzero_ps();
    for (int64_t j = 0; j < count; j += 8) {
        const __m256 e = simd::exponential(_mm256_sub_ps(avx2Scores(scores + j, count - j), shift));
        if (j + 8 <= count)
            _mm256_storeu_ps(scores + j, e);
        else
            _mm256_maskstore_ps(scores + j, simd::firstLanes(count - j), e);
        total = _mm256_add_ps(total, e);
    }
    sum += simd::horizontalSum(total);
    return step;
}

#endif

}  // namespace

OnlineSoftmaxStep onlineSoftmaxStep(CpuKernels kernels) {
#if defined(__x86_64__)
    if (kernels >= CpuKernels::Avx512)
        return avx512SoftmaxStep;
    if (kernels == CpuKernels::Avx2)
        return avx2SoftmaxStep;
#endif
    (void)kernels;
    return portableSoftmaxStep;
}

}  // namespace inferlens
