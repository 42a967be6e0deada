// Q4_K, Q5_K and Q6_K packed 8 rows at a time (packed_rows.h): the types of Q4_K_M and Q5_K_M
// files.
//
// Q4_K: a packed super-block
// (1,184 bytes for 8 rows' 1,152) holds
//   bytes 0…15      the 8 rows' fp16 d;          16…31   their fp16 dmin
//   bytes 32…95     the 6-bit sub-block scales, unpacked to bytes: 8s + j is sub-block s of row j
//   bytes 96…159    the 6-bit mins, likewise
//   bytes 160…      the nibbles: for each pair p of sub-blocks (2p in the low halves, 2p + 1 in
//                   the high halves, as in the file), 8 chunks k of 32 bytes whose lane j is row
//                   j's bytes 32p + 4k … + 3.
// Q5_K: the same (1,440 bytes for 8 rows' 1,408) with, between the mins and the nibbles, 8 chunks k
// of the fifth bits, lane j = row j's qh bytes 4k … 4k + 3 (byte l's bit s: element l of
// sub-block s), which the tile ORs into the nibbles as 16: the packed copy stays about the file's
// size. Per (row, token) and sub-block, in order: acc ← fma(d · sc · xScale, float(Σ n a), acc),
// then acc ← fma(−dmin · m, xSum, acc), with n the 4- or 5-bit value.
//
// Q6_K: a packed super-block (1,680 bytes, as 8 rows' 210) holds
//   bytes 0…15      the 8 rows' fp16 d
//   bytes 16…143    the int8 scales, one per 16 values: 8g + j is group g of row j
//   bytes 144…      for each half h of the super-block: 16 chunks of the low nibbles (lane j: row
//                   j's bytes 64h + 4c … + 3), then 8 chunks of the 2-bit high parts (lane j: row
//                   j's bytes 128 + 32h + 4c … + 3), in the file's arrangement (decodeQ6_K)
// Per (row, token), 16-value group and in a fixed order: acc ← fma(d · sc · xScale,
// float(Σ q a − 32 · Σ a), acc), with q the unsigned 6-bit value (the file's value is q − 32).

#include <vector>

#include "backend/cpu/packed_formats.h"
#include "core/k_quant_blocks.h"

namespace inferlens {
namespace {

// fifth: Q5_K (its qh after the header, its nibbles after them).
template <bool fifth>
constexpr int64_t kPackedBytes = 160 + (fifth ? 8 * 32 : 0) + 8 * 128;
constexpr int64_t packedNibblesAt(bool fifth) {
    return 160 + (fifth ? 8 * 32 : 0);
}

template <bool fifth>
void packQ4_K(const std::byte* const* rows, int64_t b, std::byte* out) {
    constexpr int64_t fileBytes = fifth ? kQ5_KBlockBytes : kQ4_KBlockBytes;
    constexpr int64_t nibblesAt = fifth ? 48 : 16;
    for (int j = 0; j < kPackedRows; ++j) {
        const std::byte* block = rows[j] == nullptr ? nullptr : rows[j] + b * fileBytes;
        const auto field = [block](int64_t at) { return block == nullptr ? nullptr : block + at; };
        for (int i = 0; i < 2; ++i) {
            out[2 * j + i] = block == nullptr ? std::byte{0} : block[i];
            out[16 + 2 * j + i] = block == nullptr ? std::byte{0} : block[2 + i];
        }
        for (int s = 0; s < 8; ++s) {
            int scale = 0, min = 0;
            if (block != nullptr)
                kScaleAndMin(block + 4, s, scale, min);
            out[32 + 8 * s + j] = std::byte(uint8_t(scale));
            out[96 + 8 * s + j] = std::byte(uint8_t(min));
        }
        if constexpr (fifth)
            for (int k = 0; k < 8; ++k)
                copyLane(field(16 + 4 * k), out + 160 + 32 * k + 4 * j);
        for (int p = 0; p < 4; ++p)
            for (int k = 0; k < 8; ++k)
                copyLane(field(nibblesAt + 32 * p + 4 * k),
                         out + packedNibblesAt(fifth) + 256 * p + 32 * k + 4 * j);
    }
}

constexpr int64_t kPackedQ6_KBytes = 144 + 2 * (16 + 8) * 32;

void packQ6_K(const std::byte* const* rows, int64_t b, std::byte* out) {
    for (int j = 0; j < kPackedRows; ++j) {
        const std::byte* block = rows[j] == nullptr ? nullptr : rows[j] + b * kQ6_KBlockBytes;
        for (int i = 0; i < 2; ++i)
            out[2 * j + i] = block == nullptr ? std::byte{0} : block[208 + i];
        for (int g = 0; g < 16; ++g)
            out[16 + 8 * g + j] = block == nullptr ? std::byte{0} : block[192 + g];
        for (int h = 0; h < 2; ++h) {
            std::byte* half = out + 144 + h * (16 + 8) * 32;
            for (int c = 0; c < 16; ++c)
                copyLane(block == nullptr ? nullptr : block + 64 * h + 4 * c,
                         half + 32 * c + 4 * j);
            for (int c = 0; c < 8; ++c)
                copyLane(block == nullptr ? nullptr : block + 128 + 32 * h + 4 * c,
                         half + 16 * 32 + 32 * c + 4 * j);
        }
    }
}

#if defined(__x86_64__)

// What the packed sources below share: a group's (or a pair of groups') packed super-blocks of
// `blockBytes` each, `groupBytes` apart for a pair.
template <int64_t blockBytes>
struct PackedSuperBlocks {
    static constexpr bool kPrefetch = true;
    const std::byte* group;
    int64_t groupBytes;

    const std::byte* block(int64_t b) const { return group + b * blockBytes; }
    void prefetch(int64_t b) const { prefetchForDecode(block(b), blockBytes, groupBytes); }
};

// Where the AVX2 tiles take a super-block's values from: decoded from one group's packed copy as
// they go (PackedQ4kAvx2, PackedQ6kAvx2), or read back from a copy decoded once for a prefill's
// block of tokens (DecodedAvx2, below). chunk(b, s, k): chunk k of sub-block s's values, the 8
// rows' bytes 4k … 4k + 3 side by side. (The AVX-512 sources, further down, take the same steps
// over their W, written out there: a helper for AVX2 code cannot inline 512-bit operations, nor
// one for AVX-512 run on AVX2.)
//
// Q4_K/Q5_K: factors(b, buffer) writes, per row lane, buffer[8s …] = d · sc and buffer[64 + 8s …]
// = −dmin · m of sub-block s, and returns it. kPairSumGroup: the chunks whose int16 pair sums fit
// in one accumulator (nibblePairSums): all 8 of 4-bit values, 4 of Q5_K's 5-bit ones.
template <bool fifth>
struct PackedQ4kAvx2 : PackedSuperBlocks<kPackedBytes<fifth>> {
    static constexpr int kPairSumGroup = fifth ? kPairSumChunks : 2 * kPairSumChunks;
    static constexpr int64_t kFactorFloats = 16 * kPackedRows;
    using PackedSuperBlocks<kPackedBytes<fifth>>::block;

    INFERLENS_AVX2 const float* factors(int64_t b, float* buffer) const {
        const std::byte* at = block(b);
        const __m256 d = GroupLanes::halves(at, 0);
        const __m256 negativeDmin = GroupLanes::negate(GroupLanes::halves(at + 16, 0));
#pragma GCC unroll 8
        for (int s = 0; s < 8; ++s) {
            _mm256_store_ps(buffer + 8 * s,
                            _mm256_mul_ps(d, GroupLanes::unsignedBytes(at + 32 + 8 * s, 0)));
            _mm256_store_ps(
                buffer + 64 + 8 * s,
                _mm256_mul_ps(negativeDmin, GroupLanes::unsignedBytes(at + 96 + 8 * s, 0)));
        }
        return buffer;
    }
    INFERLENS_AVX2 __m256i chunk(int64_t b, int s, int k) const {
        const std::byte* at = block(b);
        const __m256i bytes =
            GroupLanes::load(at + packedNibblesAt(fifth) + 256 * (s / 2) + 32 * k, 0);
        const __m256i nibbles = _mm256_and_si256(s % 2 == 0 ? bytes : _mm256_srli_epi16(bytes, 4),
                                                 _mm256_set1_epi8(0x0f));
        if constexpr (fifth)
            return _mm256_or_si256(
                nibbles, GroupLanes::fifthBits(GroupLanes::load(at + 160 + 32 * k, 0), s));
        return nibbles;
    }
};

// Q6_K: the tile reads each super-block's d and scales from block(b) itself (a few instructions
// per sub-block and 4 tokens); chunk gives the unsigned 6-bit values q = value + 32.
struct PackedQ6kAvx2 : PackedSuperBlocks<kPackedQ6_KBytes> {
    static constexpr int64_t kFactorFloats = 0;

    INFERLENS_AVX2 __m256i chunk(int64_t b, int sub, int i) const {
        const int h = sub / 4, k = sub % 4;
        const std::byte* half = block(b) + 144 + h * (16 + 8) * 32;
        const __m256i low = GroupLanes::load(half + 32 * (8 * (k % 2) + i), 0);
        const __m256i high = GroupLanes::load(half + 32 * (16 + i), 0);
        const __m256i highBits =
            k < 2 ? _mm256_slli_epi16(high, 4 - 2 * k) : _mm256_srli_epi16(high, 2 * k - 4);
        return _mm256_or_si256(
            _mm256_and_si256(k < 2 ? low : _mm256_srli_epi16(low, 4), _mm256_set1_epi8(0x0f)),
            _mm256_and_si256(highBits, _mm256_set1_epi8(0x30)));
    }
};

// One group's super-blocks decoded once from the packed copy (`Packed`: PackedQ4kAvx2 or
// PackedQ6kAvx2): per super-block Packed's factors, then its 64 chunks. What an AVX2 prefill's
// tile reads for every 4 tokens of its block instead of unpacking the nibbles and high bits again
// each time, as the AVX-512 pair tiles do (Decoded): the same values, so the same sums.
template <typename Packed>
struct DecodedAvx2 {
    using Source = Packed;
    static constexpr bool kPrefetch = false;
    static constexpr int kPairSumGroup = Packed::kPairSumGroup;
    static constexpr int64_t kFactorBytes = Packed::kFactorFloats * 4;
    static constexpr int64_t kBlockBytes = kFactorBytes + 64 * 32;
    Packed packed;  // what the tile still reads from the packed copy (Q6_K's scales)
    const std::byte* decoded;

    const std::byte* block(int64_t b) const { return packed.block(b); }
    void prefetch(int64_t) const {}
    const float* factors(int64_t b, float*) const {
        return reinterpret_cast<const float*>(decoded + b * kBlockBytes);
    }
    INFERLENS_AVX2 __m256i chunk(int64_t b, int s, int k) const {
        return _mm256_load_si256(reinterpret_cast<const __m256i*>(decoded + b * kBlockBytes +
                                                                  kFactorBytes + 32 * (8 * s + k)));
    }

    INFERLENS_AVX2 static void decode(const Packed& packed, int64_t blocks, std::byte* decoded) {
        for (int64_t b = 0; b < blocks; ++b) {
            std::byte* block = decoded + b * kBlockBytes;
            if constexpr (kFactorBytes != 0)
                packed.factors(b, reinterpret_cast<float*>(block));
            for (int s = 0; s < 8; ++s)
                for (int k = 0; k < 8; ++k)
                    _mm256_store_si256(
                        reinterpret_cast<__m256i*>(block + kFactorBytes + 32 * (8 * s + k)),
                        packed.chunk(b, s, k));
        }
    }
};

// Sub-block s's part of a (row, token) accumulator, in the order the AVX-512 tile keeps too: the
// integer dot scaled, then the offset.
INFERLENS_AVX2 inline __m256 addSubBlock(__m256 acc, const float* factors, int s,
                                         const QuantizedActivations& x, size_t sub, __m256i dot) {
    acc = _mm256_fmadd_ps(
        _mm256_mul_ps(_mm256_load_ps(factors + 8 * s), _mm256_set1_ps(x.scales[sub])),
        _mm256_cvtepi32_ps(dot), acc);
    return _mm256_fmadd_ps(_mm256_load_ps(factors + 64 + 8 * s), _mm256_set1_ps(x.scaledSums[sub]),
                           acc);
}

// AVX2: a sub-block at a time, its chunks in registers once for the tile's tokens and each token's
// dot kept as int16 pair sums (nibblePairSums) over as many chunks as fit (Source::kPairSumGroup),
// which keeps 4 chunks of Q5_K's in registers instead of 8 (GCC spilled them beside 4 tokens'
// accumulators). A pair of sub-blocks at once, as the VNNI tile below does, needs more
// accumulators per token than AVX2's 16 registers hold. TinyLlama-shaped matrix, one core,
// bench_packed_products: Q4_K 105 → 145 Gop/s, Q5_K 110 → 119. `Source`: PackedQ4kAvx2 or
// DecodedAvx2 of it, the same values either way; decoded once, a prefill's Q5_K 123 → 156 Gop/s
// and Q6_K 98 → 122 (AMD Zen 3, best of 3 × 9 runs; Q4_K's nibbles cost about as much to load
// as to unpack: 150 either way).
template <typename Source, int T>
INFERLENS_AVX2 void q4kAvx2Tile(const Source& source, const QuantizedActivations* const* xs,
                                int64_t blocks, float* out, int stride) {
    constexpr int kChunks = Source::kPairSumGroup;
    __m256 acc[T];
#pragma GCC unroll 4
    for (int t = 0; t < T; ++t)
        acc[t] = _mm256_setzero_ps();
    for (int64_t b = 0; b < blocks; ++b) {
        if constexpr (T == 1 && Source::kPrefetch)
            source.prefetch(b);
        alignas(32) float buffer[16 * kPackedRows];
        const float* factors = source.factors(b, buffer);
#pragma GCC unroll 8
        for (int s = 0; s < 8; ++s) {
            const size_t sub = size_t(8 * b + s);
            __m256i dot[T];
#pragma GCC unroll 4
            for (int t = 0; t < T; ++t)
                dot[t] = _mm256_setzero_si256();
#pragma GCC unroll 2
            for (int first = 0; first < 8; first += kChunks) {
                __m256i chunk[kChunks];
#pragma GCC unroll 8
                for (int k = 0; k < kChunks; ++k)
                    chunk[k] = source.chunk(b, s, first + k);
#pragma GCC unroll 4
                for (int t = 0; t < T; ++t) {
                    const int8_t* a = xs[t]->values.data() + sub * 32 + 4 * first;
                    __m256i pairs = _mm256_setzero_si256();
#pragma GCC unroll 8
                    for (int k = 0; k < kChunks; ++k)
                        pairs = nibblePairSums(pairs, chunk[k], GroupLanes::broadcast4(a + 4 * k));
                    dot[t] = _mm256_add_epi32(dot[t], widenPairSums(pairs));
                    if (first + kChunks == 8)
                        acc[t] = addSubBlock(acc[t], factors, s, *xs[t], sub, dot[t]);
                }
            }
        }
    }
    for (int t = 0; t < T; ++t)
        GroupLanes::storeRows(acc[t], out + t * stride);
}

template <bool fifth, int T>
INFERLENS_AVX2 void q4kAvx2(const std::byte* group, int64_t, const QuantizedActivations* const* xs,
                            int64_t blocks, float* out, int stride) {
    q4kAvx2Tile<PackedQ4kAvx2<fifth>, T>(PackedQ4kAvx2<fifth>{{group, 0}}, xs, blocks, out, stride);
}

// Where an AVX-512 Q4_K/Q5_K tile takes a super-block's values from: decoded from the packed
// copy as it goes (PackedQ4k), or read back from a copy decoded once for a prefill's block of
// tokens (Decoded, below). Per row lane: factors[s] = d · sc and factors[8 + s] = −dmin · m of
// sub-block s (W::kRows floats each), and for the pair p of sub-blocks 2p, 2p + 1 and chunk k,
// the values (4 or 5 bits) of chunk k of each.
template <typename W, bool fifth>
struct PackedQ4k : PackedSuperBlocks<kPackedBytes<fifth>> {
    using Ints = typename W::Ints;
    using PackedSuperBlocks<kPackedBytes<fifth>>::block;
    using PackedSuperBlocks<kPackedBytes<fifth>>::groupBytes;

    // Written into `buffer` (16 · W::kRows floats, aligned), which is returned.
    INFERLENS_AVX512 const float* factors(int64_t b, float* buffer) const {
        const std::byte* at = block(b);
        const typename W::Floats d = W::halves(at, groupBytes);
        const typename W::Floats negativeDmin = W::negate(W::halves(at + 16, groupBytes));
#pragma GCC unroll 8
        for (int s = 0; s < 8; ++s) {
            W::storeFloats(buffer + s * W::kRows,
                           W::multiply(d, W::unsignedBytes(at + 32 + 8 * s, groupBytes)));
            W::storeFloats(
                buffer + (8 + s) * W::kRows,
                W::multiply(negativeDmin, W::unsignedBytes(at + 96 + 8 * s, groupBytes)));
        }
        return buffer;
    }
    // Sub-block 2p's (lo) and 2p + 1's (hi) values of chunk k.
    static constexpr int kOuter = 4, kInner = 8, kVectors = 2;
    INFERLENS_AVX512 void values(int64_t b, int p, int k, Ints (&v)[kVectors]) const {
        const std::byte* at = block(b);
        const Ints mask4 = W::everyByte(0x0f);
        const Ints chunk = W::load(at + packedNibblesAt(fifth) + 256 * p + 32 * k, groupBytes);
        v[0] = W::both(chunk, mask4);
        v[1] = W::both(W::shiftRight16(chunk, 4), mask4);
        if constexpr (fifth) {
            const Ints bits = W::load(at + 160 + 32 * k, groupBytes);
            v[0] = W::either(v[0], W::fifthBits(bits, 2 * p));
            v[1] = W::either(v[1], W::fifthBits(bits, 2 * p + 1));
        }
    }
};

// AVX-512 VNNI, over W's rows (one group, or two side by side: packed_lanes.h): a pair of
// sub-blocks at a time, each pair's integer dots built in kChains accumulators per sub-block and
// token (exact, so in any order): two for one token, so that a decode step is not bound by the
// latency of a single chain of dot-product instructions; one for four tokens, which have chains
// enough (the one-group prefill tile: Q4_K 240 → 262 Gop/s, Q5_K 166–191 → 203–209, Zen 4).
// The float steps per (row, token) are those of the AVX2 tile.
// `Source`: PackedQ4k or Decoded<PackedQ4k>, the same values either way.
template <typename W, typename Source, int T>
INFERLENS_AVX512 void q4kAvx512Tile(const Source& source, const QuantizedActivations* const* xs,
                                    int64_t blocks, float* out, int stride) {
    using Ints = typename W::Ints;
    using Floats = typename W::Floats;
    constexpr int kChains = T == 1 ? 2 : 1;
    Floats acc[T];
#pragma GCC unroll 4
    for (int t = 0; t < T; ++t)
        acc[t] = W::zero();
    for (int64_t b = 0; b < blocks; ++b) {
        if constexpr (T == 1 && Source::kPrefetch)
            source.prefetch(b);
        alignas(64) float buffer[16 * W::kRows];
        const float* factors = source.factors(b, buffer);
#pragma GCC unroll 4
        for (int p = 0; p < 4; ++p) {
            Ints low[T][kChains], high[T][kChains];
#pragma GCC unroll 4
            for (int t = 0; t < T; ++t)
                for (int i = 0; i < kChains; ++i) {
                    low[t][i] = W::zeroInts();
                    high[t][i] = W::zeroInts();
                }
#pragma GCC unroll 8
            for (int k = 0; k < 8; ++k) {
                Ints v[2];
                source.values(b, p, k, v);
#pragma GCC unroll 4
                for (int t = 0; t < T; ++t) {
                    const int8_t* a = xs[t]->values.data() + (8 * b + 2 * p) * 32 + 4 * k;
                    low[t][k % kChains] = W::dot(low[t][k % kChains], v[0], W::broadcast4(a));
                    high[t][k % kChains] =
                        W::dot(high[t][k % kChains], v[1], W::broadcast4(a + 32));
                }
            }
#pragma GCC unroll 4
            for (int t = 0; t < T; ++t) {
                Ints dots[2] = {low[t][0], high[t][0]};
                if constexpr (kChains == 2)
                    dots[0] = W::add(dots[0], low[t][1]), dots[1] = W::add(dots[1], high[t][1]);
#pragma GCC unroll 2
                for (int i = 0; i < 2; ++i) {
                    const int s = 2 * p + i;
                    const size_t sub = size_t(8 * b + s);
                    acc[t] = W::multiplyAdd(W::multiply(W::loadFloats(factors + s * W::kRows),
                                                        W::every(xs[t]->scales[sub])),
                                            W::toFloats(dots[i]), acc[t]);
                    acc[t] = W::multiplyAdd(W::loadFloats(factors + (8 + s) * W::kRows),
                                            W::every(xs[t]->scaledSums[sub]), acc[t]);
                }
            }
        }
    }
    for (int t = 0; t < T; ++t)
        W::storeRows(acc[t], out + t * stride);
}

template <typename W, bool fifth, int T>
INFERLENS_AVX512 void q4kAvx512(const std::byte* group, int64_t groupBytes,
                                const QuantizedActivations* const* xs, int64_t blocks, float* out,
                                int stride) {
    q4kAvx512Tile<W, PackedQ4k<W, fifth>, T>(PackedQ4k<W, fifth>{group, groupBytes}, xs, blocks,
                                             out, stride);
}

// AVX2: a sub-block (4h + k) at a time, its 8 chunks of 6-bit values decoded into registers once
// for the tile's tokens. A token's dot keeps two chunks' pair sums in int16 (2 · 2 · 63 · 127 <
// 2¹⁵) and widens them with vpmaddwd by the 16-value group's int8 scale instead of by ones, so
// that the sub-block's two scales cost nothing and it takes one conversion and one FMA; the bias
// 32 · Σ a of each group, scaled the same way, comes off in integers (the scaled dot of a
// sub-block stays below 2³¹; beyond 2²⁴ its conversion rounds, as any f32 sum does). One
// bench_packed_products matrix, one core: 72 → 105 Gop/s.
// `Source`: PackedQ6kAvx2 or DecodedAvx2 of it.
template <typename Source, int T>
INFERLENS_AVX2 void q6kAvx2Tile(const Source& source, const QuantizedActivations* const* xs,
                                int64_t blocks, float* out, int stride) {
    __m256 acc[T];
#pragma GCC unroll 4
    for (int t = 0; t < T; ++t)
        acc[t] = _mm256_setzero_ps();
    for (int64_t b = 0; b < blocks; ++b) {
        if constexpr (T == 1 && Source::kPrefetch)
            source.prefetch(b);
        const std::byte* block = source.block(b);
        const __m256 d = GroupLanes::halves(block, 0);
#pragma GCC unroll 8
        for (int sub = 0; sub < 8; ++sub) {
            // Row j's lane: its two group scales as int16 (first, second), and each doubled.
            const __m128i scales =
                _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 16 + 16 * sub));
            const __m128i second = _mm_srli_si128(scales, 8);
            const __m256i bothScales = _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(scales, second));
            const __m256i groupScale[2] = {_mm256_cvtepi8_epi16(_mm_unpacklo_epi8(scales, scales)),
                                           _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(second, second))};
            __m256i q[8];
#pragma GCC unroll 8
            for (int i = 0; i < 8; ++i)
                q[i] = source.chunk(b, sub, i);
#pragma GCC unroll 4
            for (int t = 0; t < T; ++t) {
                const size_t at = size_t(8 * b + sub);
                const int8_t* a = xs[t]->values.data() + at * 32;
                __m256i dot = _mm256_setzero_si256();
#pragma GCC unroll 4
                for (int i = 0; i < 8; i += 2) {
                    const __m256i pairs = _mm256_add_epi16(
                        _mm256_maddubs_epi16(q[i], GroupLanes::broadcast4(a + 4 * i)),
                        _mm256_maddubs_epi16(q[i + 1], GroupLanes::broadcast4(a + 4 * i + 4)));
                    dot = _mm256_add_epi32(dot, _mm256_madd_epi16(pairs, groupScale[i / 4]));
                }
                // The two groups' Σ a, negated (their biases / 32: exact), as int16.
                const __m128i halfSums = _mm_srai_epi32(
                    _mm_loadl_epi64(
                        reinterpret_cast<const __m128i*>(xs[t]->halfSumBiases.data() + 2 * at)),
                    5);
                const __m256i bias = _mm256_madd_epi16(
                    bothScales, _mm256_broadcastd_epi32(_mm_packs_epi32(halfSums, halfSums)));
                dot = _mm256_add_epi32(dot, _mm256_slli_epi32(bias, 5));
                acc[t] = _mm256_fmadd_ps(_mm256_mul_ps(d, _mm256_set1_ps(xs[t]->scales[at])),
                                         _mm256_cvtepi32_ps(dot), acc[t]);
            }
        }
    }
    for (int t = 0; t < T; ++t)
        GroupLanes::storeRows(acc[t], out + t * stride);
}

template <int T>
INFERLENS_AVX2 void q6kAvx2(const std::byte* group, int64_t, const QuantizedActivations* const* xs,
                            int64_t blocks, float* out, int stride) {
    q6kAvx2Tile<PackedQ6kAvx2, T>(PackedQ6kAvx2{{group, 0}}, xs, blocks, out, stride);
}

// Where an AVX-512 Q6_K tile takes a super-block's values from, as for Q4_K (PackedQ4k): per row
// lane, factors[g] = d · sc of 16-value group g (W::kRows floats each), and for half h and chunk
// c, the 6-bit values of chunk c of sub-blocks 4h + k, k = 0…3.
template <typename W>
struct PackedQ6k : PackedSuperBlocks<kPackedQ6_KBytes> {
    using Ints = typename W::Ints;

    INFERLENS_AVX512 const float* factors(int64_t b, float* buffer) const {
        const std::byte* at = block(b);
        const typename W::Floats d = W::halves(at, groupBytes);
#pragma GCC unroll 16
        for (int g = 0; g < 16; ++g)
            W::storeFloats(buffer + g * W::kRows,
                           W::multiply(d, W::signedBytes(at + 16 + 8 * g, groupBytes)));
        return buffer;
    }
    // Chunk c of half h: sub-blocks 4h + k, k = 0…3.
    static constexpr int kOuter = 2, kInner = 8, kVectors = 4;
    INFERLENS_AVX512 void values(int64_t b, int h, int c, Ints (&q)[kVectors]) const {
        const std::byte* half = block(b) + 144 + h * (16 + 8) * 32;
        const Ints mask4 = W::everyByte(0x0f), mask2 = W::everyByte(3);
        const Ints low0 = W::load(half + 32 * c, groupBytes);
        const Ints low1 = W::load(half + 32 * (c + 8), groupBytes);
        const Ints high = W::load(half + 32 * (16 + c), groupBytes);
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) {
            const Ints low = k % 2 == 0 ? low0 : low1;
            // Sub-block k's 2-bit high part, at bits 4 and 5.
            const Ints highBits = W::shiftLeft16(W::both(W::shiftRight16(high, 2 * k), mask2), 4);
            q[k] = W::either(W::both(k < 2 ? low : W::shiftRight16(low, 4), mask4), highBits);
        }
    }
};

// AVX-512 VNNI, over W's rows: per half h, a 16-value group g of its sub-blocks 4h + k, k = 0…3, at
// a time (chunks c = 4g … 4g + 3 hold 4 elements each of all four sub-blocks), a dot-product chain
// per sub-block and token. Each chain starts from its group's bias −32 · Σ a (halfSumBiases), so
// that it ends at Σ q a − 32 · Σ a with no step of its own: a subtraction of a broadcast per group
// and token cost the pair tile a fifth of its speed (bench_packed_products, Zen 4: 221 → 277
// Gop/s without it). `Source`: PackedQ6k or Decoded<PackedQ6k>.
template <typename W, typename Source, int T>
INFERLENS_AVX512 void q6kAvx512Tile(const Source& source, const QuantizedActivations* const* xs,
                                    int64_t blocks, float* out, int stride) {
    using Ints = typename W::Ints;
    using Floats = typename W::Floats;
    Floats acc[T];
#pragma GCC unroll 4
    for (int t = 0; t < T; ++t)
        acc[t] = W::zero();
    for (int64_t b = 0; b < blocks; ++b) {
        if constexpr (T == 1 && Source::kPrefetch)
            source.prefetch(b);
        alignas(64) float buffer[16 * W::kRows];
        const float* scale = source.factors(b, buffer);
#pragma GCC unroll 2
        for (int h = 0; h < 2; ++h) {
#pragma GCC unroll 2
            for (int g = 0; g < 2; ++g) {
                Ints dot[T][4];
#pragma GCC unroll 4
                for (int t = 0; t < T; ++t)
#pragma GCC unroll 4
                    for (int k = 0; k < 4; ++k)
                        dot[t][k] =
                            W::everyLane(xs[t]->halfSumBiases[2 * size_t(8 * b + 4 * h + k) + g]);
#pragma GCC unroll 4
                for (int c = 4 * g; c < 4 * g + 4; ++c) {
                    Ints q[4];
                    source.values(b, h, c, q);
#pragma GCC unroll 4
                    for (int t = 0; t < T; ++t)
#pragma GCC unroll 4
                        for (int k = 0; k < 4; ++k)
                            dot[t][k] = W::dot(dot[t][k], q[k],
                                               W::broadcast4(xs[t]->values.data() +
                                                             (8 * b + 4 * h + k) * 32 + 4 * c));
                }
#pragma GCC unroll 4
                for (int t = 0; t < T; ++t)
#pragma GCC unroll 4
                    for (int k = 0; k < 4; ++k) {
                        const size_t sub = size_t(8 * b + 4 * h + k);
                        acc[t] = W::multiplyAdd(
                            W::multiply(W::loadFloats(scale + (2 * (4 * h + k) + g) * W::kRows),
                                        W::every(xs[t]->scales[sub])),
                            W::toFloats(dot[t][k]), acc[t]);
                    }
            }
        }
    }
    for (int t = 0; t < T; ++t)
        W::storeRows(acc[t], out + t * stride);
}

template <typename W, int T>
INFERLENS_AVX512 void q6kAvx512(const std::byte* group, int64_t groupBytes,
                                const QuantizedActivations* const* xs, int64_t blocks, float* out,
                                int stride) {
    q6kAvx512Tile<W, PackedQ6k<W>, T>(PackedQ6k<W>{group, groupBytes}, xs, blocks, out, stride);
}

// A pair of groups' super-blocks decoded once from the packed copy (`Packed`: PackedQ4k or
// PackedQ6k over GroupPairLanes): per super-block the factors, then the values of each unit (i, j)
// as Packed::values gives them. What a prefill's tile reads for every 4 tokens of its block
// instead of unpacking the nibbles and high bits again each time: the same values, so the same
// sums, bit for bit.
template <typename Packed>
struct Decoded {
    using W = GroupPairLanes;
    using Source = Packed;
    static constexpr bool kPrefetch = false;
    static constexpr int64_t kFactorBytes = 16 * W::kRows * 4;
    static constexpr int64_t kUnitBytes = Packed::kVectors * 64;
    static constexpr int64_t kBlockBytes =
        kFactorBytes + Packed::kOuter * Packed::kInner * kUnitBytes;
    Packed packed;
    const std::byte* decoded;

    INFERLENS_AVX512 const float* factors(int64_t b, float*) const {
        return reinterpret_cast<const float*>(decoded + b * kBlockBytes);
    }
    INFERLENS_AVX512 void values(int64_t b, int i, int j, __m512i (&v)[Packed::kVectors]) const {
        const std::byte* unit =
            decoded + b * kBlockBytes + kFactorBytes + (Packed::kInner * i + j) * kUnitBytes;
        // Unrolled, so that the values stay in registers: rolled, GCC copied them through the
        // stack (the Q6_K pair tile: 201 → 221 Gop/s unrolled).
#pragma GCC unroll 4
        for (int k = 0; k < Packed::kVectors; ++k)
            v[k] = _mm512_load_si512(unit + 64 * k);
    }
    void prefetch(int64_t) const {}

    INFERLENS_AVX512 static void decode(const Packed& packed, int64_t blocks, std::byte* decoded) {
        for (int64_t b = 0; b < blocks; ++b) {
            std::byte* block = decoded + b * kBlockBytes;
            packed.factors(b, reinterpret_cast<float*>(block));
            for (int i = 0; i < Packed::kOuter; ++i)
                for (int j = 0; j < Packed::kInner; ++j) {
                    __m512i v[Packed::kVectors];
                    packed.values(b, i, j, v);
                    for (int k = 0; k < Packed::kVectors; ++k)
                        _mm512_store_si512(
                            block + kFactorBytes + (Packed::kInner * i + j) * kUnitBytes + 64 * k,
                            v[k]);
                }
        }
    }
};

// Below this many tokens a prefill's tile decodes as it goes: decoding once costs about what
// decoding for 4 tokens does.
constexpr int kDecodeOnceTokens = 8;

// The calling thread's buffer for decoded super-blocks, 64-byte aligned and at least `bytes` long
// (grown to the longest rows met: 5 KiB per super-block, 110 KiB for TinyLlama's FFN down).
std::byte* decodeBuffer(int64_t bytes) {
    struct alignas(64) Line {
        std::byte bytes[64];
    };
    thread_local std::vector<Line> lines;
    if (int64_t(lines.size()) * 64 < bytes)
        lines.resize(size_t((bytes + 63) / 64));
    return lines.data()->bytes;
}

template <typename Decoded>
using DecodedTile = void (*)(const Decoded& source, const QuantizedActivations* const* xs,
                             int64_t blocks, float* out, int stride);

// A group (groupBytes 0: the AVX2 tiles) or a pair of groups (AVX-512) against a prefill's block
// of tokens: their super-blocks decoded once (`D`: DecodedAvx2 or Decoded of a packed source),
// then read back for every 4 tokens (decodedMany) and each token left (decodedOne), instead of
// each tile unpacking them again, the next pair prefetched along the way (tokenTilesOfPair);
// below kDecodeOnceTokens, the tiles that decode as they go (many, one). The same values either
// way: the same sums.
template <typename D, RegisterTile many, RegisterTile one, DecodedTile<D> decodedMany,
          DecodedTile<D> decodedOne>
void decodedTiles(const std::byte* group, int64_t groupBytes, const QuantizedActivations* const* xs,
                  int tokenCount, int64_t blocks, float* out) {
    if (tokenCount < kDecodeOnceTokens)
        return anyTokensOfPair<many, one>(group, groupBytes, xs, tokenCount, blocks, out);
    std::byte* buffer = decodeBuffer(blocks * D::kBlockBytes);
    const typename D::Source packed{{group, groupBytes}};
    D::decode(packed, blocks, buffer);
    const D decoded{packed, buffer};
    const int rows = (groupBytes != 0 ? 2 : 1) * kPackedRows;
    tokenTilesOfPair(group, groupBytes, tokenCount, [&](int t, bool four) {
        (four ? decodedMany : decodedOne)(decoded, xs + t, blocks, out + t * rows, rows);
    });
}
template <typename D, RegisterTile many, RegisterTile one, DecodedTile<D> decodedMany,
          DecodedTile<D> decodedOne>
void decodedGroup(const std::byte* group, const QuantizedActivations* const* xs, int tokenCount,
                  int64_t blocks, float* out) {
    decodedTiles<D, many, one, decodedMany, decodedOne>(group, 0, xs, tokenCount, blocks, out);
}

template <bool fifth>
PackedTile q4kTile(CpuKernels kernels) {
    if (kernels == CpuKernels::Avx512)
        return anyTokens<q4kAvx512<GroupLanes, fifth, 4>, q4kAvx512<GroupLanes, fifth, 1>>;
    using Q4k = DecodedAvx2<PackedQ4kAvx2<fifth>>;
    if (kernels == CpuKernels::Avx2)
        return decodedGroup<Q4k, q4kAvx2<fifth, 4>, q4kAvx2<fifth, 1>, q4kAvx2Tile<Q4k, 4>,
                            q4kAvx2Tile<Q4k, 1>>;
    return nullptr;
}
template <bool fifth>
PackedPairTile q4kPairTile(CpuKernels kernels) {
    using W = GroupPairLanes;
    using Q4k = PackedQ4k<W, fifth>;
    if (kernels == CpuKernels::Avx512)
        return decodedTiles<Decoded<Q4k>, q4kAvx512<W, fifth, 4>, q4kAvx512<W, fifth, 1>,
                            q4kAvx512Tile<W, Decoded<Q4k>, 4>, q4kAvx512Tile<W, Decoded<Q4k>, 1>>;
    return nullptr;
}
PackedTile q6kTile(CpuKernels kernels) {
    if (kernels == CpuKernels::Avx512)
        return anyTokens<q6kAvx512<GroupLanes, 4>, q6kAvx512<GroupLanes, 1>>;
    using Q6k = DecodedAvx2<PackedQ6kAvx2>;
    if (kernels == CpuKernels::Avx2)
        return decodedGroup<Q6k, q6kAvx2<4>, q6kAvx2<1>, q6kAvx2Tile<Q6k, 4>, q6kAvx2Tile<Q6k, 1>>;
    return nullptr;
}
PackedPairTile q6kPairTile(CpuKernels kernels) {
    using W = GroupPairLanes;
    using Q6k = PackedQ6k<W>;
    if (kernels == CpuKernels::Avx512)
        return decodedTiles<Decoded<Q6k>, q6kAvx512<W, 4>, q6kAvx512<W, 1>,
                            q6kAvx512Tile<W, Decoded<Q6k>, 4>, q6kAvx512Tile<W, Decoded<Q6k>, 1>>;
    return nullptr;
}
#else
template <bool>
PackedTile q4kTile(CpuKernels) {
    return nullptr;
}
template <bool>
PackedPairTile q4kPairTile(CpuKernels) {
    return nullptr;
}
PackedTile q6kTile(CpuKernels) {
    return nullptr;
}
PackedPairTile q6kPairTile(CpuKernels) {
    return nullptr;
}
#endif

}  // namespace

const PackedFormat* packedKFormat(DType dtype) {
    static const PackedFormat q4_k{kPackedBytes<false>, packQ4_K<false>, q4kTile<false>,
                                   q4kPairTile<false>};
    static const PackedFormat q5_k{kPackedBytes<true>, packQ4_K<true>, q4kTile<true>,
                                   q4kPairTile<true>};
    static const PackedFormat q6_k{kPackedQ6_KBytes, packQ6_K, q6kTile, q6kPairTile};
    switch (dtype) {
        case DType::Q4_K:
            return &q4_k;
        case DType::Q5_K:
            return &q5_k;
        case DType::Q6_K:
            return &q6_k;
        default:
            return nullptr;
    }
}

}  // namespace inferlens
