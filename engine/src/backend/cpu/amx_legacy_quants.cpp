// AMX INT8 tiles for packed Q8_0 and Q4_0 (amx_tiles.h, amx_pipeline.h): a unit is a block, its
// weights turned into signed bytes q — Q8_0's packed q + 128 flipped back, Q4_0's nibbles n
// spread to bytes as n − 8, low halves as chunks 0…3 (values 4k…4k + 3), high halves as chunks
// 4…7 (values 16 + 4k…). The integer dot Σ a q equals the AVX-512 tile's Σ a (q + bias) − bias Σ a,
// so no bias term remains, and the float step is that tile's acc ← fma(d · xScale, float(dot),
// acc).

#include "backend/cpu/amx_tiles.h"

#if defined(__x86_64__)
#include "backend/cpu/amx_pipeline.h"
#endif

namespace inferlens {

#if defined(__x86_64__)

namespace {

using namespace amx;

template <bool isQ8>
struct LegacyUnits {
    static constexpr bool kSignedWeights = true;
    static constexpr int kUnitValues = 32;
    static constexpr int kUnitsPerBlock = 1;
    static int64_t activationBlock(int64_t unit) { return unit; }
    static int activationOffset(int64_t) { return 0; }
    static constexpr int64_t kBlockBytes = isQ8 ? 16 + 8 * kChunkBytes : 16 + 4 * kChunkBytes;

    template <int G>
    INFERLENS_AMX static void prepareWeights(const std::byte* group, int64_t groupBytes,
                                             int64_t unit, int8_t* b) {
        const std::byte* chunks = group + unit * kBlockBytes + 16;
        constexpr int row = G * kChunkBytes;
        if constexpr (isQ8) {
#pragma GCC unroll 8
            for (int k = 0; k < 8; ++k)
                storeWeightRow<G>(
                    b + k * row,
                    _mm512_xor_si512(groupChunks<G>(chunks + k * kChunkBytes, groupBytes),
                                     _mm512_set1_epi8(char(0x80))));
        } else {
            const __m512i low = _mm512_set1_epi8(0x0f), eight = _mm512_set1_epi8(8);
#pragma GCC unroll 4
            for (int k = 0; k < 4; ++k) {
                const __m512i nibbles = groupChunks<G>(chunks + k * kChunkBytes, groupBytes);
                storeWeightRow<G>(b + k * row,
                                  _mm512_sub_epi8(_mm512_and_si512(nibbles, low), eight));
                storeWeightRow<G>(
                    b + (k + 4) * row,
                    _mm512_sub_epi8(_mm512_and_si512(_mm512_srli_epi16(nibbles, 4), low), eight));
            }
        }
    }

    template <int G, int M>
    INFERLENS_AMX static void accumulate(const std::byte* group, int64_t groupBytes,
                                         const PassActivations& x, int64_t unit, const int32_t* c,
                                         __m512* acc) {
        const __m512 d = rowHalves<G>(group + unit * kBlockBytes, groupBytes);
        const float* scales = x.scales + unit * kPassTokens;
#pragma GCC unroll 32
        for (int p = 0; p < kVectors<G, M>; ++p)
            acc[p] = _mm512_fmadd_ps(_mm512_mul_ps(d, tokenVector<G>(scales, p)),
                                     _mm512_cvtepi32_ps(_mm512_load_si512(c + 16 * p)), acc[p]);
    }
};

}  // namespace

PackedRowsTile amxLegacyRows(DType dtype) {
    return dtype == DType::Q8_0   ? rowsProduct<LegacyUnits<true>, DType::Q8_0>
           : dtype == DType::Q4_0 ? rowsProduct<LegacyUnits<false>, DType::Q4_0>
                                  : nullptr;
}

#else

PackedRowsTile amxLegacyRows(DType) {
    return nullptr;
}

#endif

}  // namespace inferlens
