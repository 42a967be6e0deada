#include "backend/cuda/device_products.h"

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/kernels.h"

namespace inferlens::cuda {

int64_t DeviceProducts::workBytes(const ProductLimits& limits) {
    int64_t bytes = 0;
    if (limits.reducedPrecision)
        bytes += alignedBytes(limits.maxTokens * limits.maxColumns * 2) +
                 alignedBytes(limits.maxTokens * 4);
    bytes += alignedBytes(limits.largestBlockMatrix * 2);
    return bytes;
}

DeviceProducts::DeviceProducts(cudaStream_t stream, const ProductLimits& limits, DeviceArena& work)
    : stream_(stream) {
    if (limits.reducedPrecision) {
        activations_ = work.take<uint16_t>(limits.maxTokens * limits.maxColumns);
        rowScales_ = work.take<float>(limits.maxTokens);
    }
    if (limits.largestBlockMatrix > 0)
        dequantized_ = work.take<uint16_t>(limits.largestBlockMatrix);
    cublasHandle_t handle = nullptr;
    INFERLENS_CUDA_CHECK(cublasCreate(&handle));
    handle_.reset(handle);
    INFERLENS_CUDA_CHECK(cublasSetStream(handle, stream_));
}

void DeviceProducts::HandleDeleter::operator()(cublasHandle_t handle) const {
    cublasDestroy(handle);
}

void DeviceProducts::multiply(const DeviceMatrix& w, const float* x, int64_t tokens, float* y) {
    if (tokens == 1) {
        gemv(w, x, y, stream_);
        return;
    }
    // Row-major Y [tokens, rows] is column-major Yᵀ [rows, tokens] = W · Xᵀ, where row-major W
    // [rows, columns] is column-major Wᵀ and row-major X is column-major Xᵀ: one GEMM with W
    // transposed.
    const void* a = w.values;
    const void* b = x;
    cudaDataType type = CUDA_R_32F;
    if (w.dtype != DType::F32) {
        const bool bf16 = w.dtype == DType::BF16;
        type = bf16 ? CUDA_R_16BF : CUDA_R_16F;
        if (w.dtype == DType::Q8_0 || w.dtype == DType::Q4_0) {
            dequantizeToHalf(w, dequantized_, stream_);
            a = dequantized_;
        }
        convertActivations(x, tokens, w.columns, bf16 ? DType::BF16 : DType::F16, activations_,
                           rowScales_, stream_);
        b = activations_;
    }
    const float alpha = 1.0f, beta = 0.0f;
    const int rows = int(w.rows), columns = int(w.columns);
    INFERLENS_CUDA_CHECK(cublasGemmEx(handle_.get(), CUBLAS_OP_T, CUBLAS_OP_N, rows, int(tokens),
                                      columns, &alpha, a, type, columns, b, type, columns, &beta, y,
                                      CUDA_R_32F, rows, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    if (type == CUDA_R_16F)
        scaleRows(y, tokens, w.rows, rowScales_, stream_);
}

}  // namespace inferlens::cuda
