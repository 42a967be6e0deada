// AMX INT8 tiles for packed Q8_0 and Q4_0 (amx_tiles.h): one group (8 rows) or two adjacent
// groups (16 rows) at a time.

#include <algorithm>
#include <array>
#include <utility>

#include "backend/cpu/amx_tiles.h"
#include "backend/cpu/packed_formats.h"
#include "core/quant_blocks.h"

namespace inferlens {

#if defined(__x86_64__)

#define INFERLENS_AMX                                                             \
    __attribute__((                                                               \
        target("amx-tile,amx-int8,avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma," \
               "f16c")))

namespace {

constexpr int kTileTokens = 16;               // an A tile's rows
constexpr int kPassTokens = 2 * kTileTokens;  // tokens per pass over the group(s): two A tiles
constexpr int kChunkBytes = 32;  // a packed chunk: 8 lanes of 4 bytes (a group's part of B's row)

// Tile registers (numbers written out, since the intrinsics paste them into the instruction): the
// first 16 tokens' activations in tmm4, the next 16's in tmm5, times a block's weights B — G
// groups' chunks side by side, 8 · G lanes — in tmm6 (tile set 0) or tmm7 (set 1), into C = tmm0,
// tmm1 (set 0) or tmm2, tmm3 (set 1), where C[token][lane] = Σ_k A[token][k] · B[k / 4][4 · lane
// + k % 4]; two sets, so that two blocks are in flight.
template <int G>
TileConfig blockConfig() {
    TileConfig config;
    for (int tile = 0; tile < 4; ++tile) {
        config.rows[tile] = kTileTokens;  // C: a token's 8 · G int32 dot products
        config.bytesPerRow[tile] = uint16_t(G * kPackedRows * 4);
    }
    for (const int tile : {4, 5}) {
        config.rows[tile] = kTileTokens;  // A: a token's 32 activation bytes
        config.bytesPerRow[tile] = kQuantBlockElements;
    }
    for (const int tile : {6, 7}) {
        config.rows[tile] = kQuantBlockElements / 4;  // B: the block's 8 chunks
        config.bytesPerRow[tile] = uint16_t(G * kChunkBytes);
    }
    return config;
}

// One block's operands: M tokens' activation bytes (rows past M stay zero) and the weights as
// signed bytes q — Q8_0's packed q + 128 flipped back, Q4_0's nibbles n spread to bytes as n − 8,
// low halves as chunks 0…3 (values 4k…4k + 3), high halves as chunks 4…7 (values 16 + 4k…), each
// B row holding chunk k of every group. The integer dot Σ a q equals the AVX-512 tile's
// Σ a (q + bias) − bias Σ a, so no bias term remains.
template <int G>
struct Operands {
    alignas(64) int8_t a[2 * kTileTokens * kQuantBlockElements] = {};
    alignas(64) int8_t b[8 * G * kChunkBytes];
};

// G groups' chunk k of a block, side by side (256 or 512 bits).
template <int G>
INFERLENS_AMX inline __m512i groupChunks(const std::byte* block, int64_t groupBytes, int k) {
    const auto* first = reinterpret_cast<const __m256i*>(block + 16) + k;
    const __m512i low = _mm512_zextsi256_si512(_mm256_loadu_si256(first));
    if constexpr (G == 1)
        return low;
    const auto* second = reinterpret_cast<const __m256i*>(block + groupBytes + 16) + k;
    return _mm512_inserti64x4(low, _mm256_loadu_si256(second), 1);
}
template <int G>
INFERLENS_AMX inline void storeRow(int8_t* to, __m512i row) {
    if constexpr (G == 1)
        _mm256_store_si256(reinterpret_cast<__m256i*>(to), _mm512_castsi512_si256(row));
    else
        _mm512_store_si512(to, row);
}

template <bool isQ8, int G, int M>
INFERLENS_AMX inline void prepare(const std::byte* block, int64_t groupBytes,
                                  const QuantizedActivations* const* xs, int64_t b,
                                  Operands<G>& operands) {
#pragma GCC unroll 32
    for (int t = 0; t < M; ++t)
        _mm256_store_si256(reinterpret_cast<__m256i*>(operands.a + t * kQuantBlockElements),
                           _mm256_loadu_si256(reinterpret_cast<const __m256i*>(
                               xs[t]->values.data() + b * kQuantBlockElements)));
    constexpr int row = G * kChunkBytes;
    if (isQ8) {
#pragma GCC unroll 8
        for (int k = 0; k < 8; ++k)
            storeRow<G>(operands.b + k * row, _mm512_xor_si512(groupChunks<G>(block, groupBytes, k),
                                                               _mm512_set1_epi8(char(0x80))));
    } else {
        const __m512i low = _mm512_set1_epi8(0x0f), eight = _mm512_set1_epi8(8);
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) {
            const __m512i nibbles = groupChunks<G>(block, groupBytes, k);
            storeRow<G>(operands.b + k * row,
                        _mm512_sub_epi8(_mm512_and_si512(nibbles, low), eight));
            storeRow<G>(
                operands.b + (k + 4) * row,
                _mm512_sub_epi8(_mm512_and_si512(_mm512_srli_epi16(nibbles, 4), low), eight));
        }
    }
}

// The AVX-512 tile's float step for one block on C's lanes, acc ← fma(d · xScale, float(dot),
// acc): a register holds two tokens' 8 rows (one group) or one token's 16 rows (two groups; 32
// tokens' registers are more than there are, and measured faster all the same than passes of 16:
// 440 → 480–510 Gop/s on one core).
template <int G, int M>
INFERLENS_AMX inline void accumulate(const std::byte* block, int64_t groupBytes,
                                     const QuantizedActivations* const* xs, int64_t b,
                                     const int32_t* c, __m512* acc) {
    const __m128i first = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block));
    const __m128i second =
        G == 1 ? first : _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + groupBytes));
    const __m512 d =
        _mm512_cvtph_ps(_mm256_inserti128_si256(_mm256_castsi128_si256(first), second, 1));
    constexpr int vectors = G == 1 ? (M + 1) / 2 : M;
#pragma GCC unroll 32
    for (int p = 0; p < vectors; ++p) {
        __m512 xScale;
        if constexpr (G == 1) {
            const float next = 2 * p + 1 < M ? xs[2 * p + 1]->scales[size_t(b)] : 0.0f;
            xScale = _mm512_mask_broadcastss_ps(_mm512_set1_ps(xs[2 * p]->scales[size_t(b)]),
                                                0xff00, _mm_set_ss(next));
        } else {
            xScale = _mm512_set1_ps(xs[p]->scales[size_t(b)]);
        }
        acc[p] = _mm512_fmadd_ps(_mm512_mul_ps(d, xScale),
                                 _mm512_cvtepi32_ps(_mm512_load_si512(c + 16 * p)), acc[p]);
    }
}

// A block's products on tile set 0 or 1 (above), for the first 16 tokens and, when M is more, the
// next ones.
template <int set, int M, int G>
INFERLENS_AMX inline void multiply(const Operands<G>& operands) {
    constexpr bool two = M > kTileTokens;
    const int8_t* second = operands.a + kTileTokens * kQuantBlockElements;
    _tile_loadd(4, operands.a, kQuantBlockElements);
    if constexpr (two)
        _tile_loadd(5, second, kQuantBlockElements);
    if constexpr (set == 0) {
        _tile_loadd(6, operands.b, G * kChunkBytes);
        _tile_zero(0);
        _tile_dpbssd(0, 4, 6);
        if constexpr (two) {
            _tile_zero(1);
            _tile_dpbssd(1, 5, 6);
        }
    } else {
        _tile_loadd(7, operands.b, G * kChunkBytes);
        _tile_zero(2);
        _tile_dpbssd(2, 4, 7);
        if constexpr (two) {
            _tile_zero(3);
            _tile_dpbssd(3, 5, 7);
        }
    }
}
template <int set, int M, int G>
INFERLENS_AMX inline void storeProducts(int32_t* c) {
    constexpr bool two = M > kTileTokens;
    constexpr int rowBytes = G * kPackedRows * 4;
    int32_t* second = c + kTileTokens * G * kPackedRows;
    if constexpr (set == 0) {
        _tile_stored(0, c, rowBytes);
        if constexpr (two)
            _tile_stored(1, second, rowBytes);
    } else {
        _tile_stored(2, c, rowBytes);
        if constexpr (two)
            _tile_stored(3, second, rowBytes);
    }
}

// M ≤ kPassTokens tokens times G groups (the second `groupBytes` after the first) over `blocks`
// blocks, in four stages — block j's operands written, block j − 1 multiplied, block j − 2’s
// products stored, block j − 3’s float step — so that the latencies between them (a tile loads and
// stores only memory, and its product takes a while) overlap other work. Blocks alternate between
// two tile sets and two buffers of each kind. Rows r < 8 · G into out[r · stride + t].
template <bool isQ8, int G, int M>
INFERLENS_AMX void amxTokens(const std::byte* group, int64_t groupBytes,
                             const QuantizedActivations* const* xs, int64_t blocks, float* out,
                             int stride) {
    constexpr int64_t blockBytes = isQ8 ? 16 + 8 * kChunkBytes : 16 + 4 * kChunkBytes;
    constexpr int lanes = G * kPackedRows;
    // Stage lags behind the operands' block.
    constexpr int64_t kMultiply = 1, kStore = 2, kAccumulate = 3;
    Operands<G> operands[kMultiply + 1];
    alignas(64) int32_t c[2][2 * kTileTokens * lanes];
    constexpr int vectors = G == 1 ? (M + 1) / 2 : M;
    __m512 acc[vectors];
#pragma GCC unroll 32
    for (auto& a : acc)
        a = _mm512_setzero_ps();
    for (int64_t j = 0; j < blocks + kAccumulate; ++j) {
        if (j < blocks)
            prepare<isQ8, G, M>(group + j * blockBytes, groupBytes, xs, j,
                                operands[j % (kMultiply + 1)]);
        if (const int64_t b = j - kMultiply; b >= 0 && b < blocks) {
            if (b % 2 == 0)
                multiply<0, M>(operands[b % (kMultiply + 1)]);
            else
                multiply<1, M>(operands[b % (kMultiply + 1)]);
        }
        if (const int64_t b = j - kStore; b >= 0 && b < blocks) {
            if (b % 2 == 0)
                storeProducts<0, M, G>(c[0]);
            else
                storeProducts<1, M, G>(c[1]);
        }
        if (const int64_t b = j - kAccumulate; b >= 0)
            accumulate<G, M>(group + b * blockBytes, groupBytes, xs, b, c[b % 2], acc);
    }
    alignas(64) float results[vectors * 16];
#pragma GCC unroll 32
    for (int p = 0; p < vectors; ++p)
        _mm512_store_ps(results + 16 * p, acc[p]);
    for (int t = 0; t < M; ++t)
        for (int r = 0; r < lanes; ++r)
            out[r * stride + t] = results[t * lanes + r];
}

using TokensTile = void (*)(const std::byte*, int64_t, const QuantizedActivations* const*, int64_t,
                            float*, int);

// Fewer tokens than this go to the AVX-512 tile (the same numbers): below it a tile's fixed cost
// per block outweighs what it saves (measured here: 4 tokens take twice the AVX-512 tile's time, 8
// as long, 16 a third less).
constexpr int kMinTileTokens = 12;

// amxTokens<isQ8, G, M> for M = kMinTileTokens…kPassTokens, indexed by M − kMinTileTokens.
template <bool isQ8, int G, int... m>
constexpr std::array<TokensTile, sizeof...(m)> tokenTiles(std::integer_sequence<int, m...>) {
    return {amxTokens<isQ8, G, m + kMinTileTokens>...};
}

// Any number of tokens on G groups: passes of kPassTokens on tiles, a rest of fewer than
// kMinTileTokens on the AVX-512 tile of as many groups (`vectors`), whose numbers are the same.
template <bool isQ8, int G>
INFERLENS_AMX void amxGroups(const std::byte* group, int64_t groupBytes,
                             const QuantizedActivations* const* xs, int tokenCount, int64_t blocks,
                             float* out, const PackedPairTile vectors) {
    constexpr int pass = kPassTokens;
    if (tokenCount < kMinTileTokens) {
        vectors(group, groupBytes, xs, tokenCount, blocks, out);
        return;
    }
    static constexpr auto tiles =
        tokenTiles<isQ8, G>(std::make_integer_sequence<int, pass - kMinTileTokens + 1>());
    static const TileConfig config = blockConfig<G>();
    _tile_loadconfig(&config);
    for (int t = 0; t < tokenCount; t += pass) {
        const int count = std::min(pass, tokenCount - t);
        if (count >= kMinTileTokens) {
            tiles[size_t(count - kMinTileTokens)](group, groupBytes, xs + t, blocks, out + t,
                                                  tokenCount);
            continue;
        }
        float rest[2 * kPackedRows * kMinTileTokens];
        vectors(group, groupBytes, xs + t, count, blocks, rest);
        for (int r = 0; r < G * kPackedRows; ++r)
            for (int k = 0; k < count; ++k)
                out[r * tokenCount + t + k] = rest[r * count + k];
    }
    // Leaves the tile state unused, so that switches of this thread save no 8 KiB of tiles.
    _tile_release();
}

constexpr DType dtypeOf(bool isQ8) {
    return isQ8 ? DType::Q8_0 : DType::Q4_0;
}

template <bool isQ8>
INFERLENS_AMX void amxTile(const std::byte* group, const QuantizedActivations* const* xs,
                           int tokenCount, int64_t blocks, float* out) {
    // The one-group AVX-512 tile in the pair tile's shape (the offset is not used).
    static const PackedTile one = packedLegacyFormat(dtypeOf(isQ8))->tile(CpuKernels::Avx512);
    const PackedPairTile vectors = [](const std::byte* g, int64_t,
                                      const QuantizedActivations* const* x, int count, int64_t n,
                                      float* o) { one(g, x, count, n, o); };
    amxGroups<isQ8, 1>(group, 0, xs, tokenCount, blocks, out, vectors);
}

template <bool isQ8>
INFERLENS_AMX void amxPairTile(const std::byte* group, int64_t groupBytes,
                               const QuantizedActivations* const* xs, int tokenCount,
                               int64_t blocks, float* out) {
    static const PackedPairTile vectors =
        packedLegacyFormat(dtypeOf(isQ8))->pairTile(CpuKernels::Avx512);
    amxGroups<isQ8, 2>(group, groupBytes, xs, tokenCount, blocks, out, vectors);
}

}  // namespace

PackedTile amxLegacyTile(DType dtype) {
    return dtype == DType::Q8_0 ? amxTile<true> : dtype == DType::Q4_0 ? amxTile<false> : nullptr;
}

PackedPairTile amxLegacyPairTile(DType dtype) {
    return dtype == DType::Q8_0   ? amxPairTile<true>
           : dtype == DType::Q4_0 ? amxPairTile<false>
                                  : nullptr;
}

#else

PackedTile amxLegacyTile(DType) {
    return nullptr;
}

PackedPairTile amxLegacyPairTile(DType) {
    return nullptr;
}

#endif

}  // namespace inferlens
