#pragma once
// Decoding weight values to f32 and encoding f32 values into a weight type, element by element.
// The per-type loaders are inline so that kernels (backend/cpu/kernels_float.cpp) can use them
// inside their loops without a per-element switch.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "core/dtype.h"
#include "core/half.h"

namespace inferlens {

inline float loadF32(const std::byte* row, int64_t i) {
    float value;
    std::memcpy(&value, row + 4 * i, 4);
    return value;
}

inline uint16_t loadU16(const std::byte* row, int64_t i) {
    uint16_t value;
    std::memcpy(&value, row + 2 * i, 2);
    return value;
}

inline float loadF16(const std::byte* row, int64_t i) {
    return halfToFloat(loadU16(row, i));
}
inline float loadBf16(const std::byte* row, int64_t i) {
    return bf16ToFloat(loadU16(row, i));
}

// out.size() values of a row stored as `dtype`, as f32 (for block types a whole number of blocks).
void decodeRow(DType dtype, const std::byte* row, std::span<float> out);
// values rounded to `dtype` (nearest, ties to even) and stored at `row`; block types are quantized
// block by block (core/block_formats.h). Consecutive rows may be passed as one.
void encodeRow(DType dtype, std::span<const float> values, std::byte* row);

}  // namespace inferlens
