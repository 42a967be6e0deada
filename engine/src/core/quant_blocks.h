#pragma once
// llama.cpp's Q8_0 and Q4_0 blocks, byte for byte, so that GGUF files quantized by llama.cpp load
// here and files quantized here load there (ggml-common.h: block_q8_0, block_q4_0):
//   Q8_0: 34 bytes = fp16 scale d, then 32 × int8 q;   value j = d · q_j
//   Q4_0: 18 bytes = fp16 scale d, then 16 bytes;      byte j holds element j in its low nibble and
//         element j + 16 in its high nibble;           value j = d · (q_j − 8)
// The accessors are inline so that the dot products (backend/cpu/kernels_q8_0.cpp, kernels_q4_0.cpp) read blocks with
// the same definitions as the decoder, inside their loops.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "core/half.h"

namespace inferlens {

constexpr int64_t kQuantBlockElements = 32;
constexpr int64_t kQ8_0BlockBytes = 2 + 32;
constexpr int64_t kQ4_0BlockBytes = 2 + 16;

inline float blockScale(const std::byte* block) {
    uint16_t bits;
    std::memcpy(&bits, block, 2);
    return halfToFloat(bits);
}

// The integer that element j of a block is the scale's multiple of.
inline int q8_0Multiple(const std::byte* block, int64_t j) {
    return std::bit_cast<int8_t>(block[2 + j]);
}
inline int q4_0Multiple(const std::byte* block, int64_t j) {
    const auto byte = uint8_t(block[2 + j % 16]);
    return (j < 16 ? byte & 0x0f : byte >> 4) - 8;
}

// llama.cpp's reference quantizers (quantize_row_q8_0_ref, quantize_row_q4_0_ref), reproduced
// operation for operation so that the same f32 values give the same bytes. `values.size()` must be
// a whole number of blocks; non-finite values are refused (an Error), since no scale can hold them.
void quantizeQ8_0(std::span<const float> values, std::byte* blocks);
void quantizeQ4_0(std::span<const float> values, std::byte* blocks);

// `out.size()` values (a whole number of blocks) from consecutive blocks.
void dequantizeQ8_0(const std::byte* blocks, std::span<float> out);
void dequantizeQ4_0(const std::byte* blocks, std::span<float> out);

}  // namespace inferlens
