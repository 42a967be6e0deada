// AMX INT8 tiles for the packed 32-value block types (amx_tiles.h, amx_pipeline.h; the packed
// block: packed_legacy_layout.h): a unit is a block, its weights turned into bytes — Q8_0's
// packed q + 128 flipped back; the nibbles n of the others spread to bytes, low halves as chunks
// 0…3 (values 4k…4k + 3), high halves as chunks 4…7 (values 16 + 4k…), Q5's fifth bits joined
// as the AVX-512 tile joins them. The types with a bias (Q8_0, Q4_0 n − 8, Q5_0 v − 16) become
// signed q, multiplied by TDPBSSD: Σ a q equals that tile's Σ a (q + bias) − bias Σ a, so no bias
// term remains. Q4_1 and Q5_1 keep their unsigned values (TDPBSUD). The float steps are that
// tile's, per (row, token) and block: acc ← fma(d · xScale, float(dot), acc), then for Q4_1 and
// Q5_1 acc ← fma(m, xSum, acc).

#include "backend/cpu/amx_tiles.h"

#if defined(__x86_64__)
#include "backend/cpu/amx_pipeline.h"
#include "backend/cpu/packed_legacy_layout.h"
#endif

namespace inferlens {

#if defined(__x86_64__)

namespace {

using namespace amx;

template <LegacyLayout L>
struct LegacyUnits {
    static constexpr bool kSignedWeights = L.bias != 0;
    static constexpr int kUnitValues = 32;
    static constexpr int kUnitsPerBlock = 1;
    static int64_t activationBlock(int64_t unit) { return unit; }
    static int activationOffset(int64_t) { return 0; }

    template <int G>
    INFERLENS_AMX static void prepareWeights(const std::byte* group, int64_t groupBytes,
                                             int64_t unit, int8_t* b) {
        const std::byte* block = group + unit * L.packedBytes();
        const std::byte* chunks = block + L.packedValuesAt();
        constexpr int row = G * kChunkBytes;
        if constexpr (L.bytes) {
#pragma GCC unroll 8
            for (int k = 0; k < 8; ++k)
                storeWeightRow<G>(
                    b + k * row,
                    _mm512_xor_si512(groupChunks<G>(chunks + k * kChunkBytes, groupBytes),
                                     _mm512_set1_epi8(char(0x80))));
        } else {
            const __m512i low = _mm512_set1_epi8(0x0f), bias = _mm512_set1_epi8(char(L.bias));
            __m512i words = _mm512_setzero_si512();
            if constexpr (L.highAt != 0)
                words = groupChunks<G>(block + L.packedHighAt(), groupBytes);
#pragma GCC unroll 4
            for (int k = 0; k < 4; ++k) {
                const __m512i nibbles = groupChunks<G>(chunks + k * kChunkBytes, groupBytes);
                __m512i first = _mm512_and_si512(nibbles, low);
                __m512i second = _mm512_and_si512(_mm512_srli_epi16(nibbles, 4), low);
                if constexpr (L.highAt != 0) {
                    first = _mm512_or_si512(first, GroupPairLanes::fifthBits(words, k));
                    second = _mm512_or_si512(second, GroupPairLanes::fifthBits(words, k + 4));
                }
                storeWeightRow<G>(b + k * row, _mm512_sub_epi8(first, bias));
                storeWeightRow<G>(b + (k + 4) * row, _mm512_sub_epi8(second, bias));
            }
        }
    }

    template <int G, int M>
    INFERLENS_AMX static void accumulate(const std::byte* group, int64_t groupBytes,
                                         const PassActivations& x, int64_t unit, const int32_t* c,
                                         __m512* acc) {
        const std::byte* block = group + unit * L.packedBytes();
        const __m512 d = rowHalves<G>(block, groupBytes);
        const float* scales = x.scales + unit * kPassTokens;
        constexpr bool hasMin = L.minAt != 0;
        const __m512 m =
            hasMin ? rowHalves<G>(block + L.packedMinAt(), groupBytes) : _mm512_setzero_ps();
        const float* sums = x.scaledSums + unit * kPassTokens;
#pragma GCC unroll 32
        for (int p = 0; p < kVectors<G, M>; ++p) {
            acc[p] = _mm512_fmadd_ps(_mm512_mul_ps(d, tokenVector<G>(scales, p)),
                                     _mm512_cvtepi32_ps(_mm512_load_si512(c + 16 * p)), acc[p]);
            if constexpr (hasMin)
                acc[p] = _mm512_fmadd_ps(m, tokenVector<G>(sums, p), acc[p]);
        }
    }
};

}  // namespace

PackedRowsTile amxLegacyRows(DType dtype) {
    switch (dtype) {
        case DType::Q8_0:
            return rowsProduct<LegacyUnits<kQ8_0Layout>, DType::Q8_0>;
        case DType::Q4_0:
            return rowsProduct<LegacyUnits<kQ4_0Layout>, DType::Q4_0>;
        case DType::Q4_1:
            return rowsProduct<LegacyUnits<kQ4_1Layout>, DType::Q4_1>;
        case DType::Q5_0:
            return rowsProduct<LegacyUnits<kQ5_0Layout>, DType::Q5_0>;
        case DType::Q5_1:
            return rowsProduct<LegacyUnits<kQ5_1Layout>, DType::Q5_1>;
        default:
            return nullptr;
    }
}

#else

PackedRowsTile amxLegacyRows(DType) {
    return nullptr;
}

#endif

}  // namespace inferlens
