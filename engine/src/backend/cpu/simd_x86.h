#pragma once
// What the x86 kernel files share: the instruction sets each kernel set is compiled for (as
// function attributes, so that one binary holds every set and cpu_features.h picks at run time),
// and small helpers.

// GCC 12 warns inside its own AVX-512 headers (their placeholder "undefined" vectors) as their
// intrinsics are inlined into a file's code, past any push/pop around them: a kernel file says
// INFERLENS_QUIET_GCC_VECTOR_HEADERS once, for the rest of itself. Clang does not warn there (nor
// know -Wmaybe-uninitialized).
#if defined(__GNUC__) && !defined(__clang__)
#define INFERLENS_QUIET_GCC_VECTOR_HEADERS                \
    _Pragma("GCC diagnostic ignored \"-Wuninitialized\"") \
        _Pragma("GCC diagnostic ignored \"-Wmaybe-uninitialized\"")
#else
#define INFERLENS_QUIET_GCC_VECTOR_HEADERS
#endif

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

#pragma GCC diagnostic push
INFERLENS_QUIET_GCC_VECTOR_HEADERS

// The sum of a 16-lane vector's lanes, added in pairs: lane i and i + 8, then i and i + 4, i and
// i + 2, and the last two (the pairing of GCC's _mm512_reduce_add_ps, written out so that every
// compiler adds the same way: the float tiles promise the same sum whatever tile computes it).
INFERLENS_AVX512 inline float laneSum(__m512 v) {
    const __m256 eight =
        _mm256_add_ps(_mm512_castps512_ps256(v),
                      _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
    const __m128 four = _mm_add_ps(_mm256_castps256_ps128(eight), _mm256_extractf128_ps(eight, 1));
    const __m128 two = _mm_add_ps(four, _mm_movehl_ps(four, four));
    return _mm_cvtss_f32(_mm_add_ss(two, _mm_movehdup_ps(two)));
}

// out[i] = laneSum(v[i]) for N vectors, the same floats, from one transposed tree per 16 vectors:
// each level adds two vectors' halves (then quarters, pairs, lanes) side by side in one vector,
// about 3 instructions per vector where laneSum takes 8. At the end, lane 4k + j holds the sum of
// vector 4j + k. Slots past N are zeros whose sums are dropped: no lane mixes two vectors.
template <int N>
INFERLENS_AVX512 inline void laneSums(const __m512* v, float* out) {
    if constexpr (N > 16) {
        laneSums<16>(v, out);
        laneSums<N - 16>(v + 16, out + 16);
    } else {
        const __m512 zero = _mm512_setzero_ps();
        __m512 padded[16];
#pragma GCC unroll 16
        for (int i = 0; i < 16; ++i)
            padded[i] = i < N ? v[i] : zero;
        __m512 halves[8], quarters[4], pairs[2];
#pragma GCC unroll 8
        for (int m = 0; m < 8; ++m)
            halves[m] = _mm512_add_ps(
                _mm512_shuffle_f32x4(padded[2 * m], padded[2 * m + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                _mm512_shuffle_f32x4(padded[2 * m], padded[2 * m + 1], _MM_SHUFFLE(3, 2, 3, 2)));
#pragma GCC unroll 4
        for (int m = 0; m < 4; ++m)
            quarters[m] = _mm512_add_ps(
                _mm512_shuffle_f32x4(halves[2 * m], halves[2 * m + 1], _MM_SHUFFLE(2, 0, 2, 0)),
                _mm512_shuffle_f32x4(halves[2 * m], halves[2 * m + 1], _MM_SHUFFLE(3, 1, 3, 1)));
#pragma GCC unroll 2
        for (int m = 0; m < 2; ++m)
            pairs[m] = _mm512_add_ps(
                _mm512_shuffle_ps(quarters[2 * m], quarters[2 * m + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                _mm512_shuffle_ps(quarters[2 * m], quarters[2 * m + 1], _MM_SHUFFLE(3, 2, 3, 2)));
        alignas(64) float sums[16];
        _mm512_store_ps(
            sums, _mm512_add_ps(_mm512_shuffle_ps(pairs[0], pairs[1], _MM_SHUFFLE(2, 0, 2, 0)),
                                _mm512_shuffle_ps(pairs[0], pairs[1], _MM_SHUFFLE(3, 1, 3, 1))));
#pragma GCC unroll 16
        for (int i = 0; i < N; ++i)
            out[i] = sums[i % 4 * 4 + i / 4];
    }
}

// e^x to about 2 ulp: x = n ln 2 + r with n an integer and |r| ≤ ln 2 / 2 (ln 2 in two parts, so
// that n · ln 2 takes nothing from r's precision), e^r by its Taylor series to r⁷ / 7! (the next
// term is below 2⁻²⁷ of it), then times 2ⁿ exactly (vscalefps, which also gives the infinities and
// the subnormals at the ends of the range). x is clamped to ±110 first, past both ends of f32's
// range, so that n stays finite; a NaN stays a NaN (max and min return their second operand then).
INFERLENS_AVX512 inline __m512 exponential(__m512 x) {
    x = _mm512_min_ps(_mm512_set1_ps(110.0f), _mm512_max_ps(_mm512_set1_ps(-110.0f), x));
    const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145751953125f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.428606820309417e-06f), r);
    constexpr float kTaylor[] = {1.0f / 5040, 1.0f / 720, 1.0f / 120, 1.0f / 24,
                                 1.0f / 6,    1.0f / 2,   1.0f,       1.0f};
    __m512 p = _mm512_set1_ps(kTaylor[0]);
#pragma GCC unroll 8
    for (int i = 1; i < 8; ++i)
        p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kTaylor[i]));
    return _mm512_scalef_ps(p, n);
}
#pragma GCC diagnostic pop

// 2^k for integers −126 ≤ k ≤ 127, from its exponent bits.
INFERLENS_AVX2 inline __m256 powerOfTwo(__m256i k) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k, _mm256_set1_epi32(127)), 23));
}

// The same e^x on AVX2's 8 lanes, step for step, but for the last: without vscalefps, 2ⁿ comes as
// two powers of two written into the exponent bits, 2^⌊n/2⌋ and 2^(n − ⌊n/2⌋) (each a normal
// float, |n| ≤ 159 after the clamp), multiplied in turn: the first product is exact, the second
// rounds once, as vscalefps does — infinities and subnormals at the ends of the range included.
INFERLENS_AVX2 inline __m256 exponential(__m256 x) {
    x = _mm256_min_ps(_mm256_set1_ps(110.0f), _mm256_max_ps(_mm256_set1_ps(-110.0f), x));
    const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693145751953125f), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(1.428606820309417e-06f), r);
    constexpr float kTaylor[] = {1.0f / 5040, 1.0f / 720, 1.0f / 120, 1.0f / 24,
                                 1.0f / 6,    1.0f / 2,   1.0f,       1.0f};
    __m256 p = _mm256_set1_ps(kTaylor[0]);
#pragma GCC unroll 8
    for (int i = 1; i < 8; ++i)
        p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kTaylor[i]));
    const __m256i whole = _mm256_cvtps_epi32(n);
    const __m256i half = _mm256_srai_epi32(whole, 1);
    return _mm256_mul_ps(_mm256_mul_ps(p, powerOfTwo(half)),
                         powerOfTwo(_mm256_sub_epi32(whole, half)));
}

// All-ones in the first `count` (0…8) of 8 int32 lanes: the mask of a vector tail's masked loads.
INFERLENS_AVX2 inline __m256i firstLanes(int64_t count) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(int(count < 8 ? count : 8)),
                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
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
// Holds `sum` in a register at this point, as computed so far: the additions around it cannot
// be reordered across it. A chain of integer additions GCC may otherwise reassociate, computing
// every product first and spilling them to the stack (AVX2's Q8_0 tile: all 32 of a block's).
INFERLENS_AVX2 inline void keepInRegister(__m256i& sum) {
    asm("" : "+x"(sum));
}
INFERLENS_AVX512 inline __m256i multiplyBytesVnni(__m256i unsignedBytes, __m256i signedBytes) {
    return _mm256_dpbusd_epi32(_mm256_setzero_si256(), unsignedBytes, signedBytes);
}

}  // namespace inferlens::simd

#endif
