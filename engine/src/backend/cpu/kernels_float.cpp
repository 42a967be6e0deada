// F32, F16 and BF16 rows times f32 activations. The SIMD versions keep four independent
// accumulators so that the FMA latency does not serialise the loop, and finish the tail (counts
// that are not a multiple of the vector width) in scalar code.

#include <cstring>

#include "backend/cpu/kernels.h"
#include "core/dtype_codec.h"

#include "backend/cpu/simd_x86.h"

// GCC 12 warns inside its own AVX-512 headers (their placeholder "undefined" vectors), not about
// this file's code.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace inferlens {
namespace {

template <float (*load)(const std::byte*, int64_t)>
float portableDot(const std::byte* row, const float* x, int64_t count) {
    float sum = 0.0f;
    for (int64_t i = 0; i < count; ++i)
        sum += load(row, i) * x[i];
    return sum;
}

template <float (*load)(const std::byte*, int64_t)>
void portableDot4(const std::byte* row, const float* const* xs, int64_t count, float* out) {
    for (int k = 0; k < kRowDotBatch; ++k)
        out[k] = portableDot<load>(row, xs[k], count);
}

#if defined(__x86_64__)

// Eight elements of a row as f32.
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

// One row against `tokens` activation vectors (the loops over accumulators and tokens are unrolled
// so that the accumulators live in registers). The single-vector dot is the same function with
// tokens = 1, so that a token's product is the same number whether it runs alone (decode) or in a
// batch (prefill): the accumulators, their order and the tail are identical.
template <int tokens, __m256 (*load8)(const std::byte*, int64_t),
          float (*load)(const std::byte*, int64_t)>
INFERLENS_AVX2 void avx2DotN(const std::byte* row, const float* const* xs, int64_t count,
                             float* out) {
    constexpr int kAccumulators = 2;  // × tokens: fits the 16 vector registers with the loads
    __m256 acc[tokens][kAccumulators];
    for (auto& perToken : acc)
        for (auto& a : perToken)
            a = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 8 * kAccumulators <= count; i += 8 * kAccumulators)
#pragma GCC unroll 4
        for (int k = 0; k < kAccumulators; ++k) {
            const __m256 w = load8(row, i + 8 * k);
#pragma GCC unroll 4
            for (int t = 0; t < tokens; ++t)
                acc[t][k] = _mm256_fmadd_ps(w, _mm256_loadu_ps(xs[t] + i + 8 * k), acc[t][k]);
        }
    for (; i + 8 <= count; i += 8) {
        const __m256 w = load8(row, i);
#pragma GCC unroll 4
        for (int t = 0; t < tokens; ++t)
            acc[t][0] = _mm256_fmadd_ps(w, _mm256_loadu_ps(xs[t] + i), acc[t][0]);
    }
    for (int t = 0; t < tokens; ++t) {
        float sum = simd::horizontalSum(_mm256_add_ps(acc[t][0], acc[t][1]));
        for (int64_t j = i; j < count; ++j)
            sum += load(row, j) * xs[t][j];
        out[t] = sum;
    }
}

template <__m256 (*load8)(const std::byte*, int64_t), float (*load)(const std::byte*, int64_t)>
INFERLENS_AVX2 float avx2Dot(const std::byte* row, const float* x, int64_t count) {
    float out;
    avx2DotN<1, load8, load>(row, &x, count, &out);
    return out;
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

// As avx2DotN, sixteen lanes wide with four accumulators per token (32 vector registers).
template <int tokens, __m512 (*load16)(const std::byte*, int64_t),
          float (*load)(const std::byte*, int64_t)>
INFERLENS_AVX512 void avx512DotN(const std::byte* row, const float* const* xs, int64_t count,
                                 float* out) {
    constexpr int kAccumulators = 4;
    __m512 acc[tokens][kAccumulators];
    for (auto& perToken : acc)
        for (auto& a : perToken)
            a = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 16 * kAccumulators <= count; i += 16 * kAccumulators)
#pragma GCC unroll 4
        for (int k = 0; k < kAccumulators; ++k) {
            const __m512 w = load16(row, i + 16 * k);
#pragma GCC unroll 4
            for (int t = 0; t < tokens; ++t)
                acc[t][k] = _mm512_fmadd_ps(w, _mm512_loadu_ps(xs[t] + i + 16 * k), acc[t][k]);
        }
    for (; i + 16 <= count; i += 16) {
        const __m512 w = load16(row, i);
#pragma GCC unroll 4
        for (int t = 0; t < tokens; ++t)
            acc[t][0] = _mm512_fmadd_ps(w, _mm512_loadu_ps(xs[t] + i), acc[t][0]);
    }
    for (int t = 0; t < tokens; ++t) {
        float sum = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(acc[t][0], acc[t][1]),
                                                       _mm512_add_ps(acc[t][2], acc[t][3])));
        for (int64_t j = i; j < count; ++j)
            sum += load(row, j) * xs[t][j];
        out[t] = sum;
    }
}

template <__m512 (*load16)(const std::byte*, int64_t), float (*load)(const std::byte*, int64_t)>
INFERLENS_AVX512 float avx512Dot(const std::byte* row, const float* x, int64_t count) {
    float out;
    avx512DotN<1, load16, load>(row, &x, count, &out);
    return out;
}

#endif

}  // namespace

RowDot4 floatRowDot4(DType dtype, CpuKernels kernels) {
#if defined(__x86_64__)
    if (kernels == CpuKernels::Avx512) {
        switch (dtype) {
            case DType::F32:
                return avx512DotN<kRowDotBatch, load16F32, loadF32>;
            case DType::F16:
                return avx512DotN<kRowDotBatch, load16F16, loadF16>;
            case DType::BF16:
                return avx512DotN<kRowDotBatch, load16Bf16, loadBf16>;
            default:
                return nullptr;
        }
    }
    if (kernels == CpuKernels::Avx2) {
        switch (dtype) {
            case DType::F32:
                return avx2DotN<kRowDotBatch, load8F32, loadF32>;
            case DType::F16:
                return avx2DotN<kRowDotBatch, load8F16, loadF16>;
            case DType::BF16:
                return avx2DotN<kRowDotBatch, load8Bf16, loadBf16>;
            default:
                return nullptr;
        }
    }
#endif
    switch (dtype) {
        case DType::F32:
            return portableDot4<loadF32>;
        case DType::F16:
            return portableDot4<loadF16>;
        case DType::BF16:
            return portableDot4<loadBf16>;
        default:
            return nullptr;
    }
}

RowDot floatRowDot(DType dtype, CpuKernels kernels) {
#if defined(__x86_64__)
    if (kernels == CpuKernels::Avx512) {
        switch (dtype) {
            case DType::F32:
                return avx512Dot<load16F32, loadF32>;
            case DType::F16:
                return avx512Dot<load16F16, loadF16>;
            case DType::BF16:
                return avx512Dot<load16Bf16, loadBf16>;
            default:
                return nullptr;
        }
    }
    if (kernels == CpuKernels::Avx2) {
        switch (dtype) {
            case DType::F32:
                return avx2Dot<load8F32, loadF32>;
            case DType::F16:
                return avx2Dot<load8F16, loadF16>;
            case DType::BF16:
                return avx2Dot<load8Bf16, loadBf16>;
            default:
                return nullptr;
        }
    }
#endif
    switch (dtype) {
        case DType::F32:
            return portableDot<loadF32>;
        case DType::F16:
            return portableDot<loadF16>;
        case DType::BF16:
            return portableDot<loadBf16>;
        default:
            return nullptr;
    }
}

bool isBlockType(DType dtype) {
    return dtype == DType::Q8_0 || dtype == DType::Q4_0;
}

}  // namespace inferlens
