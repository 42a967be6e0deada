#include "backend/cuda/device_matrix.h"

namespace inferlens::cuda {

bool isDeviceDType(DType dtype) {
    switch (dtype) {
        case DType::F32:
        case DType::F16:
        case DType::BF16:
        case DType::Q8_0:
        case DType::Q4_0:
            return true;
        default:
            return false;
    }
}

DType deviceDType(DType dtype) {
    return isDeviceDType(dtype) ? dtype : DType::F16;
}

int64_t DeviceMatrix::valueBytes() const {
    const int64_t count = rows * columns;
    switch (dtype) {
        case DType::F32:
            return count * 4;
        case DType::Q8_0:
            return count;
        case DType::Q4_0:
            return count / 2;
        default:  // F16, BF16
            return count * 2;
    }
}

int64_t DeviceMatrix::scaleBytes() const {
    const bool blocks = dtype == DType::Q8_0 || dtype == DType::Q4_0;
    return blocks ? rows * (columns / kQuantBlock) * 2 : 0;
}

}  // namespace inferlens::cuda
