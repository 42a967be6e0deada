#pragma once
// The rows one register tile of a packed matrix covers (packed_rows.h), as the operations the
// tiles need on them, so that one tile template runs either width:
//   GroupLanes      one group of 8 rows in 256-bit registers (a lane per row): the AVX2 tiles,
//                   and the AVX-512 ones when decoding or for a group without a neighbour;
//   GroupPairLanes  two adjacent groups in 512-bit registers, lanes 0–7 the first group's rows and
//                   8–15 the second's (the second group's bytes `groupBytes` after the first's).
// Every lane does the same arithmetic in the same order at either width, so the two give the same
// numbers bit for bit (and a prefill the same as decoding). The pair does it in half the
// instructions and loads per row: a prefill's 256-bit tile is bound by its loads (each chunk of
// weights, and each token's activation bytes broadcast to every lane), not by its dot products.

#if defined(__x86_64__)
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "backend/cpu/packed_rows.h"
#include "backend/cpu/simd_x86.h"

// For every kernel file that includes this one (simd_x86.h).
INFERLENS_QUIET_GCC_VECTOR_HEADERS

namespace inferlens {

struct GroupLanes {
    static constexpr int kRows = kPackedRows;
    using Ints = __m256i;
    using Floats = __m256;

    // 32 bytes at `at` of the group.
    INFERLENS_AVX2 static Ints load(const std::byte* at, int64_t) {
        return _mm256_loadu_si256(reinterpret_cast<const Ints*>(at));
    }
    // The 8 rows' fp16 values at `halves` (16 bytes), as floats.
    INFERLENS_AVX2 static Floats halves(const std::byte* halves, int64_t) {
        return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(halves)));
    }
    // The 8 rows' unsigned or signed bytes at `bytes`, as floats.
    INFERLENS_AVX2 static Floats unsignedBytes(const std::byte* bytes, int64_t) {
        return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(eight(bytes)));
    }
    INFERLENS_AVX2 static Floats signedBytes(const std::byte* bytes, int64_t) {
        return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(eight(bytes)));
    }
    INFERLENS_AVX2 static Ints everyByte(char value) { return _mm256_set1_epi8(value); }
    INFERLENS_AVX2 static Ints everyLane(int32_t value) { return _mm256_set1_epi32(value); }
    // The token's 4 activation bytes from `a`, in every lane.
    INFERLENS_AVX2 static Ints broadcast4(const int8_t* a) {
        int32_t word;
        std::memcpy(&word, a, 4);
        return _mm256_set1_epi32(word);
    }
    INFERLENS_AVX2 static Ints zeroInts() { return _mm256_setzero_si256(); }
    INFERLENS_AVX2 static Ints both(Ints a, Ints b) { return _mm256_and_si256(a, b); }
    INFERLENS_AVX2 static Ints either(Ints a, Ints b) { return _mm256_or_si256(a, b); }
    INFERLENS_AVX2 static Ints shiftRight16(Ints a, int bits) { return _mm256_srli_epi16(a, bits); }
    INFERLENS_AVX2 static Ints shiftLeft16(Ints a, int bits) { return _mm256_slli_epi16(a, bits); }
    INFERLENS_AVX2 static Ints add(Ints a, Ints b) { return _mm256_add_epi32(a, b); }
    // Σ over groups of four of unsigned × signed bytes, added to int32 lanes (VNNI).
    INFERLENS_AVX512 static Ints dot(Ints acc, Ints u, Ints s) {
        return _mm256_dpbusd_epi32(acc, u, s);
    }
    // Bit `bit` (0…7) of every byte of `words` moved to bit 4, the others cleared: the value 16
    // that a Q5 type's fifth bit adds to its nibble.
    INFERLENS_AVX2 static Ints fifthBits(Ints words, int bit) {
        const Ints moved =
            bit <= 4 ? _mm256_slli_epi32(words, 4 - bit) : _mm256_srli_epi32(words, bit - 4);
        return _mm256_and_si256(moved, _mm256_set1_epi8(16));
    }

    INFERLENS_AVX2 static Floats zero() { return _mm256_setzero_ps(); }
    INFERLENS_AVX2 static Floats every(float value) { return _mm256_set1_ps(value); }
    INFERLENS_AVX2 static Floats loadFloats(const float* from) { return _mm256_load_ps(from); }
    INFERLENS_AVX2 static void storeFloats(float* to, Floats v) { _mm256_store_ps(to, v); }
    INFERLENS_AVX2 static Floats negate(Floats v) { return _mm256_sub_ps(_mm256_setzero_ps(), v); }
    INFERLENS_AVX2 static Floats multiply(Floats a, Floats b) { return _mm256_mul_ps(a, b); }
    INFERLENS_AVX2 static Floats multiplyAdd(Floats a, Floats b, Floats c) {
        return _mm256_fmadd_ps(a, b, c);
    }
    INFERLENS_AVX2 static Floats toFloats(Ints v) { return _mm256_cvtepi32_ps(v); }
    // The kRows row sums side by side at `out` (a token's rows, PackedTile).
    INFERLENS_AVX2 static void storeRows(Floats acc, float* out) { _mm256_storeu_ps(out, acc); }

  private:
    INFERLENS_AVX2 static __m128i eight(const std::byte* bytes) {
        return _mm_loadl_epi64(reinterpret_cast<const __m128i*>(bytes));
    }
};

struct GroupPairLanes {
    static constexpr int kRows = 2 * kPackedRows;
    using Ints = __m512i;
    using Floats = __m512;

    INFERLENS_AVX512 static Ints load(const std::byte* at, int64_t groupBytes) {
        return _mm512_inserti64x4(
            _mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(at))),
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at + groupBytes)), 1);
    }
    INFERLENS_AVX512 static Floats halves(const std::byte* halves, int64_t groupBytes) {
        return _mm512_cvtph_ps(_mm256_inserti128_si256(
            _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(halves))),
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(halves + groupBytes)), 1));
    }
    INFERLENS_AVX512 static Floats unsignedBytes(const std::byte* bytes, int64_t groupBytes) {
        return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(sixteen(bytes, groupBytes)));
    }
    INFERLENS_AVX512 static Floats signedBytes(const std::byte* bytes, int64_t groupBytes) {
        return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(sixteen(bytes, groupBytes)));
    }
    INFERLENS_AVX512 static Ints everyByte(char value) { return _mm512_set1_epi8(value); }
    INFERLENS_AVX512 static Ints everyLane(int32_t value) { return _mm512_set1_epi32(value); }
    INFERLENS_AVX512 static Ints broadcast4(const int8_t* a) {
        int32_t word;
        std::memcpy(&word, a, 4);
        return _mm512_set1_epi32(word);
    }
    INFERLENS_AVX512 static Ints zeroInts() { return _mm512_setzero_si512(); }
    INFERLENS_AVX512 static Ints both(Ints a, Ints b) { return _mm512_and_si512(a, b); }
    INFERLENS_AVX512 static Ints either(Ints a, Ints b) { return _mm512_or_si512(a, b); }
    INFERLENS_AVX512 static Ints shiftRight16(Ints a, int bits) {
        return _mm512_srli_epi16(a, bits);
    }
    INFERLENS_AVX512 static Ints shiftLeft16(Ints a, int bits) {
        return _mm512_slli_epi16(a, bits);
    }
    INFERLENS_AVX512 static Ints add(Ints a, Ints b) { return _mm512_add_epi32(a, b); }
    INFERLENS_AVX512 static Ints dot(Ints acc, Ints u, Ints s) {
        return _mm512_dpbusd_epi32(acc, u, s);
    }
    INFERLENS_AVX512 static Ints fifthBits(Ints words, int bit) {
        const Ints moved =
            bit <= 4 ? _mm512_slli_epi32(words, 4 - bit) : _mm512_srli_epi32(words, bit - 4);
        return _mm512_and_si512(moved, _mm512_set1_epi8(16));
    }

    INFERLENS_AVX512 static Floats zero() { return _mm512_setzero_ps(); }
    INFERLENS_AVX512 static Floats every(float value) { return _mm512_set1_ps(value); }
    INFERLENS_AVX512 static Floats loadFloats(const float* from) { return _mm512_load_ps(from); }
    INFERLENS_AVX512 static void storeFloats(float* to, Floats v) { _mm512_store_ps(to, v); }
    INFERLENS_AVX512 static Floats negate(Floats v) {
        return _mm512_sub_ps(_mm512_setzero_ps(), v);
    }
    INFERLENS_AVX512 static Floats multiply(Floats a, Floats b) { return _mm512_mul_ps(a, b); }
    INFERLENS_AVX512 static Floats multiplyAdd(Floats a, Floats b, Floats c) {
        return _mm512_fmadd_ps(a, b, c);
    }
    INFERLENS_AVX512 static Floats toFloats(Ints v) { return _mm512_cvtepi32_ps(v); }
    INFERLENS_AVX512 static void storeRows(Floats acc, float* out) { _mm512_storeu_ps(out, acc); }

  private:
    // The 8 bytes at `bytes` in each group, first group first.
    INFERLENS_AVX512 static __m128i sixteen(const std::byte* bytes, int64_t groupBytes) {
        return _mm_unpacklo_epi64(
            _mm_loadl_epi64(reinterpret_cast<const __m128i*>(bytes)),
            _mm_loadl_epi64(reinterpret_cast<const __m128i*>(bytes + groupBytes)));
    }
};

}  // namespace inferlens

#endif
