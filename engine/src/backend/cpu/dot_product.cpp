#include "backend/cpu/dot_product.h"

#include "core/dtype_codec.h"

namespace inferlens {
namespace {

template <float (*load)(const std::byte*, int64_t)>
float dot(const std::byte* row, const float* x, int64_t count) {
    float sum = 0.0f;
    for (int64_t i = 0; i < count; ++i)
        sum += load(row, i) * x[i];
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
    }
    return 0.0f;
}

}  // namespace inferlens
