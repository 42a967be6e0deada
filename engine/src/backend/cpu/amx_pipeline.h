#pragma once
// The AMX INT8 pipeline that the packed formats' AMX tiles share (amx_tiles.h): a format says how
// one unit of a group's row — a Q8_0/Q4_0 block, a sub-block of a Q4_K super-block, half a
// sub-block of Q6_K — becomes a B tile of signed or unsigned bytes, and what float step follows the
// unit's integer dots; the pipeline lays a block of tokens' activations out once for all the groups
// of the rows it runs (so that an A tile is one load, and a unit's token scales are side by side),
// runs the tiles, interleaves the stages and writes the results where the product wants them.
//
// A Format provides
//   static constexpr bool kSignedWeights;   B as int8 (TDPBSSD) or uint8 (TDPBSUD)
//   static constexpr int kUnitValues;       values in a unit: 32, or 16 (Q6_K's scale groups)
//   static constexpr int kUnitsPerBlock;    units in one of the format's blocks (1, 8 or 16)
//   static int64_t activationBlock(int64_t unit), static int activationOffset(int64_t unit);
//       where the unit's activations are: block (of 32 values) and the offset in it
//   template <int G> static void prepareWeights(const std::byte* group, int64_t groupBytes,
//                                               int64_t unit, int8_t* b);
//       B for unit `unit` of G groups: row k (of kUnitValues / 4) holds chunk k of each group side
//       by side, lane j of a group = row j's values 4k … 4k + 3 of the unit
//   template <int G, int M> static void accumulate(const std::byte* group, int64_t groupBytes,
//                                                  const PassActivations& x, int64_t unit,
//                                                  const int32_t* c, __m512* acc);
//       the float step of unit `unit` on its dots c (C's rows, token by token), exactly as the
//       format's AVX-512 tile takes it, into the accumulators below (tokenVector helps)
// Only for x86-64 translation units; include it inside their #if defined(__x86_64__).

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>
#include <vector>

#include "backend/cpu/amx_tiles.h"
#include "backend/cpu/packed_formats.h"
#include "core/quant_blocks.h"

#define INFERLENS_AMX                                                                      \
    __attribute__((                                                                        \
        target("amx-tile,amx-int8,avx512f,avx512bw,avx512vl,avx512dq,avx512vnni,avx2,fma," \
               "f16c")))

namespace inferlens::amx {

constexpr int kTileTokens = 16;               // an A tile's rows
constexpr int kPassTokens = 2 * kTileTokens;  // tokens per pass over the group(s): two A tiles
// Passes laid out together: each group runs all of them while its weights are in the cache (the
// token block the AVX-512 products use too).
constexpr int kBlockPasses = 2;
constexpr int kChunkBytes = 32;  // a packed chunk: 8 lanes of 4 bytes (a group's part of B's row)
// A pass's activations of one block of 32 values.
constexpr int kUnitBytes = kPassTokens * kQuantBlockElements;

// A pass's activations as the tiles read them, laid out once for every group of a product: the
// bytes of activation block i (32 values), token by token, at values + i · kUnitBytes (an A
// tile's 16 rows, 32 bytes apart, in one load), and the tokens' scales and scaled sums of block i
// side by side at scales + i · kPassTokens and scaledSums + i · kPassTokens. Past the pass's
// tokens: zeros.
struct PassActivations {
    const int8_t* values;
    const float* scales;
    const float* scaledSums;
};

// The memory of one laid-out pass (kept per thread: no allocation per product).
struct PassStorage {
    struct alignas(64) Line {  // so that no A row straddles two cache lines
        int8_t bytes[64];
    };
    std::vector<Line> values;
    std::vector<float> scales, scaledSums;
};

// count ≤ kPassTokens tokens xs[0 … count) laid out over `blocks` activation blocks into
// `storage`.
INFERLENS_AMX inline PassActivations layOut(const QuantizedActivations* const* xs, int count,
                                            int64_t blocks, PassStorage& storage) {
    storage.values.resize(size_t(blocks * kUnitBytes / 64));
    storage.scales.assign(size_t(blocks * kPassTokens), 0.0f);
    storage.scaledSums.assign(size_t(blocks * kPassTokens), 0.0f);
    auto* values = reinterpret_cast<int8_t*>(storage.values.data());
    for (int t = 0; t < count; ++t) {
        const QuantizedActivations& x = *xs[t];
        for (int64_t i = 0; i < blocks; ++i) {
            _mm256_store_si256(
                reinterpret_cast<__m256i*>(values + i * kUnitBytes + t * kQuantBlockElements),
                _mm256_loadu_si256(
                    reinterpret_cast<const __m256i*>(x.values.data() + i * kQuantBlockElements)));
            storage.scales[size_t(i * kPassTokens + t)] = x.scales[size_t(i)];
            storage.scaledSums[size_t(i * kPassTokens + t)] = x.scaledSums[size_t(i)];
        }
    }
    if (count < kPassTokens)
        for (int64_t i = 0; i < blocks; ++i)
            std::memset(values + i * kUnitBytes + count * kQuantBlockElements, 0,
                        size_t((kPassTokens - count) * kQuantBlockElements));
    return {values, storage.scales.data(), storage.scaledSums.data()};
}

// The float accumulators of M tokens on G groups' 8 · G rows: a register holds two tokens' 8 rows
// (one group) or one token's 16 rows (two groups; 32 tokens' registers are more than there are,
// and measured faster all the same than passes of 16: 440 → 480–510 Gop/s on one core, Q8_0).
template <int G, int M>
constexpr int kVectors = G == 1 ? (M + 1) / 2 : M;

// Accumulator p's per-token factor, from a unit's values of the pass's tokens side by side
// (PassActivations), broadcast over each token's rows.
template <int G>
INFERLENS_AMX inline __m512 tokenVector(const float* perToken, int p) {
    if constexpr (G == 1)  // tokens 2p and 2p + 1 (a zero past the pass's tokens)
        return _mm512_mask_broadcastss_ps(_mm512_set1_ps(perToken[2 * p]), 0xff00,
                                          _mm_load_ss(perToken + 2 * p + 1));
    else
        return _mm512_set1_ps(perToken[p]);
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
// The same for 8 bytes a group, unsigned or signed.
template <int G, bool isSigned = false>
INFERLENS_AMX inline __m512 rowBytes(const std::byte* at, int64_t groupBytes) {
    const auto eight = [](const std::byte* p) {
        int64_t word;
        std::memcpy(&word, p, 8);
        return word;
    };
    const __m128i both = _mm_set_epi64x(G == 1 ? eight(at) : eight(at + groupBytes), eight(at));
    return _mm512_cvtepi32_ps(isSigned ? _mm512_cvtepi8_epi32(both) : _mm512_cvtepu8_epi32(both));
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
template <int G, int unitValues>
TileConfig unitConfig() {
    TileConfig config;
    for (int tile = 0; tile < 4; ++tile) {
        config.rows[tile] = kTileTokens;  // C: a token's 8 · G int32 dot products
        config.bytesPerRow[tile] = uint16_t(G * kPackedRows * 4);
    }
    for (const int tile : {4, 5}) {
        config.rows[tile] = kTileTokens;  // A: a token's activation bytes of the unit
        config.bytesPerRow[tile] = unitValues;
    }
    for (const int tile : {6, 7}) {
        config.rows[tile] = unitValues / 4;  // B: the unit's chunks
        config.bytesPerRow[tile] = uint16_t(G * kChunkBytes);
    }
    return config;
}

// One unit's weights as B.
template <int G>
struct WeightTile {
    alignas(64) int8_t b[8 * G * kChunkBytes];
};

// C += A · B on tiles c, a, b (numbers: GCC's intrinsics paste them into the instruction's text):
// signed activations times signed (TDPBSSD) or unsigned (TDPBSUD) weights.
#define INFERLENS_AMX_PRODUCT(signedWeights, c, a, b) \
    do {                                              \
        if constexpr (signedWeights)                  \
            _tile_dpbssd(c, a, b);                    \
        else                                          \
            _tile_dpbsud(c, a, b);                    \
    } while (false)

// A unit's products on tile set 0 or 1 (above) of its activations `a` (in PassActivations::values,
// a token's 32 bytes apart), for the first 16 tokens and, when M is more, the next ones.
template <bool kSigned, int set, int M, int G>
INFERLENS_AMX inline void multiply(const int8_t* a, const WeightTile<G>& weights) {
    constexpr bool two = M > kTileTokens;
    _tile_loadd(4, a, kQuantBlockElements);
    if constexpr (two)
        _tile_loadd(5, a + kTileTokens * kQuantBlockElements, kQuantBlockElements);
    if constexpr (set == 0) {
        _tile_loadd(6, weights.b, G * kChunkBytes);
        _tile_zero(0);
        INFERLENS_AMX_PRODUCT(kSigned, 0, 4, 6);
        if constexpr (two) {
            _tile_zero(1);
            INFERLENS_AMX_PRODUCT(kSigned, 1, 5, 6);
        }
    } else {
        _tile_loadd(7, weights.b, G * kChunkBytes);
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

// M ≤ kPassTokens tokens (a laid-out pass x) times G groups (the second `groupBytes` after the
// first) over `units` units, in four stages — unit j's weights prepared, unit j − 1 multiplied,
// unit j − 2’s products stored, unit j − 3’s float step — so that the latencies between them (a
// tile loads and stores only memory, and its product takes a while) overlap other work. Units
// alternate between two tile sets and two buffers of each kind. Rows r < `rows` (of 8 · G) into
// y[t · yStride + r].
template <typename Format, int G, int M>
INFERLENS_AMX void passOfTokens(const std::byte* group, int64_t groupBytes,
                                const PassActivations& x, int64_t units, float* y, int64_t yStride,
                                int rows) {
    constexpr bool kSigned = Format::kSignedWeights;
    constexpr int lanes = G * kPackedRows;
    // Stage lags behind the weights' unit.
    constexpr int64_t kMultiply = 1, kStore = 2, kAccumulate = 3;
    WeightTile<G> weights[kMultiply + 1];
    alignas(64) int32_t c[2][kPassTokens * lanes];
    constexpr int vectors = kVectors<G, M>;
    __m512 acc[vectors];
#pragma GCC unroll 32
    for (auto& a : acc)
        a = _mm512_setzero_ps();
    for (int64_t j = 0; j < units + kAccumulate; ++j) {
        if (j < units)
            Format::template prepareWeights<G>(group, groupBytes, j,
                                               weights[j % (kMultiply + 1)].b);
        if (const int64_t u = j - kMultiply; u >= 0 && u < units) {
            const int8_t* a =
                x.values + Format::activationBlock(u) * kUnitBytes + Format::activationOffset(u);
            if (u % 2 == 0)
                multiply<kSigned, 0, M>(a, weights[u % (kMultiply + 1)]);
            else
                multiply<kSigned, 1, M>(a, weights[u % (kMultiply + 1)]);
        }
        if (const int64_t u = j - kStore; u >= 0 && u < units) {
            if (u % 2 == 0)
                storeProducts<0, M, G>(c[0]);
            else
                storeProducts<1, M, G>(c[1]);
        }
        if (const int64_t u = j - kAccumulate; u >= 0)
            Format::template accumulate<G, M>(group, groupBytes, x, u, c[u % 2], acc);
    }
    // Token by token, its rows side by side (a padded group's rows past `rows` left alone).
    const auto mask = __mmask16((1u << std::min(rows, lanes)) - 1);
#pragma GCC unroll 32
    for (int p = 0; p < vectors; ++p) {
        if constexpr (G == 2) {
            _mm512_mask_storeu_ps(y + p * yStride, mask, acc[p]);
        } else {  // tokens 2p (lanes 0…7) and 2p + 1 (lanes 8…15)
            _mm512_mask_storeu_ps(y + 2 * p * yStride, mask, acc[p]);
            if (2 * p + 1 < M)
                _mm512_mask_storeu_ps(y + (2 * p + 1) * yStride - kPackedRows,
                                      __mmask16(mask << kPackedRows), acc[p]);
        }
    }
}

using PassTile = void (*)(const std::byte*, int64_t, const PassActivations&, int64_t, float*,
                          int64_t, int);

// Fewer tokens than this go to the AVX-512 tiles (the same numbers): below it a tile's fixed cost
// per unit outweighs what it saves (measured on Q8_0: 4 tokens take twice the AVX-512 tile's
// time, 8 as long, 16 a third less).
constexpr int kMinTileTokens = 12;

// passOfTokens<Format, G, M> for M = kMinTileTokens…kPassTokens, indexed by M − kMinTileTokens.
template <typename Format, int G, int... m>
constexpr std::array<PassTile, sizeof...(m)> passTiles(std::integer_sequence<int, m...>) {
    return {passOfTokens<Format, G, m + kMinTileTokens>...};
}
template <typename Format, int G>
constexpr auto kPassTiles =
    passTiles<Format, G>(std::make_integer_sequence<int, kPassTokens - kMinTileTokens + 1>());

// `count` < kMinTileTokens tokens on G groups' AVX-512 tile of `dtype` (the same numbers as the
// AMX tiles), rows r < `rows` into y[t · yStride + r].
template <DType dtype>
INFERLENS_AMX void onVectors(const std::byte* group, int64_t groupBytes, int G, int rows,
                             const QuantizedActivations* const* xs, int count, int64_t blocks,
                             float* y, int64_t yStride) {
    static const PackedTile one = packedTile(dtype, CpuKernels::Avx512);
    static const PackedPairTile two = packedPairTile(dtype, CpuKernels::Avx512);
    float out[2 * kPackedRows * kMinTileTokens];
    if (G == 2)
        two(group, groupBytes, xs, count, blocks, out);
    else
        one(group, xs, count, blocks, out);
    for (int t = 0; t < count; ++t)
        for (int r = 0; r < rows; ++r)
            y[t * yStride + r] = out[t * G * kPackedRows + r];
}

// The AMX rows product of a format (PackedRowsTile, packed_rows.h): token blocks of kBlockPasses
// passes laid out once, then each group pair (and a last group alone) runs every pass of the
// block; a pass of fewer than kMinTileTokens tokens runs on the AVX-512 tiles.
template <typename Format, DType dtype>
INFERLENS_AMX void rowsProduct(const std::byte* firstGroup, int64_t groupBytes, int64_t rowCount,
                               const QuantizedActivations* const* xs, int tokenCount,
                               int64_t blocks, float* y, int64_t yStride) {
    thread_local std::array<PassStorage, kBlockPasses> storage;
    constexpr int kValues = Format::kUnitValues;
    static const std::array<TileConfig, 2> configs = {unitConfig<1, kValues>(),
                                                      unitConfig<2, kValues>()};
    const int64_t units = blocks * Format::kUnitsPerBlock;
    const int64_t activationBlocks = units * kValues / kQuantBlockElements;
    const int64_t groups = (rowCount + kPackedRows - 1) / kPackedRows;
    int loadedG = 0;  // the tile configuration loaded: 0 none yet, else its G
    for (int first = 0; first < tokenCount; first += kBlockPasses * kPassTokens) {
        std::array<PassActivations, kBlockPasses> passes{};
        std::array<int, kBlockPasses> counts{};
        for (int i = 0; i < kBlockPasses; ++i) {
            counts[size_t(i)] = std::clamp(tokenCount - first - i * kPassTokens, 0, kPassTokens);
            if (counts[size_t(i)] >= kMinTileTokens)
                passes[size_t(i)] = layOut(xs + first + i * kPassTokens, counts[size_t(i)],
                                           activationBlocks, storage[size_t(i)]);
        }
        for (int64_t g = 0; g < groups;) {
            const int G = groups - g >= 2 ? 2 : 1;
            const int rows = int(std::min<int64_t>(G * kPackedRows, rowCount - g * kPackedRows));
            const std::byte* group = firstGroup + g * groupBytes;
            for (int i = 0; i < kBlockPasses; ++i) {
                const int start = first + i * kPassTokens, count = counts[size_t(i)];
                float* out = y + start * yStride + g * kPackedRows;
                if (count == 0)
                    break;
                if (count < kMinTileTokens) {
                    onVectors<dtype>(group, groupBytes, G, rows, xs + start, count, blocks, out,
                                     yStride);
                    continue;
                }
                if (loadedG != G) {
                    _tile_loadconfig(&configs[size_t(G - 1)]);
                    loadedG = G;
                }
                const size_t tile = size_t(count - kMinTileTokens);
                if (G == 2)
                    kPassTiles<Format, 2>[tile](group, groupBytes, passes[size_t(i)], units, out,
                                                yStride, rows);
                else
                    kPassTiles<Format, 1>[tile](group, 0, passes[size_t(i)], units, out, yStride,
                                                rows);
            }
            g += G;
        }
    }
    // Leaves the tile state unused, so that switches of this thread save no 8 KiB of tiles.
    if (loadedG != 0)
        _tile_release();
}

}  // namespace inferlens::amx
