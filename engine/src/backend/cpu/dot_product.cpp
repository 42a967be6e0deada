#include "backend/cpu/dot_product.h"

#include "core/dtype_codec.h"
#include "core/quant_blocks.h"

namespace inferlens {
namespace {

template <float (*load)(const std::byte*, int64_t)>
float dot(const std::byte* row, const float* x, int64_t count) {
    float sum = 0.0f;
    for (int64_t i = 0; i < count; ++i)
        sum += load(row, i) * x[i];
    return sum;
}

// Block types: the block's integers times x first, then one multiplication by its scale, which is
// d · Σ q_j x_j = Σ (d q_j) x_j up to f32 rounding. A reference kernel: SIMD ones are checked
// against it.
template <int (*multiple)(const std::byte*, int64_t), int64_t blockBytes>
float dotBlocks(const std::byte* row, const float* x, int64_t count) {
    float sum = 0.0f;
    for (int64_t first = 0; first < count; first += kQuantBlockElements) {
        const std::byte* block = row + first / kQuantBlockElements * blockBytes;
        float blockSum = 0.0f;
        for (int64_t j = 0; j < kQuantBlockElements; ++j)
            blockSum += float(multiple(block, j)) * x[first + j];
        sum += blockScale(block) * blockSum;
    }
    return sum;
}

}  // namespace

float dotRow(DType dtype, const std::byte* row, const float* x, int64_t count) {
    switch (dtype) {
        case DType::F32:
            return dot<loadF32>(row, x, count);
        case DType::F16:
            return dot<loadF16>(row, x, count);
        case DType::BF16:
            return dot<loadBf16>(row, x, count);
        case DType::Q8_0:
            return dotBlocks<q8_0Multiple, kQ8_0BlockBytes>(row, x, count);
        case DType::Q4_0:
            return dotBlocks<q4_0Multiple, kQ4_0BlockBytes>(row, x, count);
    }
    return 0.0f;
}

}  // namespace inferlens
