// Activations rounded to F16 or BF16 (kernels.h: what F16 and BF16 weights meet), to the nearest,
// ties to even, exactly as core/half.h's scalar conversions do it: F16C's vcvtps2ph with
// round-to-nearest, and BF16's rounding in integer lanes (the bits plus 0x7fff plus the lowest kept
// bit, NaN kept quiet). Vectors where the CPU has AVX2 and F16C: a 512-token prompt's activations
// are millions of values per product, which the scalar conversions took milliseconds over.

#include <algorithm>
#include <cmath>

#include "backend/cpu/kernels.h"
#include "backend/cpu/simd_x86.h"
#include "core/half.h"

namespace inferlens {
namespace {

#if defined(__x86_64__)
constexpr int64_t kLanes = 8;

// Eight floats' bits rounded to BF16 in their upper halves (the lower halves cleared).
INFERLENS_AVX2 inline __m256i bf16Bits(const float* x) {
    const __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x));
    const __m256i lowestKept = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
    const __m256i rounded =
        _mm256_add_epi32(bits, _mm256_add_epi32(_mm256_set1_epi32(0x7fff), lowestKept));
    const __m256i magnitude = _mm256_and_si256(bits, _mm256_set1_epi32(0x7fffffff));
    const __m256i isNan = _mm256_cmpgt_epi32(magnitude, _mm256_set1_epi32(0x7f800000));
    const __m256i quietNan = _mm256_or_si256(bits, _mm256_set1_epi32(0x00400000));
    return _mm256_and_si256(_mm256_blendv_epi8(rounded, quietNan, isNan),
                            _mm256_set1_epi32(int32_t(0xffff0000u)));
}

INFERLENS_AVX2 int64_t roundToHalfAvx2(const float* x, int64_t count, uint16_t* out) {
    int64_t i = 0;
    for (; i + kLanes <= count; i += kLanes)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT));
    return i;
}
INFERLENS_AVX2 int64_t roundToHalfPrecisionAvx2(const float* x, int64_t count, float* out) {
    int64_t i = 0;
    for (; i + kLanes <= count; i += kLanes)
        _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm256_cvtps_ph(_mm256_loadu_ps(x + i),
                                                                  _MM_FROUND_TO_NEAREST_INT)));
    return i;
}
INFERLENS_AVX2 int64_t roundToBf16Avx2(const float* x, int64_t count, uint16_t* out) {
    int64_t i = 0;
    for (; i + 2 * kLanes <= count; i += 2 * kLanes) {
        // packus works within 128-bit halves: the permute puts the 16 results in order.
        const __m256i packed = _mm256_packus_epi32(_mm256_srli_epi32(bf16Bits(x + i), 16),
                                                   _mm256_srli_epi32(bf16Bits(x + i + 8), 16));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                            _mm256_permute4x64_epi64(packed, 0xd8));
    }
    return i;
}
INFERLENS_AVX2 int64_t roundToBf16PrecisionAvx2(const float* x, int64_t count, float* out) {
    int64_t i = 0;
    for (; i + kLanes <= count; i += kLanes)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), bf16Bits(x + i));
    return i;
}
// The largest magnitude among the whole vectors' values, into `largest` (NaN ignored: vmaxps
// returns its second operand, the running maximum, when either is NaN); returns how many it read.
INFERLENS_AVX2 int64_t largestMagnitudeAvx2(const float* x, int64_t count, float& largest) {
    const __m256 magnitudeBits = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    __m256 maxima[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(),
                        _mm256_setzero_ps()};
    int64_t i = 0;
    for (; i + 4 * kLanes <= count; i += 4 * kLanes)
        for (int k = 0; k < 4; ++k)
            maxima[k] = _mm256_max_ps(
                _mm256_and_ps(_mm256_loadu_ps(x + i + k * kLanes), magnitudeBits), maxima[k]);
    alignas(32) float lanes[kLanes];
    _mm256_store_ps(lanes, _mm256_max_ps(_mm256_max_ps(maxima[0], maxima[1]),
                                         _mm256_max_ps(maxima[2], maxima[3])));
    largest = *std::max_element(lanes, lanes + kLanes);
    return i;
}
#else
int64_t largestMagnitudeAvx2(const float*, int64_t, float&) {
    return 0;
}
int64_t roundToHalfAvx2(const float*, int64_t, uint16_t*) {
    return 0;
}
int64_t roundToHalfPrecisionAvx2(const float*, int64_t, float*) {
    return 0;
}
int64_t roundToBf16Avx2(const float*, int64_t, uint16_t*) {
    return 0;
}
int64_t roundToBf16PrecisionAvx2(const float*, int64_t, float*) {
    return 0;
}
#endif

// The vector part where the CPU has it (returns how many it did), then the rest one by one.
template <typename Out, int64_t (*vectors)(const float*, int64_t, Out*), Out (*one)(float)>
void round(const float* x, int64_t count, Out* out) {
    // Asked once: cpuSupports runs CPUID, a trap under a hypervisor, and a prefill rounds every
    // token of every product.
    static const bool haveVectors = cpuSupports(CpuKernels::Avx2);
    int64_t i = haveVectors ? vectors(x, count, out) : 0;
    for (; i < count; ++i)
        out[i] = one(x[i]);
}

float halfPrecision(float value) {
    return halfToFloat(floatToHalf(value));
}
float bf16Precision(float value) {
    return bf16ToFloat(floatToBf16(value));
}

}  // namespace

bool fitsHalf(const float* x, int64_t count) {
    // A running maximum rather than an early exit; NaN compares false. In vectors where the CPU
    // has AVX2: one scalar chain of dependent maxss, about 3 cycles a value, was 2–3 % of TinyLlama
    // F16's prompt, whose every product checks all of its tokens.
    static const bool haveVectors = cpuSupports(CpuKernels::Avx2);
    float largest = 0.0f;
    int64_t i = haveVectors ? largestMagnitudeAvx2(x, count, largest) : 0;
    for (; i < count; ++i)
        largest = std::max(largest, std::fabs(x[i]));
    return largest < 65520.0f;
}

void roundToHalf(const float* x, int64_t count, uint16_t* out) {
    round<uint16_t, roundToHalfAvx2, floatToHalf>(x, count, out);
}
void roundToHalfPrecision(const float* x, int64_t count, float* out) {
    round<float, roundToHalfPrecisionAvx2, halfPrecision>(x, count, out);
}
void roundToBf16(const float* x, int64_t count, uint16_t* out) {
    round<uint16_t, roundToBf16Avx2, floatToBf16>(x, count, out);
}
void roundToBf16Precision(const float* x, int64_t count, float* out) {
    round<float, roundToBf16PrecisionAvx2, bf16Precision>(x, count, out);
}

}  // namespace inferlens
