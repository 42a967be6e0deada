#include "backend/cpu/quantized_activations.h"

#include <cmath>

#include "backend/cpu/cpu_features.h"
#include "backend/cpu/simd_x86.h"
#include "core/quant_blocks.h"

namespace inferlens {
namespace {

// One block: its scale (max|x| / 127) and the values rounded to the nearest step (ties to even,
// as lrintf in the default rounding mode). Returns the values' sum.
int32_t quantizeBlock(const float* x, float* scaleOut, int8_t* q) {
    float largest = 0.0f;
    for (int64_t j = 0; j < kQuantBlockElements; ++j)
        largest = std::max(largest, std::fabs(x[j]));
    const float scale = largest / 127.0f;
    *scaleOut = scale;
    const float inverse = scale != 0.0f ? 1.0f / scale : 0.0f;
    int32_t sum = 0;
    for (int64_t j = 0; j < kQuantBlockElements; ++j) {
        q[j] = int8_t(std::lrintf(x[j] * inverse));
        sum += q[j];
    }
    return sum;
}

#if defined(__x86_64__)
// The same block with AVX2: the same operations on 8 lanes (max is exact; the conversion rounds
// to nearest even like lrintf), so the bytes are identical to the scalar version's.
INFERLENS_AVX2 int32_t quantizeBlockAvx2(const float* x, float* scaleOut, int8_t* q) {
    const __m256 signBit = _mm256_set1_ps(-0.0f);
    __m256 v[4], largest = _mm256_setzero_ps();
    for (int k = 0; k < 4; ++k) {
        v[k] = _mm256_loadu_ps(x + 8 * k);
        largest = _mm256_max_ps(largest, _mm256_andnot_ps(signBit, v[k]));
    }
    __m128 half = _mm_max_ps(_mm256_castps256_ps128(largest), _mm256_extractf128_ps(largest, 1));
    half = _mm_max_ps(half, _mm_movehl_ps(half, half));
    half = _mm_max_ss(half, _mm_shuffle_ps(half, half, 1));
    const float scale = _mm_cvtss_f32(half) / 127.0f;
    *scaleOut = scale;
    const __m256 inverse = _mm256_set1_ps(scale != 0.0f ? 1.0f / scale : 0.0f);
    __m256i integers[4];
    for (int k = 0; k < 4; ++k)
        integers[k] = _mm256_cvtps_epi32(_mm256_mul_ps(v[k], inverse));
    // Sum of the 32 integers.
    const __m256i pairs = _mm256_add_epi32(_mm256_add_epi32(integers[0], integers[1]),
                                           _mm256_add_epi32(integers[2], integers[3]));
    __m128i sum4 = _mm_add_epi32(_mm256_castsi256_si128(pairs), _mm256_extracti128_si256(pairs, 1));
    sum4 = _mm_add_epi32(sum4, _mm_shuffle_epi32(sum4, 0x4e));
    sum4 = _mm_add_epi32(sum4, _mm_shuffle_epi32(sum4, 0xb1));
    // int32 → int8 in element order (the packs interleave 128-bit halves; the permute undoes it).
    const __m256i words = _mm256_packs_epi32(integers[0], integers[1]);
    const __m256i words2 = _mm256_packs_epi32(integers[2], integers[3]);
    const __m256i bytes = _mm256_packs_epi16(words, words2);
    _mm256_storeu_si256(
        reinterpret_cast<__m256i*>(q),
        _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
    return _mm_cvtsi128_si32(sum4);
}
#endif

}  // namespace

void QuantizedActivations::quantize(const float* x, int64_t count) {
    const int64_t blockCount = count / kQuantBlockElements;
    scales.resize(size_t(blockCount));
    values.resize(size_t(count));
    nibbleBiases.resize(size_t(blockCount));
    halfSumBiases.resize(size_t(2 * blockCount));
    scaledSums.resize(size_t(blockCount));
    auto* quantizeOne = quantizeBlock;
#if defined(__x86_64__)
    if (cpuKernels() != CpuKernels::Portable)
        quantizeOne = quantizeBlockAvx2;
#endif
    for (int64_t b = 0; b < blockCount; ++b) {
        const int32_t sum = quantizeOne(x + b * kQuantBlockElements, &scales[size_t(b)],
                                        values.data() + b * kQuantBlockElements);
        nibbleBiases[size_t(b)] = -8 * sum;
        int32_t firstHalf = 0;
        for (int64_t j = 0; j < kQuantBlockElements / 2; ++j)
            firstHalf += values[size_t(b * kQuantBlockElements + j)];
        halfSumBiases[size_t(2 * b)] = -32 * firstHalf;
        halfSumBiases[size_t(2 * b + 1)] = -32 * (sum - firstHalf);
        scaledSums[size_t(b)] = scales[size_t(b)] * float(sum);
    }
}

}  // namespace inferlens
