// AMX INT8 tiles for packed Q4_K and Q5_K (amx_tiles.h, amx_pipeline.h; the packed super-block:
// packed_k_quants.cpp): a unit is a sub-block of 32 values, its weights the unsigned 4-bit (Q5_K:
// 5-bit) values themselves, multiplied with the signed activations by TDPBSUD. The float steps
// are the AVX-512 tile's, per (row, token) and sub-block s in order:
//   acc ← fma(d · sc · xScale, float(Σ n a), acc), then acc ← fma(−dmin · m, xSum, acc).

#include "backend/cpu/amx_tiles.h"

#if defined(__x86_64__)
#include "backend/cpu/amx_pipeline.h"
#endif

namespace inferlens {

#if defined(__x86_64__)

namespace {

using namespace amx;

// fifth: Q5_K (its fifth bits after the header, its nibbles after them).
template <bool fifth>
struct KUnits {
    static constexpr bool kSignedWeights = false;
    static constexpr int kUnitsPerBlock = 8;
    static constexpr int64_t kFifthBitsAt = 160;
    static constexpr int64_t kNibblesAt = kFifthBitsAt + (fifth ? 8 * kChunkBytes : 0);
    static constexpr int64_t kBlockBytes = kNibblesAt + 4 * 8 * kChunkBytes;

    template <int G>
    INFERLENS_AMX static void prepareWeights(const std::byte* group, int64_t groupBytes,
                                             int64_t unit, int8_t* b) {
        const std::byte* block = group + unit / kUnitsPerBlock * kBlockBytes;
        const int s = int(unit % kUnitsPerBlock);
        // Sub-blocks 2p and 2p + 1 share chunks: the low and the high nibbles.
        const std::byte* chunks = block + kNibblesAt + 8 * kChunkBytes * (s / 2);
        const __m512i mask = _mm512_set1_epi8(0x0f);
#pragma GCC unroll 8
        for (int k = 0; k < 8; ++k) {
            const __m512i bytes = groupChunks<G>(chunks + k * kChunkBytes, groupBytes);
            __m512i values =
                _mm512_and_si512(s % 2 == 0 ? bytes : _mm512_srli_epi16(bytes, 4), mask);
            if constexpr (fifth) {
                // Byte l's bit s is the fifth bit of value l of sub-block s: moved to bit 4.
                const __m512i bits =
                    groupChunks<G>(block + kFifthBitsAt + k * kChunkBytes, groupBytes);
                const __m512i moved = s <= 4 ? _mm512_sll_epi32(bits, _mm_cvtsi32_si128(4 - s))
                                             : _mm512_srl_epi32(bits, _mm_cvtsi32_si128(s - 4));
                values = _mm512_or_si512(values, _mm512_and_si512(moved, _mm512_set1_epi8(16)));
            }
            storeWeightRow<G>(b + k * G * kChunkBytes, values);
        }
    }

    template <int G, int M>
    INFERLENS_AMX static void accumulate(const std::byte* group, int64_t groupBytes,
                                         const PassActivations& x, int64_t unit, const int32_t* c,
                                         __m512* acc) {
        const std::byte* block = group + unit / kUnitsPerBlock * kBlockBytes;
        const int s = int(unit % kUnitsPerBlock);
        const __m512 d = rowHalves<G>(block, groupBytes);
        const __m512 negativeDmin =
            _mm512_sub_ps(_mm512_setzero_ps(), rowHalves<G>(block + 16, groupBytes));
        const __m512 scale = _mm512_mul_ps(d, rowUnsignedBytes<G>(block + 32 + 8 * s, groupBytes));
        const __m512 offset =
            _mm512_mul_ps(negativeDmin, rowUnsignedBytes<G>(block + 96 + 8 * s, groupBytes));
        const float* xScales = x.scales + unit * kPassTokens;
        const float* xSums = x.scaledSums + unit * kPassTokens;
#pragma GCC unroll 32
        for (int p = 0; p < kVectors<G, M>; ++p) {
            acc[p] = _mm512_fmadd_ps(_mm512_mul_ps(scale, tokenVector<G>(xScales, p)),
                                     _mm512_cvtepi32_ps(_mm512_load_si512(c + 16 * p)), acc[p]);
            acc[p] = _mm512_fmadd_ps(offset, tokenVector<G>(xSums, p), acc[p]);
        }
    }
};

}  // namespace

PackedRowsTile amxKRows(DType dtype) {
    return dtype == DType::Q4_K   ? rowsProduct<KUnits<false>, DType::Q4_K>
           : dtype == DType::Q5_K ? rowsProduct<KUnits<true>, DType::Q5_K>
                                  : nullptr;
}

#else

PackedRowsTile amxKRows(DType) {
    return nullptr;
}

#endif

}  // namespace inferlens
