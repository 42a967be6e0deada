#pragma once
// The AMX INT8 pipeline that the packed formats' AMX tiles share (amx_tiles.h): a format says how
// one 32-value unit of a group's row — a Q8_0/Q4_0 block, a sub-block of a Q4_K super-block —
// becomes a B tile of signed or unsigned bytes, and what float step follows the unit's integer
// dots; the pipeline copies the activations, runs the tiles and interleaves the stages.
//
// A Format provides
//   static constexpr bool kSignedWeights;   B as int8 (TDPBSSD) or uint8 (TDPBSUD)
//   static constexpr int kUnitsPerBlock;    units in one of the format's blocks (1 or 8)
//   template <int G> static void prepareWeights(const std::byte* group, int64_t groupBytes,
//                                               int64_t unit, int8_t* b);
//       B for unit `unit` of G groups: row k (of 8) holds chunk k of each group side by side,
//       lane j of a group = row j's values 4k … 4k + 3 of the unit
//   template <int G, int M> static void accumulate(const std::byte* group, int64_t groupBytes,
//                                                  const QuantizedActivations* const* xs,
//                                                  int64_t unit, const int32_t* c, __m512* acc);
//       the float step of unit `unit` on its dots c (C's rows, token by token), exactly as the
//       format's AVX-512 tile takes it, into the accumulators below (tokenVector helps)
// Only for x86-64 translation units; include it inside their #if defined(__x86_64__).

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include "backend/cpu/amx_tiles.h"
#include "backend/cpu/packed_formats.h"
#include "core/quant_blocks.h"

#define INFERLENS_AMX                                                             \
    __attribute__((                                                               \
        target("amx-tile,amx-int8,avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma," \
               "f16c")))

namespace inferlens::amx {

constexpr int kTileTokens = 16;               // an A tile's rows
constexpr int kPassTokens = 2 * kTileTokens;  // tokens per pass over the group(s): two A tiles
constexpr int kChunkBytes = 32;  // a packed chunk: 8 lanes of 4 bytes (a group's part of B's row)

// The float accumulators of M tokens on G groups' 8 · G rows: a register holds two tokens' 8 rows
// (one group) or one token's 16 rows (two groups; 32 tokens' registers are more than there are,
// and measured faster all the same than passes of 16: 440 → 480–510 Gop/s on one core, Q8_0).
template <int G, int M>
constexpr int kVectors = G == 1 ? (M + 1) / 2 : M;

// Accumulator p's per-token factor: field(x) of its token(s) at `unit`, broadcast over each
// token's rows.
template <int G, int M, typename Field>
INFERLENS_AMX inline __m512 tokenVector(const QuantizedActivations* const* xs, int p, Field field) {
    if constexpr (G == 1) {
        const float next = 2 * p + 1 < M ? field(*xs[2 * p + 1]) : 0.0f;
        return _mm512_mask_broadcastss_ps(_mm512_set1_ps(field(*xs[2 * p])), 0xff00,
                                          _mm_set_ss(next));
    } else {
        return _mm512_set1_ps(field(*xs[p]));
    }
}

// The 8 · G rows' fp16 values at `at` of a unit's packed block(s) (8 per group, the second group's
// `groupBytes` on), as floats in the accumulators' lane order.
template <int G>
INFERLENS_AMX inline __m512 rowHalves(const std::byte* at, int64_t groupBytes) {
    const __m128i first = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
    const __m128i second =
        G == 1 ? first : _mm_loadu_si128(reinterpret_cast<const __m128i*>(at + groupBytes));
    return _mm512_cvtph_ps(_mm256_inserti128_si256(_mm256_castsi128_si256(first), second, 1));
}
// The same for 8 unsigned bytes a group.
template <int G>
INFERLENS_AMX inline __m512 rowUnsignedBytes(const std::byte* at, int64_t groupBytes) {
    const auto eight = [](const std::byte* p) {
        int64_t word;
        std::memcpy(&word, p, 8);
        return word;
    };
    const __m128i both = _mm_set_epi64x(G == 1 ? eight(at) : eight(at + groupBytes), eight(at));
    return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(both));
}

// G groups' 32-byte chunk at `at` (the second group's `groupBytes` on), side by side.
template <int G>
INFERLENS_AMX inline __m512i groupChunks(const std::byte* at, int64_t groupBytes) {
    const __m512i low =
        _mm512_zextsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(at)));
    if constexpr (G == 1)
        return low;
    return _mm512_inserti64x4(
        low, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at + groupBytes)), 1);
}
// A B row of G groups' chunks.
template <int G>
INFERLENS_AMX inline void storeWeightRow(int8_t* to, __m512i row) {
    if constexpr (G == 1)
        _mm256_store_si256(reinterpret_cast<__m256i*>(to), _mm512_castsi512_si256(row));
    else
        _mm512_store_si512(to, row);
}

// Tile registers (numbers written out, since the intrinsics paste them into the instruction): the
// first 16 tokens' activations in tmm4, the next 16's in tmm5, times a unit's weights B — G
// groups' chunks side by side, 8 · G lanes — in tmm6 (tile set 0) or tmm7 (set 1), into C = tmm0,
// tmm1 (set 0) or tmm2, tmm3 (set 1), where C[token][lane] = Σ_k A[token][k] · B[k / 4][4 · lane
// + k % 4]; two sets, so that two units are in flight.
template <int G>
TileConfig unitConfig() {
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
        config.rows[tile] = kQuantBlockElements / 4;  // B: the unit's 8 chunks
        config.bytesPerRow[tile] = uint16_t(G * kChunkBytes);
    }
    return config;
}

// One unit's operands: M tokens' activation bytes (rows past M stay zero) and the weights.
template <int G>
struct Operands {
    alignas(64) int8_t a[kPassTokens * kQuantBlockElements] = {};
    alignas(64) int8_t b[8 * G * kChunkBytes];
};

template <typename Format, int G, int M>
INFERLENS_AMX inline void prepare(const std::byte* group, int64_t groupBytes,
                                  const QuantizedActivations* const* xs, int64_t unit,
                                  Operands<G>& operands) {
#pragma GCC unroll 32
    for (int t = 0; t < M; ++t)
        _mm256_store_si256(reinterpret_cast<__m256i*>(operands.a + t * kQuantBlockElements),
                           _mm256_loadu_si256(reinterpret_cast<const __m256i*>(
                               xs[t]->values.data() + unit * kQuantBlockElements)));
    Format::template prepareWeights<G>(group, groupBytes, unit, operands.b);
}

// C += A · B on tiles c, a, b (numbers: GCC's intrinsics paste them into the instruction's text):
// signed activations times signed (TDPBSSD) or unsigned (TDPBSUD) weights.
#define INFERLENS_AMX_PRODUCT(signedWeights, c, a, b) \
    do {                                              \
        if constexpr (signedWeights)                  \
            _tile_dpbssd(c, a, b);                    \
        else                                          \
            _tile_dpbsud(c, a, b);                    \
    } while (false)

// A unit's products on tile set 0 or 1 (above), for the first 16 tokens and, when M is more, the
// next ones.
template <bool kSigned, int set, int M, int G>
INFERLENS_AMX inline void multiply(const Operands<G>& operands) {
    constexpr bool two = M > kTileTokens;
    const int8_t* second = operands.a + kTileTokens * kQuantBlockElements;
    _tile_loadd(4, operands.a, kQuantBlockElements);
    if constexpr (two)
        _tile_loadd(5, second, kQuantBlockElements);
    if constexpr (set == 0) {
        _tile_loadd(6, operands.b, G * kChunkBytes);
        _tile_zero(0);
        INFERLENS_AMX_PRODUCT(kSigned, 0, 4, 6);
        if constexpr (two) {
            _tile_zero(1);
            INFERLENS_AMX_PRODUCT(kSigned, 1, 5, 6);
        }
    } else {
        _tile_loadd(7, operands.b, G * kChunkBytes);
        _tile_zero(2);
        INFERLENS_AMX_PRODUCT(kSigned, 2, 4, 7);
        if constexpr (two) {
            _tile_zero(3);
            INFERLENS_AMX_PRODUCT(kSigned, 3, 5, 7);
        }
    }
}

#undef INFERLENS_AMX_PRODUCT

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

// M ≤ kPassTokens tokens times G groups (the second `groupBytes` after the first) over `units`
// units, in four stages — unit j's operands written, unit j − 1 multiplied, unit j − 2’s products
// stored, unit j − 3’s float step — so that the latencies between them (a tile loads and stores
// only memory, and its product takes a while) overlap other work. Units alternate between two
// tile sets and two buffers of each kind. Rows r < 8 · G into out[r · stride + t].
template <typename Format, int G, int M>
INFERLENS_AMX void passOfTokens(const std::byte* group, int64_t groupBytes,
                                const QuantizedActivations* const* xs, int64_t units, float* out,
                                int stride) {
    constexpr bool kSigned = Format::kSignedWeights;
    constexpr int lanes = G * kPackedRows;
    // Stage lags behind the operands' unit.
    constexpr int64_t kMultiply = 1, kStore = 2, kAccumulate = 3;
    Operands<G> operands[kMultiply + 1];
    alignas(64) int32_t c[2][kPassTokens * lanes];
    constexpr int vectors = kVectors<G, M>;
    __m512 acc[vectors];
#pragma GCC unroll 32
    for (auto& a : acc)
        a = _mm512_setzero_ps();
    for (int64_t j = 0; j < units + kAccumulate; ++j) {
        if (j < units)
            prepare<Format, G, M>(group, groupBytes, xs, j, operands[j % (kMultiply + 1)]);
        if (const int64_t u = j - kMultiply; u >= 0 && u < units) {
            if (u % 2 == 0)
                multiply<kSigned, 0, M>(operands[u % (kMultiply + 1)]);
            else
                multiply<kSigned, 1, M>(operands[u % (kMultiply + 1)]);
        }
        if (const int64_t u = j - kStore; u >= 0 && u < units) {
            if (u % 2 == 0)
                storeProducts<0, M, G>(c[0]);
            else
                storeProducts<1, M, G>(c[1]);
        }
        if (const int64_t u = j - kAccumulate; u >= 0)
            Format::template accumulate<G, M>(group, groupBytes, xs, u, c[u % 2], acc);
    }
    alignas(64) float results[vectors * 16];
#pragma GCC unroll 32
    for (int p = 0; p < vectors; ++p)
        _mm512_store_ps(results + 16 * p, acc[p]);
    for (int t = 0; t < M; ++t)
        for (int r = 0; r < lanes; ++r)
            out[r * stride + t] = results[t * lanes + r];
}

using PassTile = void (*)(const std::byte*, int64_t, const QuantizedActivations* const*, int64_t,
                          float*, int);

// Fewer tokens than this go to the AVX-512 tile (the same numbers): below it a tile's fixed cost
// per unit outweighs what it saves (measured on Q8_0: 4 tokens take twice the AVX-512 tile's
// time, 8 as long, 16 a third less).
constexpr int kMinTileTokens = 12;

// passOfTokens<Format, G, M> for M = kMinTileTokens…kPassTokens, indexed by M − kMinTileTokens.
template <typename Format, int G, int... m>
constexpr std::array<PassTile, sizeof...(m)> passTiles(std::integer_sequence<int, m...>) {
    return {passOfTokens<Format, G, m + kMinTileTokens>...};
}

// Any number of tokens on G groups over `units` units: passes of kPassTokens on tiles, a rest of
// fewer than kMinTileTokens on the AVX-512 tile of as many groups (`vectors`, which takes the
// format's `blocks`), whose numbers are the same.
template <typename Format, int G>
INFERLENS_AMX void anyTokens(const std::byte* group, int64_t groupBytes,
                             const QuantizedActivations* const* xs, int tokenCount, int64_t blocks,
                             float* out, const PackedPairTile vectors) {
    if (tokenCount < kMinTileTokens) {
        vectors(group, groupBytes, xs, tokenCount, blocks, out);
        return;
    }
    static constexpr auto tiles =
        passTiles<Format, G>(std::make_integer_sequence<int, kPassTokens - kMinTileTokens + 1>());
    static const TileConfig config = unitConfig<G>();
    const int64_t units = blocks * Format::kUnitsPerBlock;
    _tile_loadconfig(&config);
    for (int t = 0; t < tokenCount; t += kPassTokens) {
        const int count = std::min(kPassTokens, tokenCount - t);
        if (count >= kMinTileTokens) {
            tiles[size_t(count - kMinTileTokens)](group, groupBytes, xs + t, units, out + t,
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

// A format's one-group and two-group AMX tiles (tilesOf), its AVX-512 tiles of `dtype` taking the
// few tokens.
template <typename Format, DType dtype>
INFERLENS_AMX void oneGroup(const std::byte* group, const QuantizedActivations* const* xs,
                            int tokenCount, int64_t blocks, float* out) {
    // The one-group AVX-512 tile in the pair tile's shape (the offset is not used).
    static const PackedTile one = packedTile(dtype, CpuKernels::Avx512);
    const PackedPairTile vectors = [](const std::byte* g, int64_t,
                                      const QuantizedActivations* const* x, int count, int64_t n,
                                      float* o) { one(g, x, count, n, o); };
    anyTokens<Format, 1>(group, 0, xs, tokenCount, blocks, out, vectors);
}
template <typename Format, DType dtype>
INFERLENS_AMX void twoGroups(const std::byte* group, int64_t groupBytes,
                             const QuantizedActivations* const* xs, int tokenCount, int64_t blocks,
                             float* out) {
    static const PackedPairTile vectors = packedPairTile(dtype, CpuKernels::Avx512);
    anyTokens<Format, 2>(group, groupBytes, xs, tokenCount, blocks, out, vectors);
}
template <typename Format, DType dtype>
constexpr AmxTiles tilesOf() {
    return {oneGroup<Format, dtype>, twoGroups<Format, dtype>};
}

}  // namespace inferlens::amx
