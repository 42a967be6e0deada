#include "backend/cpu/packed_rows.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>

#include "backend/cpu/simd_x86.h"
#include "core/error.h"
#include "core/quant_blocks.h"
#include "io/mapped_file.h"

namespace inferlens {
namespace {

constexpr int64_t kScaleBytes = 2 * kPackedRows;

int64_t packedBlockBytes(DType dtype) {
    return kPackedRows * dtypeInfo(dtype).blockBytes;  // the same bytes, rearranged
}

// Block b of a group (rows[j] null for padding): scales, then the chunks (packed_rows.h). Four
// bytes at a time, since packing runs over the whole model at load.
void packBlock(DType dtype, const std::byte* const* rows, int64_t b, std::byte* out) {
    const int64_t blockBytes = dtypeInfo(dtype).blockBytes;
    const int chunks = dtype == DType::Q8_0 ? 8 : 4;
    // Q8_0's values become unsigned (q + 128); padding is value 0 with scale 0.
    const uint32_t flip = dtype == DType::Q8_0 ? 0x80808080u : 0u;
    for (int j = 0; j < kPackedRows; ++j) {
        const std::byte* block = rows[j] == nullptr ? nullptr : rows[j] + b * blockBytes;
        if (block == nullptr)
            std::memset(out + 2 * j, 0, 2);
        else
            std::memcpy(out + 2 * j, block, 2);
        for (int k = 0; k < chunks; ++k) {
            uint32_t word = 0;
            if (block != nullptr)
                std::memcpy(&word, block + 2 + 4 * k, 4);
            word ^= flip;
            std::memcpy(out + kScaleBytes + 32 * k + 4 * j, &word, 4);
        }
    }
}

#if defined(__x86_64__)

// The token's 4 activation bytes from `a`, in every lane.
INFERLENS_AVX2 inline __m256i broadcast4(const int8_t* a) {
    int32_t word;
    std::memcpy(&word, a, 4);
    return _mm256_set1_epi32(word);
}

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
// Q4_0's nibbles (≤ 15) times activation bytes: no saturation either way.
INFERLENS_AVX512 inline __m256i q4ProductsVnni(__m256i acc, __m256i n, __m256i a) {
    return _mm256_dpbusd_epi32(acc, n, a);
}
INFERLENS_AVX2 inline __m256i q4Products(__m256i acc, __m256i n, __m256i a) {
    return _mm256_add_epi32(acc, simd::multiplyBytes(n, a));
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
            const __m256 d =                                                                    \
                _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(block)));      \
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
        for (int t = 0; t < T; ++t) {                                                           \
            alignas(32) float lanes[8];                                                         \
            _mm256_store_ps(lanes, acc[t]);                                                     \
            for (int r = 0; r < kPackedRows; ++r)                                               \
                out[r * stride + t] = lanes[r];                                                 \
        }                                                                                       \
    }

INFERLENS_PACKED_TILE(q8Avx2, INFERLENS_AVX2, true, q8Products, 0)
INFERLENS_PACKED_TILE(q8Avx512, INFERLENS_AVX512, true, q8ProductsVnni, 128)
INFERLENS_PACKED_TILE(q4Avx2, INFERLENS_AVX2, false, q4Products, 8)
INFERLENS_PACKED_TILE(q4Avx512, INFERLENS_AVX512, false, q4ProductsVnni, 8)

// Any number of tokens: kTileTokens at a time, then one by one.
template <void (*many)(const std::byte*, const QuantizedActivations* const*, int64_t, float*, int),
          void (*one)(const std::byte*, const QuantizedActivations* const*, int64_t, float*, int)>
void anyTokens(const std::byte* group, const QuantizedActivations* const* xs, int tokenCount,
               int64_t blocks, float* out) {
    for (int t = 0; t < tokenCount;) {
        const bool full = t + 4 <= tokenCount;
        (full ? many : one)(group, xs + t, blocks, out + t, tokenCount);
        t += full ? 4 : 1;
    }
}

#endif

}  // namespace

bool packs(DType dtype, CpuKernels kernels) {
    return (dtype == DType::Q8_0 || dtype == DType::Q4_0) && kernels != CpuKernels::Portable;
}

void PackedBuffer::Free::operator()(std::byte* bytes) const {
    std::free(bytes);
}

PackedBuffer packRows(const TensorView& matrix, ThreadPool* pool) {
    const int64_t rows = matrix.rows(), blocks = matrix.columns() / kQuantBlockElements;
    const int64_t groups = (rows + kPackedRows - 1) / kPackedRows;
    const int64_t blockBytes = packedBlockBytes(matrix.dtype), groupBytes = blocks * blockBytes;
    constexpr size_t kHugePage = size_t(2) << 20;
    PackedBuffer buffer;
    buffer.size = groups * groupBytes;
    const size_t allocated = (size_t(buffer.size) + kHugePage - 1) / kHugePage * kHugePage;
    buffer.bytes.reset(static_cast<std::byte*>(std::aligned_alloc(kHugePage, allocated)));
    if (buffer.bytes == nullptr)
        throw Error("out of memory repacking " + matrix.name + " (" +
                    std::to_string(allocated >> 20) + " MiB)");
    ::madvise(buffer.bytes.get(), allocated, MADV_HUGEPAGE);
    const auto packGroups = [&](int64_t first, int64_t last) {
        for (int64_t g = first; g < last; ++g) {
            const std::byte* rowPointers[kPackedRows];
            for (int j = 0; j < kPackedRows; ++j)
                rowPointers[j] =
                    g * kPackedRows + j < rows ? matrix.row(g * kPackedRows + j) : nullptr;
            for (int64_t b = 0; b < blocks; ++b)
                packBlock(matrix.dtype, rowPointers, b,
                          buffer.bytes.get() + g * groupBytes + b * blockBytes);
        }
    };
    if (pool != nullptr)
        pool->parallelFor(groups, packGroups);
    else
        packGroups(0, groups);
    return buffer;
}

PackedTile packedTile(DType dtype, CpuKernels kernels) {
#if defined(__x86_64__)
    const bool q8 = dtype == DType::Q8_0;
    if (kernels == CpuKernels::Avx512)
        return q8 ? anyTokens<q8Avx512<4>, q8Avx512<1>> : anyTokens<q4Avx512<4>, q4Avx512<1>>;
    if (kernels == CpuKernels::Avx2)
        return q8 ? anyTokens<q8Avx2<4>, q8Avx2<1>> : anyTokens<q4Avx2<4>, q4Avx2<1>>;
#endif
    (void)dtype;
    (void)kernels;
    return nullptr;
}

void packInto(TensorView& view, PackedStore& store, ThreadPool* pool) {
    if (view.shape.size() != 2 || !packs(view.dtype, cpuKernels()) || view.packed != nullptr)
        return;
    store.buffers.push_back(packRows(view, pool));
    view.packed = store.buffers.back().bytes.get();
    // The file's copy is read again only for rare things (an embedding row, a converter).
    releaseMappedPages(view.data, size_t(view.byteCount));
}

}  // namespace inferlens
