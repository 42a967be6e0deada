// AMX INT8 tiles for packed Q8_0 and Q4_0 (amx_tiles.h).

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

constexpr int kTileTokens = 16;           // an A tile's rows
constexpr int kTokens = 2 * kTileTokens;  // tokens per pass over the group: two A tiles
constexpr int kChunkBytes = 32;           // a packed chunk: 8 lanes of 4 bytes (B's row)

// Tile registers (numbers written out, since the intrinsics paste them into the instruction): the
// first 16 tokens' activations in tmm4, the next 16's in tmm5, times a block's weights B in tmm6
// (tile set 0) or tmm7 (set 1), into C = tmm0, tmm1 (set 0) or tmm2, tmm3 (set 1), where
// C[token][row] = Σ_k A[token][k] · B[k / 4][4 · row + k % 4]; two sets, so that two blocks are in
// flight.
TileConfig blockConfig() {
    TileConfig config;
    for (int tile = 0; tile < 4; ++tile) {
        config.rows[tile] = kTileTokens;  // C: a token's 8 int32 dot products
        config.bytesPerRow[tile] = kPackedRows * 4;
    }
    for (const int tile : {4, 5}) {
        config.rows[tile] = kTileTokens;  // A: a token's 32 activation bytes
        config.bytesPerRow[tile] = kQuantBlockElements;
    }
    for (const int tile : {6, 7}) {
        config.rows[tile] = kQuantBlockElements / 4;  // B: the block's 8 chunks
        config.bytesPerRow[tile] = kChunkBytes;
    }
    return config;
}

// One block's operands: M tokens' activation bytes (rows past M stay zero) and the weights as
// signed bytes q — Q8_0's packed q + 128 flipped back, Q4_0's nibbles n spread to bytes as n − 8,
// low halves as chunks 0…3 (values 4k…4k + 3), high halves as chunks 4…7 (values 16 + 4k…). The
// integer dot Σ a q equals the AVX-512 tile's Σ a (q + bias) − bias Σ a, so no bias term remains.
struct Operands {
    alignas(64) int8_t a[kTokens * kQuantBlockElements] = {};
    alignas(64) int8_t b[8 * kChunkBytes];
};

template <bool isQ8, int M>
INFERLENS_AMX inline void prepare(const std::byte* block, const QuantizedActivations* const* xs,
                                  int64_t b, Operands& operands) {
#pragma GCC unroll 32
    for (int t = 0; t < M; ++t)
        _mm256_store_si256(reinterpret_cast<__m256i*>(operands.a + t * kQuantBlockElements),
                           _mm256_loadu_si256(reinterpret_cast<const __m256i*>(
                               xs[t]->values.data() + b * kQuantBlockElements)));
    const auto* chunks = reinterpret_cast<const __m256i*>(block + 16);
    auto* bytes = reinterpret_cast<__m256i*>(operands.b);
    if (isQ8) {
#pragma GCC unroll 8
        for (int k = 0; k < 8; ++k)
            _mm256_store_si256(bytes + k, _mm256_xor_si256(_mm256_loadu_si256(chunks + k),
                                                           _mm256_set1_epi8(char(0x80))));
    } else {
        const __m256i low = _mm256_set1_epi8(0x0f), eight = _mm256_set1_epi8(8);
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) {
            const __m256i nibbles = _mm256_loadu_si256(chunks + k);
            _mm256_store_si256(bytes + k, _mm256_sub_epi8(_mm256_and_si256(nibbles, low), eight));
            _mm256_store_si256(
                bytes + k + 4,
                _mm256_sub_epi8(_mm256_and_si256(_mm256_srli_epi16(nibbles, 4), low), eight));
        }
    }
}

// The AVX-512 tile's float step for one block on C's rows, two tokens per register:
// acc ← fma(d · xScale, float(dot), acc).
template <int M>
INFERLENS_AMX inline void accumulate(const std::byte* block, const QuantizedActivations* const* xs,
                                     int64_t b, const int32_t* c, __m512* acc) {
    const __m512 d = _mm512_maskz_cvtph_ps(
        0xffff,
        _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(block))));
#pragma GCC unroll 16
    for (int p = 0; p < (M + 1) / 2; ++p) {
        const float second = 2 * p + 1 < M ? xs[2 * p + 1]->scales[size_t(b)] : 0.0f;
        const __m512 xScale = _mm512_mask_broadcastss_ps(
            _mm512_set1_ps(xs[2 * p]->scales[size_t(b)]), 0xff00, _mm_set_ss(second));
        acc[p] = _mm512_fmadd_ps(_mm512_mul_ps(d, xScale),
                                 _mm512_maskz_cvtepi32_ps(0xffff, _mm512_load_si512(c + 16 * p)),
                                 acc[p]);
    }
}

// A block's products on tile set 0 or 1 (above), for the first 16 tokens and, when M is more, the
// next ones.
template <int set, int M>
INFERLENS_AMX inline void multiply(const Operands& operands) {
    constexpr bool two = M > kTileTokens;
    const int8_t* second = operands.a + kTileTokens * kQuantBlockElements;
    _tile_loadd(4, operands.a, kQuantBlockElements);
    if constexpr (two)
        _tile_loadd(5, second, kQuantBlockElements);
    if constexpr (set == 0) {
        _tile_loadd(6, operands.b, kChunkBytes);
        _tile_zero(0);
        _tile_dpbssd(0, 4, 6);
        if constexpr (two) {
            _tile_zero(1);
            _tile_dpbssd(1, 5, 6);
        }
    } else {
        _tile_loadd(7, operands.b, kChunkBytes);
        _tile_zero(2);
        _tile_dpbssd(2, 4, 7);
        if constexpr (two) {
            _tile_zero(3);
            _tile_dpbssd(3, 5, 7);
        }
    }
}
template <int set, int M>
INFERLENS_AMX inline void storeProducts(int32_t* c) {
    constexpr bool two = M > kTileTokens;
    int32_t* second = c + kTileTokens * kPackedRows;
    if constexpr (set == 0) {
        _tile_stored(0, c, kPackedRows * 4);
        if constexpr (two)
            _tile_stored(1, second, kPackedRows * 4);
    } else {
        _tile_stored(2, c, kPackedRows * 4);
        if constexpr (two)
            _tile_stored(3, second, kPackedRows * 4);
    }
}

// M ≤ 32 tokens times one packed group over `blocks` blocks, in four stages — block j's
// operands written, block j − 1 multiplied, block j − 2’s products stored, block j − 3’s float
// step — so that the latencies between them (a tile loads and stores only memory,
// and its product takes a while) overlap other work. Blocks alternate between two tile sets and
// two buffers of each kind.
template <bool isQ8, int M>
INFERLENS_AMX void amxTokens(const std::byte* group, const QuantizedActivations* const* xs,
                             int64_t blocks, float* out, int stride) {
    constexpr int64_t blockBytes = isQ8 ? 16 + 8 * kChunkBytes : 16 + 4 * kChunkBytes;
    // Stage lags behind the operands' block.
    constexpr int64_t kMultiply = 1, kStore = 2, kAccumulate = 3;
    Operands operands[kMultiply + 1];
    alignas(64) int32_t c[2][kTokens * kPackedRows];
    __m512 acc[(M + 1) / 2];
#pragma GCC unroll 8
    for (auto& a : acc)
        a = _mm512_setzero_ps();
    for (int64_t j = 0; j < blocks + kAccumulate; ++j) {
        if (j < blocks)
            prepare<isQ8, M>(group + j * blockBytes, xs, j, operands[j % (kMultiply + 1)]);
        if (const int64_t b = j - kMultiply; b >= 0 && b < blocks) {
            if (b % 2 == 0)
                multiply<0, M>(operands[b % (kMultiply + 1)]);
            else
                multiply<1, M>(operands[b % (kMultiply + 1)]);
        }
        if (const int64_t b = j - kStore; b >= 0 && b < blocks) {
            if (b % 2 == 0)
                storeProducts<0, M>(c[0]);
            else
                storeProducts<1, M>(c[1]);
        }
        if (const int64_t b = j - kAccumulate; b >= 0)
            accumulate<M>(group + b * blockBytes, xs, b, c[b % 2], acc);
    }
    alignas(64) float lanes[kTokens * kPackedRows];
#pragma GCC unroll 16
    for (int p = 0; p < (M + 1) / 2; ++p)
        _mm512_store_ps(lanes + 16 * p, acc[p]);
    for (int t = 0; t < M; ++t)
        for (int r = 0; r < kPackedRows; ++r)
            out[r * stride + t] = lanes[t * kPackedRows + r];
}

using TokensTile = void (*)(const std::byte*, const QuantizedActivations* const*, int64_t, float*,
                            int);

// Fewer tokens than this go to the AVX-512 tile (the same numbers): below it a tile's fixed cost
// per block outweighs what it saves (measured here: 4 tokens take twice the AVX-512 tile's time, 8
// as long, 16 a third less).
constexpr int kMinTileTokens = 12;

// amxTokens<isQ8, M> for M = kMinTileTokens…32, indexed by M − kMinTileTokens.
template <bool isQ8, int... m>
constexpr std::array<TokensTile, sizeof...(m)> tokenTiles(std::integer_sequence<int, m...>) {
    return {amxTokens<isQ8, m + kMinTileTokens>...};
}

template <bool isQ8>
INFERLENS_AMX void amxTile(const std::byte* group, const QuantizedActivations* const* xs,
                           int tokenCount, int64_t blocks, float* out) {
    const PackedTile vectors =
        packedLegacyFormat(isQ8 ? DType::Q8_0 : DType::Q4_0)->tile(CpuKernels::Avx512);
    if (tokenCount < kMinTileTokens) {
        vectors(group, xs, tokenCount, blocks, out);
        return;
    }
    static constexpr auto tiles =
        tokenTiles<isQ8>(std::make_integer_sequence<int, kTokens - kMinTileTokens + 1>());
    static const TileConfig config = blockConfig();
    _tile_loadconfig(&config);
    for (int t = 0; t < tokenCount; t += kTokens) {
        const int count = std::min(kTokens, tokenCount - t);
        if (count >= kMinTileTokens) {
            tiles[size_t(count - kMinTileTokens)](group, xs + t, blocks, out + t, tokenCount);
            continue;
        }
        float rest[kPackedRows * kMinTileTokens];
        vectors(group, xs + t, count, blocks, rest);
        for (int r = 0; r < kPackedRows; ++r)
            for (int k = 0; k < count; ++k)
                out[r * tokenCount + t + k] = rest[r * count + k];
    }
    // Leaves the tile state unused, so that switches of this thread save no 8 KiB of tiles.
    _tile_release();
}

}  // namespace

PackedTile amxLegacyTile(DType dtype) {
    return dtype == DType::Q8_0 ? amxTile<true> : dtype == DType::Q4_0 ? amxTile<false> : nullptr;
}

#else

PackedTile amxLegacyTile(DType) {
    return nullptr;
}

#endif

}  // namespace inferlens
