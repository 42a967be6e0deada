// F32, F16 and BF16 rows times activations, as tiles of up to kTileRows rows × kTileTokens
// tokens. Every (row, token) pair has one vector accumulator over the full-width part of the row,
// then the scalar tail in order: the same sum whatever tile it is computed in. The SIMD tiles get
// their instruction-level parallelism from the tile's independent pairs (a decode step's tile is
// kTileRows rows × 1 token), not from splitting one sum. The activations are f32, or F16 (a
// decode step's, halfActivationsTile): converted exactly on loading, the same products either way.

#include <algorithm>

#include "backend/cpu/kernels.h"
#include "backend/cpu/simd_x86.h"
#include "backend/cpu/tile_dispatch.h"
#include "core/dtype_codec.h"
#include "core/half.h"

INFERLENS_QUIET_GCC_VECTOR_HEADERS
// GCC also warns about the vector types' alignment attribute in the loaders' types, which template
// arguments do not carry: the loaders are called, never stored.
#pragma GCC diagnostic ignored "-Wignored-attributes"

namespace inferlens {
namespace {

// Element i of an activation vector as f32.
inline float scalarF32(const float* x, int64_t i) {
    return x[i];
}
inline float scalarF16(const uint16_t* x, int64_t i) {
    return halfToFloat(x[i]);
}

template <float (*load)(const std::byte*, int64_t), typename X,
          float (*scalarX)(const X*, int64_t) = scalarF32>
void portableTile(const std::byte* const* rows, int rowCount, const X* const* xs, int tokenCount,
                  int64_t count, float* out) {
    for (int r = 0; r < rowCount; ++r)
        for (int t = 0; t < tokenCount; ++t) {
            float sum = 0.0f;
            for (int64_t i = 0; i < count; ++i)
                sum += load(rows[r], i) * scalarX(xs[t], i);
            out[t * rowCount + r] = sum;
        }
}

#if defined(__x86_64__)

// The register tiles (`out` has `stride` entries per token), and `kernels`: any tile from them, of
// up to kTileRows rows × `tokens` tokens at a time. `interleaved`: the tokens' activations in the
// layout of interleaveHalfToken (kernels.h), a T-token group's value i of token t at xs[t] + T·i
// for whole vectors; the rows' lengths are then whole vectors.
#define INFERLENS_FLOAT_TILE(name, kernels, tokens, target, vector, width, zero, fma, reduce,      \
                             loadF32)                                                              \
    template <int R, int T, vector (*loadw)(const std::byte*, int64_t),                            \
              float (*load)(const std::byte*, int64_t), typename X,                                \
              vector (*loadx)(const X*, int64_t), float (*scalarX)(const X*, int64_t),             \
              bool interleaved>                                                                    \
    target void name(const std::byte* const* rows, const X* const* xs, int64_t count, float* out,  \
                     int stride) {                                                                 \
        vector acc[R][T];                                                                          \
        _Pragma("GCC unroll 4") for (int r = 0; r < R; ++r)                                        \
            _Pragma("GCC unroll 8") for (int t = 0; t < T; ++t) acc[r][t] = zero();                \
        int64_t i = 0;                                                                             \
        for (; i + width <= count; i += width) {                                                   \
            vector x[T];                                                                           \
            _Pragma("GCC unroll 8") for (int t = 0; t < T; ++t) x[t] =                             \
                loadx(xs[t], interleaved ? T * i : i);                                             \
            _Pragma("GCC unroll 4") for (int r = 0; r < R; ++r) {                                  \
                const vector w = loadw(rows[r], i);                                                \
                _Pragma("GCC unroll 8") for (int t = 0; t < T; ++t) acc[r][t] =                    \
                    fma(w, x[t], acc[r][t]);                                                       \
            }                                                                                      \
        }                                                                                          \
        float sums[R * T];                                                                         \
        reduce<R * T>(&acc[0][0], sums);                                                           \
        for (int r = 0; r < R; ++r)                                                                \
            for (int t = 0; t < T; ++t) {                                                          \
                float sum = sums[r * T + t];                                                       \
                for (int64_t j = i; j < count; ++j)                                                \
                    sum += load(rows[r], j) * scalarX(xs[t], j);                                   \
                out[t * stride + r] = sum;                                                         \
            }                                                                                      \
    }                                                                                              \
    /* The family of name<R, T> for tokensInTiles (tile_dispatch.h). */                            \
    template <vector (*loadw)(const std::byte*, int64_t),                                          \
              float (*load)(const std::byte*, int64_t), typename X,                                \
              vector (*loadx)(const X*, int64_t), float (*scalarX)(const X*, int64_t),             \
              bool interleaved>                                                                    \
    struct name##Family {                                                                          \
        template <int R, int T>                                                                    \
        static void run(const std::byte* const* rows, const X* const* xs, int64_t count,           \
                        float* out, int stride) {                                                  \
            name<R, T, loadw, load, X, loadx, scalarX, interleaved>(rows, xs, count, out, stride); \
        }                                                                                          \
    };                                                                                             \
    template <vector (*loadw)(const std::byte*, int64_t),                                          \
              float (*load)(const std::byte*, int64_t), typename X = float,                        \
              vector (*loadx)(const X*, int64_t) = loadF32,                                        \
              float (*scalarX)(const X*, int64_t) = scalarF32, bool interleaved = false>           \
    constexpr auto kernels =                                                                       \
        anyTileOfTokens<X, kTileRows, tokens,                                                      \
                        name##Family<loadw, load, X, loadx, scalarX, interleaved>>;

INFERLENS_AVX2 inline __m256 zero8() {
    return _mm256_setzero_ps();
}
INFERLENS_AVX512 inline __m512 zero16() {
    return _mm512_setzero_ps();
}
// Each vector's lane sum: AVX2's one by one, AVX-512's in one tree (simd::laneSums).
template <int N>
INFERLENS_AVX2 inline void sums8(const __m256* v, float* out) {
    for (int i = 0; i < N; ++i)
        out[i] = simd::horizontalSum(v[i]);
}
template <int N>
INFERLENS_AVX512 inline void sums16(const __m512* v, float* out) {
    simd::laneSums<N>(v, out);
}

// Eight or sixteen elements of a row as f32.
INFERLENS_AVX2 inline __m256 load8F32(const std::byte* row, int64_t i) {
    return _mm256_loadu_ps(reinterpret_cast<const float*>(row) + i);
}
INFERLENS_AVX2 inline __m256 load8F16(const std::byte* row, int64_t i) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2 * i)));
}
INFERLENS_AVX2 inline __m256 load8Bf16(const std::byte* row, int64_t i) {
    const __m128i bits = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2 * i));
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(bits), 16));
}
INFERLENS_AVX512 inline __m512 load16F32(const std::byte* row, int64_t i) {
    return _mm512_loadu_ps(reinterpret_cast<const float*>(row) + i);
}
INFERLENS_AVX512 inline __m512 load16F16(const std::byte* row, int64_t i) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 2 * i)));
}
INFERLENS_AVX512 inline __m512 load16Bf16(const std::byte* row, int64_t i) {
    const __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 2 * i));
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(bits), 16));
}

// Value i of a grouped row (kernels.h, groupedIndex).
template <__m512 (*load)(const std::byte*, int64_t)>
INFERLENS_AVX512 inline __m512 groupedLoad(const std::byte* row, int64_t i) {
    return load(row, groupedIndex(i));
}
template <float (*load)(const std::byte*, int64_t)>
inline float groupedScalar(const std::byte* row, int64_t i) {
    return load(row, groupedIndex(i));
}

// Eight or sixteen activations as f32, from f32 or F16.
INFERLENS_AVX2 inline __m256 load8xF32(const float* x, int64_t i) {
    return _mm256_loadu_ps(x + i);
}
INFERLENS_AVX2 inline __m256 load8xF16(const uint16_t* x, int64_t i) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i)));
}
INFERLENS_AVX512 inline __m512 load16xF32(const float* x, int64_t i) {
    return _mm512_loadu_ps(x + i);
}
INFERLENS_AVX512 inline __m512 load16xF16(const uint16_t* x, int64_t i) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i)));
}

// AVX2 has 16 vector registers: 4 rows × 3 tokens of accumulators, three activation vectors and
// the weight being multiplied. Four rows rather than two halve the activations each row group
// reads from the caches, which is what bounds a prefill (TinyLlama F16 prefill on one Zen 3 core:
// see bench/RESULTS.md). AVX-512 has 32: 4 × 6, each converted weight vector meeting six tokens
// instead of four (TinyLlama F16 prefill, F16 activations, one AMD Zen 5 core, alternating: 128
// tokens 86.8 → 90.2 tokens/s, 512 tokens 85.3 → 88.8). The loops over a tile's tokens unroll by 8,
// so that six stay in registers (by 4, GCC kept them in memory: a third of the speed).
constexpr int kAvx2TileTokens = 3;
static_assert(kInterleavedTokens == kAvx2TileTokens && kInterleavedChunk == 8,
              "the interleaved layout is the AVX2 tile's token groups and vectors");
constexpr int kAvx512TileTokens = 6;
INFERLENS_FLOAT_TILE(avx2Tile, avx2Kernels, kAvx2TileTokens, INFERLENS_AVX2, __m256, 8, zero8,
                     _mm256_fmadd_ps, sums8, load8xF32)
INFERLENS_FLOAT_TILE(avx512Tile, avx512Kernels, kAvx512TileTokens, INFERLENS_AVX512, __m512, 16,
                     zero16, _mm512_fmadd_ps, sums16, load16xF32)

#endif

}  // namespace

int64_t floatDecodeRows(CpuKernels kernels) {
    return kernels == CpuKernels::Avx2 || kernels == CpuKernels::Amx ? kTileRows : 1;
}

SixteenBitTile halfActivationsTile(CpuKernels kernels) {
#if defined(__x86_64__)
    if (kernels >= CpuKernels::Avx512)
        return avx512Kernels<load16F16, loadF16, uint16_t, load16xF16, scalarF16>;
    if (kernels == CpuKernels::Avx2)
        return avx2Kernels<load8F16, loadF16, uint16_t, load8xF16, scalarF16>;
#endif
    return portableTile<loadF16, uint16_t, scalarF16>;
}

SixteenBitTile interleavedHalfActivationsTile(CpuKernels kernels) {
#if defined(__x86_64__)
    if (kernels == CpuKernels::Avx2)
        return avx2Kernels<load8F16, loadF16, uint16_t, load8xF16, scalarF16, true>;
#endif
    (void)kernels;
    return nullptr;
}

int64_t interleavedOffset(int64_t t, int64_t columns) {
    const int64_t group = t / kInterleavedTokens * kInterleavedTokens;
    return group * columns + (t - group) * kInterleavedChunk;
}

void interleaveHalfToken(const uint16_t* values, int64_t t, int64_t tokens, int64_t columns,
                         uint16_t* layout) {
    const int64_t group = t / kInterleavedTokens * kInterleavedTokens;
    const int64_t groupTokens = std::min<int64_t>(kInterleavedTokens, tokens - group);
    uint16_t* first = layout + interleavedOffset(t, columns);
    for (int64_t i = 0; i < columns; i += kInterleavedChunk)
        std::copy_n(values + i, kInterleavedChunk, first + groupTokens * i);
}

SixteenBitTile groupedHalfActivationsTile(CpuKernels kernels) {
#if defined(__x86_64__)
    if (kernels >= CpuKernels::Avx512)
        return avx512Kernels<groupedLoad<load16F16>, groupedScalar<loadF16>, uint16_t, load16xF16,
                             scalarF16>;
#endif
    (void)kernels;
    return nullptr;
}

FloatTile groupedFloatTile(DType dtype, CpuKernels kernels) {
#if defined(__x86_64__)
    if (kernels >= CpuKernels::Avx512) {
        if (dtype == DType::F16)
            return avx512Kernels<groupedLoad<load16F16>, groupedScalar<loadF16>>;
        if (dtype == DType::BF16)
            return avx512Kernels<groupedLoad<load16Bf16>, groupedScalar<loadBf16>>;
    }
#endif
    (void)dtype;
    (void)kernels;
    return nullptr;
}

FloatTile floatTile(DType dtype, CpuKernels kernels) {
#if defined(__x86_64__)
    if (kernels >= CpuKernels::Avx512) {
        switch (dtype) {
            case DType::F32:
                return avx512Kernels<load16F32, loadF32>;
            case DType::F16:
                return avx512Kernels<load16F16, loadF16>;
            case DType::BF16:
                return avx512Kernels<load16Bf16, loadBf16>;
            default:
                return nullptr;
        }
    }
    if (kernels == CpuKernels::Avx2) {
        switch (dtype) {
            case DType::F32:
                return avx2Kernels<load8F32, loadF32>;
            case DType::F16:
                return avx2Kernels<load8F16, loadF16>;
            case DType::BF16:
                return avx2Kernels<load8Bf16, loadBf16>;
            default:
                return nullptr;
        }
    }
#endif
    switch (dtype) {
        case DType::F32:
            return portableTile<loadF32, float>;
        case DType::F16:
            return portableTile<loadF16, float>;
        case DType::BF16:
            return portableTile<loadBf16, float>;
        default:
            return nullptr;
    }
}

}  // namespace inferlens
