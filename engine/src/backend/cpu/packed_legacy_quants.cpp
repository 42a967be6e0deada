// Q8_0 and Q4_0 packed 8 rows at a time (packed_rows.h): the packing of a block and the tiles.

#include "backend/cpu/packed_formats.h"
#include "core/quant_blocks.h"

namespace inferlens {
namespace {

constexpr int64_t kScaleBytes = 2 * kPackedRows;

// Block b of a group: scales, then the chunks (packed_rows.h); Q8_0's values become unsigned
// (q + 128), padding rows value 0 with scale 0.
template <int64_t fileBlockBytes, int chunks, uint32_t flip>
void packBlock(const std::byte* const* rows, int64_t b, std::byte* out) {
    for (int j = 0; j < kPackedRows; ++j) {
        const std::byte* block = rows[j] == nullptr ? nullptr : rows[j] + b * fileBlockBytes;
        if (block == nullptr)
            std::memset(out + 2 * j, 0, 2);
        else
            std::memcpy(out + 2 * j, block, 2);
        for (int k = 0; k < chunks; ++k)
            copyLane(block == nullptr ? nullptr : block + 2 + 4 * k,
                     out + kScaleBytes + 32 * k + 4 * j, flip);
    }
}

#if defined(__x86_64__)

// Q8_0's chunk (biased weights u = q + 128) times activation bytes: VNNI multiplies unsigned by
// signed bytes directly; AVX2's two-instruction version would saturate on 255 · 127 pairs, so it
// takes the signed weights back and moves their signs onto the activations.
INFERLENS_AVX512 inline __m256i q8ProductsVnni(__m256i acc, __m256i u, __m256i a) {
    return _mm256_dpbusd_epi32(acc, u, a);
}
INFERLENS_AVX2 inline __m256i q8Products(__m256i acc, __m256i u, __m256i a) {
    const __m256i q = _mm256_xor_si256(u, _mm256_set1_epi8(char(0x80)));
    return _mm256_add_epi32(acc,
                            simd::multiplyBytes(_mm256_sign_epi8(q, q), _mm256_sign_epi8(a, q)));
}

// One packed group times T tokens. The integer dot of a block is built in four independent
// accumulators (exact, so their order does not matter), so that a decode step is not bound by
// the latency of one chain of multiply-adds; the first starts at −bias · Σ a, which takes off
// what the multiplied bytes carry beyond the values (Q4_0's nibbles n = q + 8, VNNI's Q8_0 bytes
// q + 128).
#define INFERLENS_PACKED_TILE(name, target, isQ8, products, bias)                               \
    template <int T>                                                                            \
    target void name(const std::byte* group, const QuantizedActivations* const* xs,             \
                     int64_t blocks, float* out, int stride) {                                  \
        constexpr int64_t blockBytes = isQ8 ? 16 + 256 : 16 + 128;                              \
        __m256 acc[T];                                                                          \
        _Pragma("GCC unroll 4") for (int t = 0; t < T; ++t) acc[t] = _mm256_setzero_ps();       \
        for (int64_t b = 0; b < blocks; ++b) {                                                  \
            const std::byte* block = group + b * blockBytes;                                    \
            const __m256 d = packedScales(block);                                               \
            __m256i chunk[8];                                                                   \
            _Pragma("GCC unroll 8") for (int k = 0; k < (isQ8 ? 8 : 4); ++k) {                  \
                const __m256i bytes =                                                           \
                    _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 16 + 32 * k));  \
                if (isQ8) {                                                                     \
                    chunk[k] = bytes;                                                           \
                } else {                                                                        \
                    chunk[k] = _mm256_and_si256(bytes, _mm256_set1_epi8(0x0f));                 \
                    chunk[k + 4] =                                                              \
                        _mm256_and_si256(_mm256_srli_epi16(bytes, 4), _mm256_set1_epi8(0x0f));  \
                }                                                                               \
            }                                                                                   \
            _Pragma("GCC unroll 4") for (int t = 0; t < T; ++t) {                               \
                const int8_t* a = xs[t]->values.data() + b * kQuantBlockElements;               \
                __m256i dot[4] = {_mm256_set1_epi32(-bias * xs[t]->sums[size_t(b)]),            \
                                  _mm256_setzero_si256(), _mm256_setzero_si256(),               \
                                  _mm256_setzero_si256()};                                      \
                _Pragma("GCC unroll 8") for (int k = 0; k < 8; ++k) dot[k % 4] =                \
                    products(dot[k % 4], chunk[k], broadcast4(a + 4 * k));                      \
                const __m256i sum = _mm256_add_epi32(_mm256_add_epi32(dot[0], dot[1]),          \
                                                     _mm256_add_epi32(dot[2], dot[3]));         \
                acc[t] =                                                                        \
                    _mm256_fmadd_ps(_mm256_mul_ps(d, _mm256_set1_ps(xs[t]->scales[size_t(b)])), \
                                    _mm256_cvtepi32_ps(sum), acc[t]);                           \
            }                                                                                   \
        }                                                                                       \
        for (int t = 0; t < T; ++t)                                                             \
            storeRows(acc[t], out + t, stride);                                                 \
    }

INFERLENS_PACKED_TILE(q8Avx2, INFERLENS_AVX2, true, q8Products, 0)
INFERLENS_PACKED_TILE(q8Avx512, INFERLENS_AVX512, true, q8ProductsVnni, 128)
INFERLENS_PACKED_TILE(q4Avx2, INFERLENS_AVX2, false, nibbleProducts, 8)
INFERLENS_PACKED_TILE(q4Avx512, INFERLENS_AVX512, false, nibbleProductsVnni, 8)

#endif

#if defined(__x86_64__)
template <bool q8>
PackedTile legacyTile(CpuKernels kernels) {
    if (kernels == CpuKernels::Avx512)
        return q8 ? anyTokens<q8Avx512<4>, q8Avx512<1>> : anyTokens<q4Avx512<4>, q4Avx512<1>>;
    if (kernels == CpuKernels::Avx2)
        return q8 ? anyTokens<q8Avx2<4>, q8Avx2<1>> : anyTokens<q4Avx2<4>, q4Avx2<1>>;
    return nullptr;
}
#else
template <bool q8>
PackedTile legacyTile(CpuKernels) {
    return nullptr;
}
#endif

}  // namespace

const PackedFormat* packedLegacyFormat(DType dtype) {
    static const PackedFormat q8_0{kPackedRows * kQ8_0BlockBytes,
                                   packBlock<kQ8_0BlockBytes, 8, 0x80808080u>, legacyTile<true>};
    static const PackedFormat q4_0{kPackedRows * kQ4_0BlockBytes, packBlock<kQ4_0BlockBytes, 4, 0>,
                                   legacyTile<false>};
    return dtype == DType::Q8_0 ? &q8_0 : dtype == DType::Q4_0 ? &q4_0 : nullptr;
}

}  // namespace inferlens
