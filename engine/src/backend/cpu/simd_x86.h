#pragma once
// What the x86 kernel files share: the instruction sets each kernel set is compiled for (as
// function attributes, so that one binary holds every set and cpu_features.h picks at run time),
// and small helpers.

#if defined(__x86_64__)
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#define INFERLENS_AVX2 __attribute__((target("avx2,fma,f16c")))
#define INFERLENS_AVX512 \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")))

namespace inferlens::simd {

INFERLENS_AVX2 inline float horizontalSum(__m256 v) {
    const __m128 half = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    const __m128 pairs = _mm_add_ps(half, _mm_movehl_ps(half, half));
    return _mm_cvtss_f32(_mm_add_ss(pairs, _mm_shuffle_ps(pairs, pairs, 1)));
}

// A block's fp16 scale (its first two bytes), in one instruction.
INFERLENS_AVX2 inline float halfScale(const std::byte* block) {
    uint16_t bits;
    __builtin_memcpy(&bits, block, 2);
    return _cvtsh_ss(bits);
}

// Σ over groups of four of unsigned × signed bytes, as eight int32 lanes: two instructions on
// AVX2 (the int16 pair sums cannot saturate for the magnitudes the kernels feed it: at most
// 2 · 127 · 127), one with VNNI.
INFERLENS_AVX2 inline __m256i multiplyBytes(__m256i unsignedBytes, __m256i signedBytes) {
    return _mm256_madd_epi16(_mm256_maddubs_epi16(unsignedBytes, signedBytes),
                             _mm256_set1_epi16(1));
}
INFERLENS_AVX512 inline __m256i multiplyBytesVnni(__m256i unsignedBytes, __m256i signedBytes) {
    return _mm256_dpbusd_epi32(_mm256_setzero_si256(), unsignedBytes, signedBytes);
}

}  // namespace inferlens::simd

#endif
