// BF16 rows times activations rounded to BF16, on AVX512_BF16's vdpbf16ps: each f32 lane adds two
// products per instruction, 32 values per vector against the f32 tile's 16, and the weights go in
// as they are stored instead of being widened to f32 first. The product of two BF16 numbers is
// exact in f32; the activations are rounded to BF16 on every kernel set (kernels.h).
//
// As in the f32 tile, every (row, token) pair has one accumulator over the whole row, the last
// count % 32 values included (masked loads: the lanes past the row read as zeros and add
// nothing), so a pair's sum is the same in every tile shape: a prefill and token-by-token
// decoding agree bit for bit.

#include "backend/cpu/kernels.h"
#include "backend/cpu/simd_x86.h"
#include "backend/cpu/tile_dispatch.h"

INFERLENS_QUIET_GCC_VECTOR_HEADERS

namespace inferlens {

#if defined(__x86_64__)
namespace {

#define INFERLENS_AVX512_BF16 \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx512bf16,avx2,fma,f16c")))

constexpr int64_t kPairWidth = 32;  // BF16 values per vector
constexpr int kPairTileTokens = 6;

INFERLENS_AVX512_BF16 inline __m512bh loadPairs(const void* values, int64_t i, __mmask32 lanes) {
    return (__m512bh)_mm512_maskz_loadu_epi16(lanes, static_cast<const uint16_t*>(values) + i);
}
INFERLENS_AVX512_BF16 inline __m512bh loadAllPairs(const void* values, int64_t i) {
    return (__m512bh)_mm512_loadu_si512(static_cast<const uint16_t*>(values) + i);
}

// One step of 32 values for every (row, token) pair: a full vector through plain loads, or the
// row's last, partial one through masked loads (`lanes`; the lanes past the row read as zeros).
// Masked loads for every vector had held TinyLlama BF16's decode on one AMD Zen 5 core at 12.3
// tokens/s; plain ones: 14.9–15.1.
// `grouped`: rows in row groups (kernels.h, groupedIndex), whose 32-value chunks are a vector each.
template <int R, int T, bool grouped, bool partial>
INFERLENS_AVX512_BF16 inline void pairStep(__m512 (&acc)[R][T], const std::byte* const* rows,
                                           const uint16_t* const* xs, int64_t i, __mmask32 lanes) {
    static_assert(kPairWidth == kGroupedChunk);
    __m512bh x[T];
#pragma GCC unroll 8
    for (int t = 0; t < T; ++t)
        x[t] = partial ? loadPairs(xs[t], i, lanes) : loadAllPairs(xs[t], i);
    const int64_t at = grouped ? groupedIndex(i) : i;
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
        const __m512bh w = partial ? loadPairs(rows[r], at, lanes) : loadAllPairs(rows[r], at);
#pragma GCC unroll 8
        for (int t = 0; t < T; ++t)
            acc[r][t] = _mm512_dpbf16_ps(acc[r][t], w, x[t]);
    }
}

template <int R, int T, bool grouped>
INFERLENS_AVX512_BF16 void pairTile(const std::byte* const* rows, const uint16_t* const* xs,
                                    int64_t count, float* out, int stride) {
    __m512 acc[R][T];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
        for (int t = 0; t < T; ++t)
            acc[r][t] = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + kPairWidth <= count; i += kPairWidth)
        pairStep<R, T, grouped, false>(acc, rows, xs, i, 0);
    if (i < count)
        pairStep<R, T, grouped, true>(acc, rows, xs, i,
                                      __mmask32((uint64_t(1) << (count - i)) - 1));
    float sums[R * T];
    simd::laneSums<R * T>(&acc[0][0], sums);
    for (int r = 0; r < R; ++r)
        for (int t = 0; t < T; ++t)
            out[t * stride + r] = sums[r * T + t];
}

// The family of pairTile<R, T, grouped> for tokensInTiles (tile_dispatch.h).
template <bool grouped>
struct PairTiles {
    template <int R, int T>
    static void run(const std::byte* const* rows, const uint16_t* const* xs, int64_t count,
                    float* out, int stride) {
        pairTile<R, T, grouped>(rows, xs, count, out, stride);
    }
};

}  // namespace
#endif

SixteenBitTile bf16PairTile(CpuKernels kernels, bool grouped) {
#if defined(__x86_64__)
    // 4 rows × 6 tokens of accumulators, 6 activation vectors and a weight: 31 of 32 registers
    // (against 4 × 4, TinyLlama BF16 on one AMD Zen 5 core, alternating: 128-token prompt
    // 147.4–147.8 → 148.3–150.8 tokens/s, 512 tokens 134.9–138.4 → 139.0–146.4).
    // Not for the amx set: on the Intel kind the float tile, widening BF16 by a shift, measured
    // faster (one core, 2048 × 2048, 128 tokens: 76 → 99 Gflop/s; TinyLlama BF16's 128-token
    // prompt 35 → 43–45 tokens/s on one thread, 64–75 → 68–92 on two), decoding at the read
    // bandwidth either way.
    if (kernels == CpuKernels::Avx512 && cpuHasAvx512Bf16())
        return grouped ? anyTileOfTokens<uint16_t, kTileRows, kPairTileTokens, PairTiles<true>>
                       : anyTileOfTokens<uint16_t, kTileRows, kPairTileTokens, PairTiles<false>>;
#endif
    (void)kernels;
    (void)grouped;
    return nullptr;
}

}  // namespace inferlens
