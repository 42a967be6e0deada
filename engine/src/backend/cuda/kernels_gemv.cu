// Products of one token (a decode step): y = W · x. Decode is bound by reading the weights, so
// each warp streams whole rows with 16-byte loads, its lanes taking interleaved chunks (a warp
// reads 512 consecutive bytes at a time), and sums across lanes with shuffles. The activations
// are small and stay in L1/L2.

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/device_formats.cuh"
#include "backend/cuda/kernels.h"

namespace inferlens::cuda {
namespace {

constexpr int kWarpsPerBlock = 4;

template <DType kDType>
__global__ void gemvChunks(DeviceMatrix w, const float* x, float* y) {
    const int lane = int(threadIdx.x) % 32;
    const int64_t row = int64_t(blockIdx.x) * kWarpsPerBlock + int64_t(threadIdx.x) / 32;
    if (row >= w.rows)
        return;
    using Format = Chunk<kDType>;
    const int64_t chunks = w.columns / Format::kValues;
    float sum = 0.0f;
    for (int64_t chunk = lane; chunk < chunks; chunk += 32)
        sum += Format::dot(w, row, chunk, x + chunk * Format::kValues);
    sum = warpSum(sum);
    if (lane == 0)
        y[row] = sum;
}

// Float rows whose width is not a multiple of 8 (small test models): one value per lane.
__global__ void gemvValues(DeviceMatrix w, const float* x, float* y) {
    const int lane = int(threadIdx.x) % 32;
    const int64_t row = int64_t(blockIdx.x) * kWarpsPerBlock + int64_t(threadIdx.x) / 32;
    if (row >= w.rows)
        return;
    float sum = 0.0f;
    for (int64_t column = lane; column < w.columns; column += 32)
        sum += decodeValue(w, row, column) * x[column];
    sum = warpSum(sum);
    if (lane == 0)
        y[row] = sum;
}

using GemvKernel = void (*)(DeviceMatrix, const float*, float*);

GemvKernel gemvKernelFor(const DeviceMatrix& w) {
    const bool floatChunks = w.columns % 8 == 0;
    switch (w.dtype) {
        case DType::Q8_0:
            return gemvChunks<DType::Q8_0>;
        case DType::Q4_0:
            return gemvChunks<DType::Q4_0>;
        case DType::F16:
            return floatChunks ? gemvChunks<DType::F16> : gemvValues;
        case DType::BF16:
            return floatChunks ? gemvChunks<DType::BF16> : gemvValues;
        default:
            return floatChunks ? gemvChunks<DType::F32> : gemvValues;
    }
}

}  // namespace

void gemv(const DeviceMatrix& w, const float* x, float* y, cudaStream_t stream) {
    const auto blocks = unsigned((w.rows + kWarpsPerBlock - 1) / kWarpsPerBlock);
    gemvKernelFor(w)<<<blocks, 32 * kWarpsPerBlock, 0, stream>>>(w, x, y);
    INFERLENS_CUDA_CHECK_LAUNCH();
}

}  // namespace inferlens::cuda
