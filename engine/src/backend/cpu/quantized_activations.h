#pragma once
// An activation vector quantized to 8 bits in blocks of 32, so that block-quantized weights
// multiply it with integer dot products (as llama.cpp does). Each element moves by at most half its
// block's step, max|x| / 254: the error the kernel tests allow for on top of f32 rounding.

#include <cstdint>
#include <vector>

namespace inferlens {

struct QuantizedActivations {
    std::vector<float> scales;          // per block: max|x| / 127 (0 for a block of zeros)
    std::vector<int8_t> values;         // per element: round(x / scale)
    std::vector<int32_t> nibbleBiases;  // per block: −8 · Σ values, the bias of Q4_0's nibbles
                                        // (packed_legacy_quants.cpp: the others' are multiples)
    std::vector<int32_t> halfSumBiases;  // per 16 values: −32 · their Σ, the bias of packed Q6_K's
                                         // unsigned values (q = value + 32), per scale
    std::vector<float> scaledSums;  // per block: scale · Σ values (the sum the offsets of
                                    // Q4_0, Q4_1, Q4_K… multiply)

    // `count` must be a whole number of blocks.
    void quantize(const float* x, int64_t count);
    int64_t blocks() const { return int64_t(scales.size()); }
};

}  // namespace inferlens
