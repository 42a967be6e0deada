#pragma once
// A weight matrix in GPU memory, in one of the layouts the kernels read. F32, F16 and BF16 are
// stored as in the file, [rows, columns] row-major. Q8_0 and Q4_0 stay quantized but with the
// file's 34- and 18-byte blocks split into two arrays, so that every 32 values start on a 16-byte
// boundary for vector loads: `values` holds the quants ([rows, columns] int8, or [rows, columns/2]
// bytes of Q4_0 nibbles in the file's order) and `scales` the fp16 scale of each 32 values
// ([rows, columns/32]). Other block types are converted to F16 on upload (device_weights.h).

#include <cstdint>

#include "core/dtype.h"

namespace inferlens::cuda {

struct DeviceMatrix {
    DType dtype = DType::F32;
    int64_t rows = 0, columns = 0;
    const void* values = nullptr;
    const uint16_t* scales = nullptr;  // Q8_0 and Q4_0 only

    int64_t valueBytes() const;
    int64_t scaleBytes() const;
};

// The dtypes the GPU kernels read directly.
bool isDeviceDType(DType dtype);
// What a tensor of `dtype` is stored as on the GPU: itself, or F16.
DType deviceDType(DType dtype);

constexpr int64_t kQuantBlock = 32;  // values per Q8_0/Q4_0 block

}  // namespace inferlens::cuda
