#pragma once
// What the packed kernel families (packed_legacy_quants.cpp, packed_k_quants.cpp) give the
// packing driver (packed_rows.cpp), and the SIMD helpers they share.

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "backend/cpu/packed_lanes.h"
#include "backend/cpu/packed_rows.h"
#include "backend/cpu/simd_x86.h"

namespace inferlens {

// One packed format: a group's block b (kPackedRows rows' block b, rows[j] null for padding rows)
// written as `blockBytes` bytes, its tile for a kernel set, and its tile of two groups.
struct PackedFormat {
    int64_t blockBytes;
    void (*packBlock)(const std::byte* const* rows, int64_t b, std::byte* out);
    PackedTile (*tile)(CpuKernels kernels);
    PackedPairTile (*pairTile)(CpuKernels kernels);  // nullptr: none for any kernel set
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

// Decoding (one token) reads a matrix once, a stream of packed blocks per thread (two for a pair
// of groups, each prefetched): asking for the bytes this far ahead keeps more of them in flight
// than the hardware prefetchers do (Intel kind, TinyLlama Q4_0 decode: 20 → 23 tokens/s on one
// thread, 36 → 42 on two; Q8_0 on two 22.7 → 24.5; 512 bytes ahead gained less, 4096 nothing).
// Called once per block of `blockBytes` at `block`; a pair of groups passes its `groupBytes`, so
// that the second group's block, that far on, is asked for too.
constexpr int64_t kDecodePrefetchBytes = 1024;
inline void prefetchForDecode(const std::byte* block, int64_t blockBytes, int64_t groupBytes = 0) {
    const int streams = groupBytes != 0 ? 2 : 1;
    for (int stream = 0; stream < streams; ++stream)
        for (int64_t line = 0; line < blockBytes; line += 64)
            _mm_prefetch(reinterpret_cast<const char*>(block + stream * groupBytes +
                                                       kDecodePrefetchBytes + line),
                         _MM_HINT_T0);
}

// Nibbles (≤ 15) times activation bytes kept as int16 pair sums until a group of chunks is done.
// AVX2 multiplies bytes in two steps on its few multiply ports, vpmaddubsw (pairs into int16) then
// vpmaddwd (into int32); a pair of 5-bit values at most 2 · 31 · 127 = 7,874 in size, so four
// chunks' pair sums fit in int16 and are added with cheap 16-bit additions, widened once per group.
// (VNNI's lanes are int32 from the start.)
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
            pairs = nibblePairSums(pairs, chunk[k], GroupLanes::broadcast4(a + 4 * k));
        sum = _mm256_add_epi32(sum, widenPairSums(pairs));
    }
    return sum;
}

// A register tile of some number of tokens over one group's rows (or two groups', `groupBytes`
// apart: packed_lanes.h), into out[t · stride + r]: each token's rows side by side, one vector
// store. Row by row across the tokens — 8 or 16 scalar stores a token, then a copy into the
// product's token-major output — had cost TinyLlama prompts on one AMD Zen 4 core 3–10 % (128
// tokens: Q5_K_M 110–117.5 → 121.8–123.4 tokens/s, Q4_0 108–121 → 118–125).
using RegisterTile = void (*)(const std::byte* group, int64_t groupBytes,
                              const QuantizedActivations* const* xs, int64_t blocks, float* out,
                              int stride);

// A prefill meets each pair of groups once per block of tokens (reference_ops.cpp), and its first
// tile there waited for the pair's bytes from memory. Asked for into L2 a part at a time while the
// tiles of the pair before run, they are there when its turn comes (TinyLlama, one AMD Zen 5
// core, 128-token prompt: Q4_0 220 → 242 tokens/s, Q8_0 183 → 203, Q4_K_M 190 → 205, Q5_K_M 188
// → 199; into L1 instead, Q5_K_M gained less). Part `part` of `parts` of the two groups that follow
// the pair at `group`.
inline void prefetchNextPair(const std::byte* group, int64_t groupBytes, int part, int parts) {
    const std::byte* next = group + 2 * groupBytes;
    const int64_t end = 2 * groupBytes * (part + 1) / parts;
    for (int64_t at = 2 * groupBytes * part / parts / 64 * 64; at < end; at += 64)
        _mm_prefetch(reinterpret_cast<const char*>(next + at), _MM_HINT_T1);
}

// A pair's tokens four at a time, then one by one (run(t, four)); for a prefill on a pair of
// groups (groupBytes ≠ 0), the next pair prefetched after each tile.
template <typename Run>
void tokenTilesOfPair(const std::byte* group, int64_t groupBytes, int tokenCount, Run&& run) {
    const bool prefetch = groupBytes != 0 && tokenCount > 1;
    const int tiles = tokenCount / 4 + tokenCount % 4;
    for (int t = 0, tile = 0; t < tokenCount; ++tile) {
        const bool four = t + 4 <= tokenCount;
        run(t, four);
        if (prefetch)
            prefetchNextPair(group, groupBytes, tile, tiles);
        t += four ? 4 : 1;
    }
}

// A tile over any number of tokens from a register tile of 4 and one of 1 (over two groups when
// groupBytes ≠ 0, 16 rows a token, else 8).
template <RegisterTile many, RegisterTile one>
void anyTokensOfPair(const std::byte* group, int64_t groupBytes,
                     const QuantizedActivations* const* xs, int tokenCount, int64_t blocks,
                     float* out) {
    const int rows = (groupBytes != 0 ? 2 : 1) * kPackedRows;
    tokenTilesOfPair(group, groupBytes, tokenCount, [&](int t, bool four) {
        (four ? many : one)(group, groupBytes, xs + t, blocks, out + t * rows, rows);
    });
}
template <RegisterTile many, RegisterTile one>
void anyTokens(const std::byte* group, const QuantizedActivations* const* xs, int tokenCount,
               int64_t blocks, float* out) {
    anyTokensOfPair<many, one>(group, 0, xs, tokenCount, blocks, out);
}

#endif

}  // namespace inferlens
