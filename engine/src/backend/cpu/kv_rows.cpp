#include "backend/cpu/kv_rows.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "backend/cpu/cpu_features.h"
#include "backend/cpu/simd_x86.h"
#include "core/dtype_codec.h"
#include "core/error.h"

namespace inferlens {
namespace {

// An int8 head: its step (f32), then headDim signed numbers.
constexpr int64_t kScaleBytes = int64_t(sizeof(float));

int64_t headBytes(KvType type, int64_t headDim) {
    switch (type) {
        case KvType::F32:
            return 4 * headDim;
        case KvType::F16:
            return 2 * headDim;
        case KvType::Int8:
            return kScaleBytes + headDim;
    }
    return 0;
}

void encodeHead(KvType type, const float* in, int64_t headDim, std::byte* out) {
    switch (type) {
        case KvType::F32:
            encodeRow(DType::F32, {in, size_t(headDim)}, out);
            return;
        case KvType::F16:
            encodeRow(DType::F16, {in, size_t(headDim)}, out);
            return;
        case KvType::Int8: {
            float largest = 0;
            bool nan = false;
            for (int64_t d = 0; d < headDim; ++d) {
                nan |= std::isnan(in[d]);
                largest = std::max(largest, std::fabs(in[d]));
            }
            // A NaN spoils its whole head (as it would every score it enters), an infinity too
            // (0 · ∞); a head too small for 1 / step to be finite is stored as zeros.
            const float step = nan ? std::numeric_limits<float>::quiet_NaN() : largest / 127.0f;
            std::memcpy(out, &step, sizeof step);
            const float inverse = step > 0 && std::isfinite(1.0f / step) ? 1.0f / step : 0.0f;
            auto* numbers = reinterpret_cast<int8_t*>(out + kScaleBytes);
            for (int64_t d = 0; d < headDim; ++d) {
                const float scaled = in[d] * inverse;  // not finite only beside a NaN or ∞
                numbers[d] = std::isfinite(scaled)
                                 ? int8_t(std::clamp(std::lround(scaled), -127L, 127L))
                                 : 0;
            }
            return;
        }
    }
}

#if defined(__x86_64__)
// Eight numbers at a time; the same values as the portable loops below (both conversions exact,
// the product one rounding).
INFERLENS_AVX2 void decodeHalvesAvx2(const std::byte* in, int64_t count, float* out) {
    int64_t d = 0;
    for (; d + 8 <= count; d += 8)
        _mm256_storeu_ps(
            out + d,
            _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 2 * d))));
    for (; d < count; ++d)
        out[d] = loadF16(in, d);
}

INFERLENS_AVX2 void decodeBytesAvx2(const int8_t* numbers, int64_t count, float step, float* out) {
    const __m256 scale = _mm256_set1_ps(step);
    int64_t d = 0;
    for (; d + 8 <= count; d += 8) {
        const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(numbers + d));
        _mm256_storeu_ps(out + d,
                         _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(bytes)), scale));
    }
    for (; d < count; ++d)
        out[d] = float(numbers[d]) * step;
}
#endif

bool vectorDecoding() {
#if defined(__x86_64__)
    static const bool avx2 = cpuKernels() != CpuKernels::Portable;
    return avx2;
#else
    return false;
#endif
}

void decodeHeadAt(KvType type, const std::byte* in, int64_t headDim, float* out) {
    switch (type) {
        case KvType::F32:
            decodeRow(DType::F32, in, {out, size_t(headDim)});
            return;
        case KvType::F16:
#if defined(__x86_64__)
            if (vectorDecoding())
                return decodeHalvesAvx2(in, headDim, out);
#endif
            decodeRow(DType::F16, in, {out, size_t(headDim)});
            return;
        case KvType::Int8: {
            float step;
            std::memcpy(&step, in, sizeof step);
            const auto* numbers = reinterpret_cast<const int8_t*>(in + kScaleBytes);
#if defined(__x86_64__)
            if (vectorDecoding())
                return decodeBytesAvx2(numbers, headDim, step, out);
#endif
            for (int64_t d = 0; d < headDim; ++d)
                out[d] = float(numbers[d]) * step;
            return;
        }
    }
}

}  // namespace

KvType parseKvType(const std::string& name) {
    if (name == "f32")
        return KvType::F32;
    if (name == "f16")
        return KvType::F16;
    if (name == "int8")
        return KvType::Int8;
    throw Error("unknown KV cache type '" + name + "' (f32, f16 or int8)");
}

const char* kvTypeName(KvType type) {
    switch (type) {
        case KvType::F32:
            return "f32";
        case KvType::F16:
            return "f16";
        case KvType::Int8:
            return "int8";
    }
    return "?";
}

int64_t kvRowBytes(KvType type, int64_t heads, int64_t headDim) {
    return heads * headBytes(type, headDim);
}

void encodeKvRow(KvType type, std::span<const float> row, int64_t headDim, std::byte* out) {
    const auto heads = int64_t(row.size()) / headDim;
    const int64_t bytes = headBytes(type, headDim);
    for (int64_t h = 0; h < heads; ++h)
        encodeHead(type, row.data() + h * headDim, headDim, out + h * bytes);
}

KvRows KvRows::floats(const float* rows, int64_t heads, int64_t headDim, int64_t rowWidth) {
    return {KvType::F32, reinterpret_cast<const std::byte*>(rows), heads, headDim,
            rowWidth * int64_t(sizeof(float))};
}

const float* KvRows::floatData() const {
    return type == KvType::F32 ? reinterpret_cast<const float*>(data) : nullptr;
}

void KvRows::decodeHead(int64_t first, int64_t count, int64_t head, float* out) const {
    const int64_t bytes = headBytes(type, headDim);
    for (int64_t i = 0; i < count; ++i)
        decodeHeadAt(type, data + (first + i) * rowBytes + head * bytes, headDim,
                     out + i * headDim);
}

void KvRows::decodeRows(int64_t first, int64_t count, float* out) const {
    const int64_t bytes = headBytes(type, headDim);
    for (int64_t i = 0; i < count; ++i)
        for (int64_t h = 0; h < heads; ++h)
            decodeHeadAt(type, data + (first + i) * rowBytes + h * bytes, headDim,
                         out + (i * heads + h) * headDim);
}

}  // namespace inferlens
