#pragma once
// The block-quantized weight types (Q8_0 … Q6_K) through one interface: how many 32-value
// sub-blocks a block holds, how to decode sub-block s (core/quant_blocks.h's SubBlock) and how to
// quantize f32 values into blocks. Dequantization, the portable kernels and the tests work from
// this table; adding a format is a row here plus its decoder and quantizer.

#include <cstddef>
#include <cstdint>
#include <span>

#include "core/dtype.h"
#include "core/quant_blocks.h"

namespace inferlens {

struct BlockFormat {
    int64_t subBlocks;  // 1 for the 32-value formats, 8 for the 256-value K formats
    void (*decode)(const std::byte* block, int subBlock, SubBlock& out);
    void (*quantize)(std::span<const float> values, std::byte* blocks);
};

// nullptr for the float types.
const BlockFormat* blockFormat(DType dtype);

// `out.size()` values (a whole number of blocks) from consecutive blocks of `dtype`.
void dequantize(DType dtype, const std::byte* blocks, std::span<float> out);

}  // namespace inferlens
