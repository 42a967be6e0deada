// AMX INT8 tiles for packed Q4_K, Q5_K and Q6_K (amx_tiles.h, amx_pipeline.h; the packed
// super-blocks: packed_k_quants.cpp). Q4_K, Q5_K: a unit is a sub-block of 32 values, its weights
// the unsigned 4-bit (Q5_K: 5-bit) values themselves, multiplied with the signed activations by
// TDPBSUD. The float steps are the AVX-512 tile's, per (row, token) and sub-block s in order:
//   acc ← fma(d · sc · xScale, float(Σ n a), acc), then acc ← fma(−dmin · m, xSum, acc).
// Q6_K: a unit is a 16-value group (one scale each), its weights the signed values q − 32 (TDPBSSD:
// Σ (q − 32) a is the AVX-512 tile's Σ q a − 32 Σ a), in that tile's order — per half h of the
// super-block, per half g of its sub-blocks 4h + k, k = 0…3:
//   acc ← fma(d · sc · xScale, float(Σ (q − 32) a), acc).

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
    static constexpr int kUnitValues = 32;
    static constexpr int kUnitsPerBlock = 8;
    static int64_t activationBlock(int64_t unit) { return unit; }
    static int activationOffset(int64_t) { return 0; }
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
        const __m512 scale = _mm512_mul_ps(d, rowBytes<G>(block + 32 + 8 * s, groupBytes));
        const __m512 offset =
            _mm512_mul_ps(negativeDmin, rowBytes<G>(block + 96 + 8 * s, groupBytes));
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

struct Q6Units {
    static constexpr bool kSignedWeights = true;
    static constexpr int kUnitValues = 16;
    static constexpr int kUnitsPerBlock = 16;
    static constexpr int64_t kHalfAt = 144;  // the packed super-block's halves
    static constexpr int64_t kHalfBytes = (16 + 8) * kChunkBytes;
    static constexpr int64_t kBlockBytes = kHalfAt + 2 * kHalfBytes;

    // Unit j = 8h + 4g + k of a super-block: half g of sub-block 4h + k.
    struct Unit {
        int64_t block;
        int h, g, k;
        int64_t subBlock() const { return 8 * block + 4 * h + k; }
        int scaleGroup() const { return 2 * (4 * h + k) + g; }
    };
    static Unit unitAt(int64_t unit) {
        const int j = int(unit % kUnitsPerBlock);
        return {unit / kUnitsPerBlock, j / 8, j / 4 % 2, j % 4};
    }
    static int64_t activationBlock(int64_t unit) { return unitAt(unit).subBlock(); }
    static int activationOffset(int64_t unit) { return kUnitValues * unitAt(unit).g; }

    template <int G>
    INFERLENS_AMX static void prepareWeights(const std::byte* group, int64_t groupBytes,
                                             int64_t unit, int8_t* b) {
        const Unit at = unitAt(unit);
        const std::byte* half = group + at.block * kBlockBytes + kHalfAt + at.h * kHalfBytes;
        const __m512i low4 = _mm512_set1_epi8(0x0f), low2 = _mm512_set1_epi8(3);
#pragma GCC unroll 4
        for (int i = 0; i < 4; ++i) {
            // Values 16g + 4i … + 3: low nibbles (sub-blocks 4h + 2, 4h + 3 in the high halves)
            // in chunk 8 (k % 2) + 4g + i, the 2-bit high parts in chunk 4g + i after them.
            const __m512i nibbles =
                groupChunks<G>(half + kChunkBytes * (8 * (at.k % 2) + 4 * at.g + i), groupBytes);
            const __m512i highs =
                groupChunks<G>(half + kChunkBytes * (16 + 4 * at.g + i), groupBytes);
            const __m512i low =
                _mm512_and_si512(at.k < 2 ? nibbles : _mm512_srli_epi16(nibbles, 4), low4);
            const __m512i high = _mm512_slli_epi16(
                _mm512_and_si512(_mm512_srl_epi16(highs, _mm_cvtsi32_si128(2 * at.k)), low2), 4);
            storeWeightRow<G>(b + i * G * kChunkBytes,
                              _mm512_sub_epi8(_mm512_or_si512(low, high), _mm512_set1_epi8(32)));
        }
    }

    template <int G, int M>
    INFERLENS_AMX static void accumulate(const std::byte* group, int64_t groupBytes,
                                         const PassActivations& x, int64_t unit, const int32_t* c,
                                         __m512* acc) {
        const Unit at = unitAt(unit);
        const std::byte* block = group + at.block * kBlockBytes;
        const __m512 scale =
            _mm512_mul_ps(rowHalves<G>(block, groupBytes),
                          rowBytes<G, true>(block + 16 + 8 * at.scaleGroup(), groupBytes));
        const float* xScales = x.scales + at.subBlock() * kPassTokens;
#pragma GCC unroll 32
        for (int p = 0; p < kVectors<G, M>; ++p)
            acc[p] = _mm512_fmadd_ps(_mm512_mul_ps(scale, tokenVector<G>(xScales, p)),
                                     _mm512_cvtepi32_ps(_mm512_load_si512(c + 16 * p)), acc[p]);
    }
};

}  // namespace

PackedRowsTile amxKRows(DType dtype) {
    return dtype == DType::Q4_K   ? rowsProduct<KUnits<false>, DType::Q4_K>
           : dtype == DType::Q5_K ? rowsProduct<KUnits<true>, DType::Q5_K>
           : dtype == DType::Q6_K ? rowsProduct<Q6Units, DType::Q6_K>
                                  : nullptr;
}

#else

PackedRowsTile amxKRows(DType) {
    return nullptr;
}

#endif

}  // namespace inferlens
