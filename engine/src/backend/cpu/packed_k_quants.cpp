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

// 8 bytes as 8 floats.
INFERLENS_AVX2 inline __m256 byteFloats(const std::byte* bytes) {
    return _mm256_cvtepi32_ps(
        _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(bytes))));
}

// A packed Q4_K/Q5_K super-block's per-row factors of sub-block s: scale[s] = d · sc,
// offset[s] = −dmin · m.
INFERLENS_AVX2 inline void subBlockFactors(const std::byte* block, float (&scale)[8][8],
                                           float (&offset)[8][8]) {
    const __m256 d = packedScales(block);
    const __m256 negativeDmin = _mm256_sub_ps(_mm256_setzero_ps(), packedScales(block + 16));
#pragma GCC unroll 8
    for (int s = 0; s < 8; ++s) {
        _mm256_store_ps(scale[s], _mm256_mul_ps(d, byteFloats(block + 32 + 8 * s)));
        _mm256_store_ps(offset[s], _mm256_mul_ps(negativeDmin, byteFloats(block + 96 + 8 * s)));
    }
}

// Sub-block s's part of a (row, token) accumulator, in the order both tiles keep: the integer dot
// scaled, then the offset.
INFERLENS_AVX2 inline __m256 addSubBlock(__m256 acc, const float (&scale)[8][8],
                                         const float (&offset)[8][8], int s,
                                         const QuantizedActivations& x, size_t sub, __m256i dot) {
    acc = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_load_ps(scale[s]), _mm256_set1_ps(x.scales[sub])),
                          _mm256_cvtepi32_ps(dot), acc);
    return _mm256_fmadd_ps(_mm256_load_ps(offset[s]), _mm256_set1_ps(x.scaledSums[sub]), acc);
}

// AVX2: a sub-block at a time, its chunks decoded into registers once for the tile's tokens and
// each token's dot kept as int16 pair sums (nibblePairSums) over as many chunks as fit: all 8 of
// 4-bit values, then 4 and 4 of Q5_K's 5-bit ones, which keeps 4 chunks in registers instead of 8
// (GCC spilled them beside 4 tokens' accumulators). A pair of sub-blocks at once, as the VNNI tile
// below does, needs more accumulators per token than AVX2's 16 registers hold. TinyLlama-shaped
// matrix, one core, bench_packed_products: Q4_K 105 → 145 Gop/s, Q5_K 110 → 119. `fifth`: Q5_K,
// whose fifth bits join the nibbles.
template <bool fifth, int T>
INFERLENS_AVX2 void q4kAvx2(const std::byte* group, const QuantizedActivations* const* xs,
                            int64_t blocks, float* out, int stride) {
    constexpr int kChunks = fifth ? kPairSumChunks : 2 * kPairSumChunks;
    __m256 acc[T];
#pragma GCC unroll 4
    for (int t = 0; t < T; ++t)
        acc[t] = _mm256_setzero_ps();
    for (int64_t b = 0; b < blocks; ++b) {
        const std::byte* block = group + b * kPackedBytes<fifth>;
        alignas(32) float scale[8][8], offset[8][8];
        subBlockFactors(block, scale, offset);
        const auto* nibbles = reinterpret_cast<const __m256i*>(block + packedNibblesAt(fifth));
        const auto* fifthBitWords = reinterpret_cast<const __m256i*>(block + 160);
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
                for (int k = 0; k < kChunks; ++k) {
                    const __m256i bytes = _mm256_loadu_si256(nibbles + 8 * (s / 2) + first + k);
                    chunk[k] = _mm256_and_si256(s % 2 == 0 ? bytes : _mm256_srli_epi16(bytes, 4),
                                                _mm256_set1_epi8(0x0f));
                    if constexpr (fifth)
                        chunk[k] = _mm256_or_si256(
                            chunk[k], fifthBits(_mm256_loadu_si256(fifthBitWords + first + k), s));
                }
#pragma GCC unroll 4
                for (int t = 0; t < T; ++t) {
                    const int8_t* a = xs[t]->values.data() + sub * 32 + 4 * first;
                    __m256i pairs = _mm256_setzero_si256();
#pragma GCC unroll 8
                    for (int k = 0; k < kChunks; ++k)
                        pairs = nibblePairSums(pairs, chunk[k], broadcast4(a + 4 * k));
                    dot[t] = _mm256_add_epi32(dot[t], widenPairSums(pairs));
                    if (first + kChunks == 8)
                        acc[t] = addSubBlock(acc[t], scale, offset, s, *xs[t], sub, dot[t]);
                }
            }
        }
    }
    for (int t = 0; t < T; ++t)
        storeRows(acc[t], out + t, stride);
}

// AVX-512 VNNI: a pair of sub-blocks at a time, each pair's integer dots built in two accumulators
// per sub-block and token (exact, so in any order), so that one decode step is not bound by the
// latency of a single chain of dot-product instructions.
template <bool fifth, int T>
INFERLENS_AVX512 void q4kAvx512(const std::byte* group, const QuantizedActivations* const* xs,
                                int64_t blocks, float* out, int stride) {
    __m256 acc[T];
#pragma GCC unroll 4
    for (int t = 0; t < T; ++t)
        acc[t] = _mm256_setzero_ps();
    for (int64_t b = 0; b < blocks; ++b) {
        const std::byte* block = group + b * kPackedBytes<fifth>;
        alignas(32) float scale[8][8], offset[8][8];
        subBlockFactors(block, scale, offset);
#pragma GCC unroll 4
        for (int p = 0; p < 4; ++p) {
            __m256i low[T][2], high[T][2];
#pragma GCC unroll 4
            for (int t = 0; t < T; ++t)
                for (int i = 0; i < 2; ++i) {
                    low[t][i] = _mm256_setzero_si256();
                    high[t][i] = _mm256_setzero_si256();
                }
#pragma GCC unroll 8
            for (int k = 0; k < 8; ++k) {
                const __m256i chunk = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(
                    block + packedNibblesAt(fifth) + 256 * p + 32 * k));
                __m256i lo = _mm256_and_si256(chunk, _mm256_set1_epi8(0x0f));
                __m256i hi = _mm256_and_si256(_mm256_srli_epi16(chunk, 4), _mm256_set1_epi8(0x0f));
                if constexpr (fifth) {
                    const __m256i bits =
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 160 + 32 * k));
                    lo = _mm256_or_si256(lo, fifthBits(bits, 2 * p));
                    hi = _mm256_or_si256(hi, fifthBits(bits, 2 * p + 1));
                }
#pragma GCC unroll 4
                for (int t = 0; t < T; ++t) {
                    const int8_t* a = xs[t]->values.data() + (8 * b + 2 * p) * 32 + 4 * k;
                    low[t][k % 2] = nibbleProductsVnni(low[t][k % 2], lo, broadcast4(a));
                    high[t][k % 2] = nibbleProductsVnni(high[t][k % 2], hi, broadcast4(a + 32));
                }
            }
#pragma GCC unroll 4
            for (int t = 0; t < T; ++t) {
                const __m256i dots[2] = {_mm256_add_epi32(low[t][0], low[t][1]),
                                         _mm256_add_epi32(high[t][0], high[t][1])};
#pragma GCC unroll 2
                for (int i = 0; i < 2; ++i)
                    acc[t] = addSubBlock(acc[t], scale, offset, 2 * p + i, *xs[t],
                                         size_t(8 * b + 2 * p + i), dots[i]);
            }
        }
    }
    for (int t = 0; t < T; ++t)
        storeRows(acc[t], out + t, stride);
}

// AVX2: a sub-block (4h + k) at a time, its 8 chunks of 6-bit values decoded into registers once
// for the tile's tokens. A token's dot keeps two chunks' pair sums in int16 (2 · 2 · 63 · 127 <
// 2¹⁵) and widens them with vpmaddwd by the 16-value group's int8 scale instead of by ones, so
// that the sub-block's two scales cost nothing and it takes one conversion and one FMA; the bias
// 32 · Σ a of each group, scaled the same way, comes off in integers (the scaled dot of a
// sub-block stays below 2³¹; beyond 2²⁴ its conversion rounds, as any f32 sum does). One
// bench_packed_products matrix, one core: 72 → 105 Gop/s.
template <int T>
INFERLENS_AVX2 void q6kAvx2(const std::byte* group, const QuantizedActivations* const* xs,
                            int64_t blocks, float* out, int stride) {
    __m256 acc[T];
#pragma GCC unroll 4
    for (int t = 0; t < T; ++t)
        acc[t] = _mm256_setzero_ps();
    for (int64_t b = 0; b < blocks; ++b) {
        const std::byte* block = group + b * kPackedQ6_KBytes;
        const __m256 d = packedScales(block);
#pragma GCC unroll 2
        for (int h = 0; h < 2; ++h) {
            const std::byte* half = block + 144 + h * (16 + 8) * 32;
            const auto* chunks = reinterpret_cast<const __m256i*>(half);
#pragma GCC unroll 4
            for (int k = 0; k < 4; ++k) {
                const int sub = 4 * h + k;
                // Row j's lane: its two group scales as int16 (first, second), and each doubled.
                const __m128i scales =
                    _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 16 + 16 * sub));
                const __m128i second = _mm_srli_si128(scales, 8);
                const __m256i bothScales = _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(scales, second));
                const __m256i groupScale[2] = {
                    _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(scales, scales)),
                    _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(second, second))};
                __m256i q[8];
#pragma GCC unroll 8
                for (int i = 0; i < 8; ++i) {
                    const __m256i low = _mm256_loadu_si256(chunks + 8 * (k % 2) + i);
                    const __m256i high = _mm256_loadu_si256(chunks + 16 + i);
                    const __m256i highBits = k < 2 ? _mm256_slli_epi16(high, 4 - 2 * k)
                                                   : _mm256_srli_epi16(high, 2 * k - 4);
                    q[i] = _mm256_or_si256(_mm256_and_si256(k < 2 ? low : _mm256_srli_epi16(low, 4),
                                                            _mm256_set1_epi8(0x0f)),
                                           _mm256_and_si256(highBits, _mm256_set1_epi8(0x30)));
                }
#pragma GCC unroll 4
                for (int t = 0; t < T; ++t) {
                    const size_t at = size_t(8 * b + sub);
                    const int8_t* a = xs[t]->values.data() + at * 32;
                    __m256i dot = _mm256_setzero_si256();
#pragma GCC unroll 4
                    for (int i = 0; i < 8; i += 2) {
                        const __m256i pairs = _mm256_add_epi16(
                            _mm256_maddubs_epi16(q[i], broadcast4(a + 4 * i)),
                            _mm256_maddubs_epi16(q[i + 1], broadcast4(a + 4 * i + 4)));
                        dot = _mm256_add_epi32(dot, _mm256_madd_epi16(pairs, groupScale[i / 4]));
                    }
                    const __m128i halfSums = _mm_loadl_epi64(
                        reinterpret_cast<const __m128i*>(xs[t]->halfSums.data() + 2 * at));
                    const __m256i bias = _mm256_madd_epi16(
                        bothScales, _mm256_broadcastd_epi32(_mm_packs_epi32(halfSums, halfSums)));
                    dot = _mm256_sub_epi32(dot, _mm256_slli_epi32(bias, 5));
                    acc[t] = _mm256_fmadd_ps(_mm256_mul_ps(d, _mm256_set1_ps(xs[t]->scales[at])),
                                             _mm256_cvtepi32_ps(dot), acc[t]);
                }
            }
        }
    }
    for (int t = 0; t < T; ++t)
        storeRows(acc[t], out + t, stride);
}

// 8 signed bytes as 8 floats.
INFERLENS_AVX2 inline __m256 signedByteFloats(const std::byte* bytes) {
    return _mm256_cvtepi32_ps(
        _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(bytes))));
}

// AVX-512 VNNI: per half h, a 16-value group g of its sub-blocks 4h + k, k = 0…3, at a time
// (chunks c = 4g … 4g + 3 hold 4 elements each of all four sub-blocks), a dot-product chain per
// sub-block and token.
template <int T>
INFERLENS_AVX512 void q6kAvx512(const std::byte* group, const QuantizedActivations* const* xs,
                                int64_t blocks, float* out, int stride) {
    __m256 acc[T];
#pragma GCC unroll 4
    for (int t = 0; t < T; ++t)
        acc[t] = _mm256_setzero_ps();
    for (int64_t b = 0; b < blocks; ++b) {
        const std::byte* block = group + b * kPackedQ6_KBytes;
        const __m256 d = packedScales(block);
        alignas(32) float scale[16][8];
#pragma GCC unroll 16
        for (int g = 0; g < 16; ++g)
            _mm256_store_ps(scale[g], _mm256_mul_ps(d, signedByteFloats(block + 16 + 8 * g)));
#pragma GCC unroll 2
        for (int h = 0; h < 2; ++h) {
            const std::byte* half = block + 144 + h * (16 + 8) * 32;
#pragma GCC unroll 2
            for (int g = 0; g < 2; ++g) {
                __m256i dot[T][4];
#pragma GCC unroll 4
                for (int t = 0; t < T; ++t)
                    for (int k = 0; k < 4; ++k)
                        dot[t][k] = _mm256_setzero_si256();
#pragma GCC unroll 4
                for (int c = 4 * g; c < 4 * g + 4; ++c) {
                    const auto chunk = [half](int index) {
                        return reinterpret_cast<const __m256i*>(half + 32 * index);
                    };
                    const __m256i low0 = _mm256_loadu_si256(chunk(c));
                    const __m256i low1 = _mm256_loadu_si256(chunk(c + 8));
                    const __m256i high = _mm256_loadu_si256(chunk(16 + c));
                    const __m256i mask4 = _mm256_set1_epi8(0x0f), mask2 = _mm256_set1_epi8(3);
                    __m256i q[4];
                    q[0] = _mm256_or_si256(_mm256_and_si256(low0, mask4),
                                           _mm256_slli_epi16(_mm256_and_si256(high, mask2), 4));
                    q[1] = _mm256_or_si256(
                        _mm256_and_si256(low1, mask4),
                        _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(high, 2), mask2), 4));
                    q[2] = _mm256_or_si256(
                        _mm256_and_si256(_mm256_srli_epi16(low0, 4), mask4),
                        _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(high, 4), mask2), 4));
                    q[3] = _mm256_or_si256(
                        _mm256_and_si256(_mm256_srli_epi16(low1, 4), mask4),
                        _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(high, 6), mask2), 4));
#pragma GCC unroll 4
                    for (int t = 0; t < T; ++t)
#pragma GCC unroll 4
                        for (int k = 0; k < 4; ++k)
                            dot[t][k] =
                                nibbleProductsVnni(dot[t][k], q[k],
                                                   broadcast4(xs[t]->values.data() +
                                                              (8 * b + 4 * h + k) * 32 + 4 * c));
                }
#pragma GCC unroll 4
                for (int t = 0; t < T; ++t)
#pragma GCC unroll 4
                    for (int k = 0; k < 4; ++k) {
                        const size_t sub = size_t(8 * b + 4 * h + k);
                        const __m256i biased = _mm256_sub_epi32(
                            dot[t][k], _mm256_set1_epi32(32 * xs[t]->halfSums[2 * sub + g]));
                        acc[t] = _mm256_fmadd_ps(
                            _mm256_mul_ps(_mm256_load_ps(scale[2 * (4 * h + k) + g]),
                                          _mm256_set1_ps(xs[t]->scales[sub])),
                            _mm256_cvtepi32_ps(biased), acc[t]);
                    }
            }
        }
    }
    for (int t = 0; t < T; ++t)
        storeRows(acc[t], out + t, stride);
}

template <bool fifth>
PackedTile q4kTile(CpuKernels kernels) {
    if (kernels == CpuKernels::Avx512)
        return anyTokens<q4kAvx512<fifth, 4>, q4kAvx512<fifth, 1>>;
    if (kernels == CpuKernels::Avx2)
        return anyTokens<q4kAvx2<fifth, 4>, q4kAvx2<fifth, 1>>;
    return nullptr;
}
PackedTile q6kTile(CpuKernels kernels) {
    if (kernels == CpuKernels::Avx512)
        return anyTokens<q6kAvx512<4>, q6kAvx512<1>>;
    if (kernels == CpuKernels::Avx2)
        return anyTokens<q6kAvx2<4>, q6kAvx2<1>>;
    return nullptr;
}
#else
template <bool>
PackedTile q4kTile(CpuKernels) {
    return nullptr;
}
PackedTile q6kTile(CpuKernels) {
    return nullptr;
}
#endif

}  // namespace

const PackedFormat* packedKFormat(DType dtype) {
    static const PackedFormat q4_k{kPackedBytes<false>, packQ4_K<false>, q4kTile<false>};
    static const PackedFormat q5_k{kPackedBytes<true>, packQ4_K<true>, q4kTile<true>};
    static const PackedFormat q6_k{kPackedQ6_KBytes, packQ6_K, q6kTile};
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
