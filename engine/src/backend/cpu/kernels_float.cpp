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

template <__m256 (*load8)(const std::byte*, int64_t), float (*load)(const std::byte*, int64_t)>
INFERLENS_AVX2 float avx2Dot(const std::byte* row, const float* x, int64_t count) {
    __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(),
                     _mm256_setzero_ps()};
    int64_t i = 0;
    for (; i + 32 <= count; i += 32)
        for (int k = 0; k < 4; ++k)
            acc[k] = _mm256_fmadd_ps(load8(row, i + 8 * k), _mm256_loadu_ps(x + i + 8 * k), acc[k]);
    for (; i + 8 <= count; i += 8)
        acc[0] = _mm256_fmadd_ps(load8(row, i), _mm256_loadu_ps(x + i), acc[0]);
    float sum = simd::horizontalSum(
        _mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3])));
    for (; i < count; ++i)
        sum += load(row, i) * x[i];
    return sum;
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

template <__m512 (*load16)(const std::byte*, int64_t), float (*load)(const std::byte*, int64_t)>
INFERLENS_AVX512 float avx512Dot(const std::byte* row, const float* x, int64_t count) {
    __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(),
                     _mm512_setzero_ps()};
    int64_t i = 0;
    for (; i + 64 <= count; i += 64)
        for (int k = 0; k < 4; ++k)
            acc[k] =
                _mm512_fmadd_ps(load16(row, i + 16 * k), _mm512_loadu_ps(x + i + 16 * k), acc[k]);
    for (; i + 16 <= count; i += 16)
        acc[0] = _mm512_fmadd_ps(load16(row, i), _mm512_loadu_ps(x + i), acc[0]);
    float sum = _mm512_reduce_add_ps(
        _mm512_add_ps(_mm512_add_ps(acc[0], acc[1]), _mm512_add_ps(acc[2], acc[3])));
    for (; i < count; ++i)
        sum += load(row, i) * x[i];
    return sum;
}

#endif

}  // namespace

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
