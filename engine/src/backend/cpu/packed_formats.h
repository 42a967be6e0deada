#pragma once
// What the packed kernel families (packed_legacy_quants.cpp, packed_k_quants.cpp) give the
// packing driver (packed_rows.cpp), and the SIMD helpers they share.

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "backend/cpu/packed_rows.h"
#include "backend/cpu/simd_x86.h"

namespace inferlens {

// One packed format: a group's block b (kPackedRows rows' block b, rows[j] null for padding rows)
// written as `blockBytes` bytes, and its tile for a kernel set.
struct PackedFormat {
    int64_t blockBytes;
    void (*packBlock)(const std::byte* const* rows, int64_t b, std::byte* out);
    PackedTile (*tile)(CpuKernels kernels);
};

// nullptr for types the family does not pack.
const PackedFormat* packedLegacyFormat(DType dtype);  // Q8_0, Q4_0, Q4_1, Q5_0, Q5_1
const PackedFormat* packedKFormat(DType dtype);       // Q4_K, Q5_K, Q6_K

// Copies 4 bytes (a chunk's lane) from `from` (or zeros when null) to `to`, XOR `flip`.
inline void copyLane(const std::byte* from, std::byte* to, uint32_t flip = 0) {
    uint32_t word = 0;
    if (from != nullptr)
        std::memcpy(&word, from, 4);
    word ^= flip;
    std::memcpy(to, &word, 4);
}

#if defined(__x86_64__)

// The token's 4 activation bytes from `a`, in every lane.
INFERLENS_AVX2 inline __m256i broadcast4(const int8_t* a) {
    int32_t word;
    std::memcpy(&word, a, 4);
    return _mm256_set1_epi32(word);
}

// Nibbles (≤ 15) times activation bytes, added to int32 lanes: no saturation either way.
INFERLENS_AVX512 inline __m256i nibbleProductsVnni(__m256i acc, __m256i n, __m256i a) {
    return _mm256_dpbusd_epi32(acc, n, a);
}

// The same products kept as pair sums until a group of chunks is done. AVX2 multiplies bytes in
// two steps on its few multiply ports, vpmaddubsw (pairs into int16) then vpmaddwd (into int32);
// a pair of 5-bit values at most 2 · 31 · 127 = 7,874 in size, so four chunks' pair sums fit in
// int16 and are added with cheap 16-bit additions, widened once per group. (VNNI's lanes are
// int32 from the start.)
INFERLENS_AVX2 inline __m256i nibblePairSums(__m256i acc16, __m256i n, __m256i a) {
    return _mm256_add_epi16(acc16, _mm256_maddubs_epi16(n, a));
}
INFERLENS_AVX2 inline __m256i widenPairSums(__m256i acc16) {
    return _mm256_madd_epi16(acc16, _mm256_set1_epi16(1));
}
// Chunks of 5-bit values (≤ 31) whose pair sums fit in one int16 accumulator.
constexpr int kPairSumChunks = 4;

// The integer dot of 8 decoded chunks of 4-bit (`group` 8: 2 · 15 · 127 · 8 < 2¹⁵) or 5-bit values
// (`group` kPairSumChunks) with a token's 32 activation bytes at `a` (chunk k's lanes meet bytes
// 4k … 4k + 3), per row lane, added to `init`: pair sums in int16, widened once per group.
template <int group>
INFERLENS_AVX2 inline __m256i nibbleDotAvx2(const __m256i (&chunk)[8], const int8_t* a,
                                            __m256i init) {
    __m256i sum = init;
#pragma GCC unroll 2
    for (int g = 0; g < 8; g += group) {
        __m256i pairs = _mm256_setzero_si256();
#pragma GCC unroll 8
        for (int k = g; k < g + group; ++k)
            pairs = nibblePairSums(pairs, chunk[k], broadcast4(a + 4 * k));
        sum = _mm256_add_epi32(sum, widenPairSums(pairs));
    }
    return sum;
}

// Bit `bit` (0…7) of every byte of `words` moved to bit 4, the others cleared: the value 16 that
// a Q5 type's fifth bit adds to its nibble.
INFERLENS_AVX2 inline __m256i fifthBits(__m256i words, int bit) {
    const __m256i moved =
        bit <= 4 ? _mm256_slli_epi32(words, 4 - bit) : _mm256_srli_epi32(words, bit - 4);
    return _mm256_and_si256(moved, _mm256_set1_epi8(16));
}

// A tile over any number of tokens from a tile of 4 and one of 1: four at a time, then one by one.
template <void (*many)(const std::byte*, const QuantizedActivations* const*, int64_t, float*, int),
          void (*one)(const std::byte*, const QuantizedActivations* const*, int64_t, float*, int)>
void anyTokens(const std::byte* group, const QuantizedActivations* const* xs, int tokenCount,
               int64_t blocks, float* out) {
    for (int t = 0; t < tokenCount;) {
        const bool full = t + 4 <= tokenCount;
        (full ? many : one)(group, xs + t, blocks, out + t, tokenCount);
        t += full ? 4 : 1;
    }
}

// The 8 rows' fp16 values at `halves` (a packed block's scales), as floats.
INFERLENS_AVX2 inline __m256 packedScales(const std::byte* halves) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(halves)));
}

// The 8 lanes of each token's accumulator into out[r · stride + t].
INFERLENS_AVX2 inline void storeRows(__m256 acc, float* out, int stride) {
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, acc);
    for (int r = 0; r < kPackedRows; ++r)
        out[r * stride] = lanes[r];
}

#endif

}  // namespace inferlens
