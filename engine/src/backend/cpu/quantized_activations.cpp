#include "backend/cpu/quantized_activations.h"

#include <cmath>

#include "core/quant_blocks.h"

namespace inferlens {

void QuantizedActivations::quantize(const float* x, int64_t count) {
    const int64_t blockCount = count / kQuantBlockElements;
    scales.resize(size_t(blockCount));
    values.resize(size_t(count));
    sums.resize(size_t(blockCount));
    scaledSums.resize(size_t(blockCount));
    for (int64_t b = 0; b < blockCount; ++b) {
        const float* block = x + b * kQuantBlockElements;
        float largest = 0.0f;
        for (int64_t j = 0; j < kQuantBlockElements; ++j)
            largest = std::max(largest, std::fabs(block[j]));
        const float scale = largest / 127.0f;
        const float inverse = scale != 0.0f ? 1.0f / scale : 0.0f;
        int32_t sum = 0;
        for (int64_t j = 0; j < kQuantBlockElements; ++j) {
            const auto q = int8_t(std::lrintf(block[j] * inverse));
            values[size_t(b * kQuantBlockElements + j)] = q;
            sum += q;
        }
        scales[size_t(b)] = scale;
        sums[size_t(b)] = sum;
        scaledSums[size_t(b)] = scale * float(sum);
    }
}

}  // namespace inferlens
