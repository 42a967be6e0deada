// The 32-value block types (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1) packed 8 rows at a time
// (packed_rows.h): the packing of a block and the tiles, one of each for all five, described by
// a LegacyLayout (packed_legacy_layout.h).

#include "backend/cpu/packed_formats.h"
#include "backend/cpu/packed_legacy_layout.h"
#include "core/quant_blocks.h"

namespace inferlens {
namespace {

// A row's qh rearranged so that bit 8i + c is the fifth bit of byte i of its lane in chunk c
// (c < 4: element 4c + i, a low nibble; c ≥ 4: element 16 + 4(c − 4) + i = 4c + i, a high one).
uint32_t fifthBitWord(uint32_t qh) {
    uint32_t word = 0;
    for (int c = 0; c < 8; ++c)
        for (int i = 0; i < 4; ++i)
            word |= (qh >> (4 * c + i) & 1u) << (8 * i + c);
    return word;
}

// Block b of a group (packed_rows.h); padding rows get zeros, hence scale and min 0.
template <LegacyLayout L>
void packBlock(const std::byte* const* rows, int64_t b, std::byte* out) {
    static_assert(L.packedBytes() == kPackedRows * L.fileBytes,
                  "the packed copy is the file's size");
    for (int j = 0; j < kPackedRows; ++j) {
        const std::byte* block = rows[j] == nullptr ? nullptr : rows[j] + b * L.fileBytes;
        const auto field = [block](int64_t at) { return block == nullptr ? nullptr : block + at; };
        const auto copyHalf = [&](int64_t at, std::byte* to) {
            for (int i = 0; i < 2; ++i)
                to[i] = block == nullptr ? std::byte{0} : block[at + i];
        };
        copyHalf(0, out + 2 * j);
        if constexpr (L.minAt != 0)
            copyHalf(L.minAt, out + L.packedMinAt() + 2 * j);
        if constexpr (L.highAt != 0) {
            const uint32_t word = block == nullptr ? 0 : fifthBitWord(loadU32(block + L.highAt));
            std::memcpy(out + L.packedHighAt() + 4 * j, &word, 4);
        }
        for (int k = 0; k < L.chunks(); ++k)
            copyLane(field(L.valuesAt + 4 * k), out + L.packedValuesAt() + 32 * k + 4 * j,
                     L.bytes ? 0x80808080u : 0);
    }
}

#if defined(__x86_64__)

// The block dots (blockDotsVnni, blockDotsAvx2) give every token's integer dot of one packed
// block with its activation bytes (blockActivations), per row lane, into sums[t], starting at
// −bias · Σ a (biasOf), which takes off what the multiplied bytes carry beyond the values (Q4_0's
// nibbles n = q + 8, Q5_0's 5-bit values q + 16, VNNI's Q8_0 bytes q + 128): the activations'
// nibbleBiases (−8 · Σ a) times 1, 2 or 16 — for Q4_0 a broadcast from memory with no arithmetic
// of its own (its pair tile 334 → 347 Gop/s, Zen 4). Integer sums are exact, so any order gives
// the same result (and a decode step the same as a prefill); the tile's token count T may set how.
inline const int8_t* blockActivations(const QuantizedActivations* x, int64_t b) {
    return x->values.data() + b * kQuantBlockElements;
}
template <LegacyLayout L>
int32_t biasOf(const QuantizedActivations* x, int64_t b) {
    return L.bias / 8 * x->nibbleBiases[size_t(b)];
}

// VNNI: for one token, four independent chains of one instruction per chunk, so that a decode
// step is not bound by the latency of one chain; for each of four tokens two, eight chains in
// flight with fewer adds to join them (bench_packed_products, Zen 4: the pair tile +4–6 %, one
// group +5 %; one chain each was latency-bound, 6 % slower than four).
template <typename W, LegacyLayout L, int T>
INFERLENS_AVX512 inline void blockDotsVnni(const typename W::Ints (&chunk)[8],
                                           const QuantizedActivations* const* xs, int64_t b,
                                           typename W::Ints (&sums)[T]) {
    constexpr int chains = T == 1 ? 4 : 2;
#pragma GCC unroll 4
    for (int t = 0; t < T; ++t) {
        const int8_t* a = blockActivations(xs[t], b);
        typename W::Ints dot[chains];
        dot[0] = W::everyLane(biasOf<L>(xs[t], b));
        for (int i = 1; i < chains; ++i)
            dot[i] = W::zeroInts();
#pragma GCC unroll 8
        for (int k = 0; k < 8; ++k)
            dot[k % chains] = W::dot(dot[k % chains], chunk[k], W::broadcast4(a + 4 * k));
        if constexpr (chains == 4)
            sums[t] = W::add(W::add(dot[0], dot[1]), W::add(dot[2], dot[3]));
        else
            sums[t] = W::add(dot[0], dot[1]);
    }
}

// AVX2 (W: GroupLanes): the nibbles' pair sums in int16 for a group of chunks, widened once per
// group (nibblePairSums, packed_formats.h): eight chunks of 4-bit values (2 · 15 · 127 · 8 <
// 2¹⁵), four with Q5's fifth bit — 10 or 12 multiplies per block instead of 16. Q8_0's biased
// bytes u = q + 128 would saturate the two-instruction multiply on 255 · 127 pairs, so it takes
// the signed weights back and moves their signs onto the activations (no bias then), chunk by
// chunk for all the tokens: each chunk's q and |q| are two registers while they serve every
// token, where token by token the eight chunks' sixteen had spilled to the stack (TinyLlama
// Q8_0, 128-token prompt, one AMD Zen 3 core, alternating: 40.6–44.2 → 48.9–52.8 tokens/s).
template <typename W, LegacyLayout L, int T>
INFERLENS_AVX2 inline void blockDotsAvx2(const __m256i (&chunk)[8],
                                         const QuantizedActivations* const* xs, int64_t b,
                                         __m256i (&sums)[T]) {
    if constexpr (L.bytes) {
#pragma GCC unroll 4
        for (int t = 0; t < T; ++t)
            sums[t] = _mm256_setzero_si256();
#pragma GCC unroll 8
        for (int k = 0; k < 8; ++k) {
            const __m256i q = _mm256_xor_si256(chunk[k], _mm256_set1_epi8(char(0x80)));
            const __m256i magnitudes = _mm256_sign_epi8(q, q);
#pragma GCC unroll 4
            for (int t = 0; t < T; ++t) {
                const __m256i a = GroupLanes::broadcast4(blockActivations(xs[t], b) + 4 * k);
                sums[t] = _mm256_add_epi32(sums[t],
                                           simd::multiplyBytes(magnitudes, _mm256_sign_epi8(a, q)));
                simd::keepInRegister(sums[t]);
            }
        }
    } else {
        constexpr int group = L.highAt != 0 ? kPairSumChunks : 2 * kPairSumChunks;
#pragma GCC unroll 4
        for (int t = 0; t < T; ++t)
            sums[t] = nibbleDotAvx2<group>(chunk, blockActivations(xs[t], b),
                                           GroupLanes::everyLane(biasOf<L>(xs[t], b)));
    }
}

// T tokens over W's rows (one packed group or two: packed_lanes.h): per block, every (row,
// token) pair's integer dot (blockDots), scaled; Q4_1 and Q5_1 then add their min m times the
// block's Σ x (its scaledSums). The fifth bits of Q5 join the nibbles here rather than at pack
// time, so that the packed copy stays the file's size (packed_rows.h).
#define INFERLENS_PACKED_TILE(name, target, blockDots)                                       \
    template <typename W, LegacyLayout L, int T>                                             \
    target void name(const std::byte* group, int64_t groupBytes,                             \
                     const QuantizedActivations* const* xs, int64_t blocks, float* out,      \
                     int stride) {                                                           \
        using Ints = typename W::Ints;                                                       \
        using Floats = typename W::Floats;                                                   \
        constexpr int chunks = L.chunks();                                                   \
        Floats acc[T];                                                                       \
        _Pragma("GCC unroll 4") for (int t = 0; t < T; ++t) acc[t] = W::zero();              \
        const Ints mask4 = W::everyByte(0x0f);                                               \
        for (int64_t b = 0; b < blocks; ++b) {                                               \
            const std::byte* block = group + b * L.packedBytes();                            \
            if constexpr (T == 1)                                                            \
                prefetchForDecode(block, L.packedBytes(), groupBytes);                       \
            const Floats d = W::halves(block, groupBytes);                                   \
            Ints chunk[8];                                                                   \
            _Pragma("GCC unroll 8") for (int k = 0; k < chunks; ++k) {                       \
                const Ints bytes = W::load(block + L.packedValuesAt() + 32 * k, groupBytes); \
                if constexpr (L.bytes) {                                                     \
                    chunk[k] = bytes;                                                        \
                } else {                                                                     \
                    chunk[k] = W::both(bytes, mask4);                                        \
                    chunk[k + 4] = W::both(W::shiftRight16(bytes, 4), mask4);                \
                    if constexpr (L.highAt != 0) {                                           \
                        const Ints words = W::load(block + L.packedHighAt(), groupBytes);    \
                        chunk[k] = W::either(chunk[k], W::fifthBits(words, k));              \
                        chunk[k + 4] = W::either(chunk[k + 4], W::fifthBits(words, k + 4));  \
                    }                                                                        \
                }                                                                            \
            }                                                                                \
            Ints sums[T];                                                                    \
            blockDots<W, L, T>(chunk, xs, b, sums);                                          \
            _Pragma("GCC unroll 4") for (int t = 0; t < T; ++t) {                            \
                acc[t] = W::multiplyAdd(W::multiply(d, W::every(xs[t]->scales[size_t(b)])),  \
                                        W::toFloats(sums[t]), acc[t]);                       \
                if constexpr (L.minAt != 0)                                                  \
                    acc[t] = W::multiplyAdd(W::halves(block + L.packedMinAt(), groupBytes),  \
                                            W::every(xs[t]->scaledSums[size_t(b)]), acc[t]); \
            }                                                                                \
        }                                                                                    \
        for (int t = 0; t < T; ++t)                                                          \
            W::storeRows(acc[t], out + t * stride);                                          \
    }

INFERLENS_PACKED_TILE(legacyAvx2, INFERLENS_AVX2, blockDotsAvx2)
INFERLENS_PACKED_TILE(legacyAvx512, INFERLENS_AVX512, blockDotsVnni)

template <LegacyLayout L>
PackedTile legacyTile(CpuKernels kernels) {
    if (kernels == CpuKernels::Avx512)
        return anyTokens<legacyAvx512<GroupLanes, L, 4>, legacyAvx512<GroupLanes, L, 1>>;
    if (kernels == CpuKernels::Avx2)
        return anyTokens<legacyAvx2<GroupLanes, L, 4>, legacyAvx2<GroupLanes, L, 1>>;
    return nullptr;
}
template <LegacyLayout L>
PackedPairTile legacyPairTile(CpuKernels kernels) {
    if (kernels == CpuKernels::Avx512)
        return anyTokensOfPair<legacyAvx512<GroupPairLanes, L, 4>,
                               legacyAvx512<GroupPairLanes, L, 1>>;
    return nullptr;
}
#else
template <LegacyLayout>
PackedTile legacyTile(CpuKernels) {
    return nullptr;
}
template <LegacyLayout>
PackedPairTile legacyPairTile(CpuKernels) {
    return nullptr;
}
#endif

template <LegacyLayout L>
const PackedFormat* format() {
    static const PackedFormat packed{L.packedBytes(), packBlock<L>, legacyTile<L>,
                                     legacyPairTile<L>};
    return &packed;
}

}  // namespace

const PackedFormat* packedLegacyFormat(DType dtype) {
    switch (dtype) {
        case DType::Q8_0:
            return format<kQ8_0Layout>();
        case DType::Q4_0:
            return format<kQ4_0Layout>();
        case DType::Q4_1:
            return format<kQ4_1Layout>();
        case DType::Q5_0:
            return format<kQ5_0Layout>();
        case DType::Q5_1:
            return format<kQ5_1Layout>();
        default:
            return nullptr;
    }
}

}  // namespace inferlens
