#pragma once
// y = W · x on the GPU for the tokens of a step: the GEMV kernels for one token (a decode step,
// bound by reading the weights once) and cuBLAS for more (a prefill, bound by arithmetic), always
// accumulating in f32. cuBLAS takes F32, F16 and BF16 weights as they are, with the activations
// rounded to the weights' type (F16 rows scaled into its range where needed); Q8_0/Q4_0 matrices
// are dequantized to F16 first, one matrix at a time, into a buffer sized for the largest.

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <memory>

#include "backend/cuda/device_matrix.h"
#include "backend/cuda/device_memory.h"

namespace inferlens::cuda {

struct ProductLimits {
    int64_t maxTokens = 0;           // rows of x
    int64_t maxColumns = 0;          // the widest matrix
    int64_t largestBlockMatrix = 0;  // values of the largest Q8_0/Q4_0 matrix; 0 if none
    bool reducedPrecision = false;   // any matrix not in F32
};

class DeviceProducts {
  public:
    static int64_t workBytes(const ProductLimits& limits);
    // Takes its buffers from `work`.
    DeviceProducts(cudaStream_t stream, const ProductLimits& limits, DeviceArena& work);
    DeviceProducts(const DeviceProducts&) = delete;
    DeviceProducts& operator=(const DeviceProducts&) = delete;

    // y [tokens, rows] = x [tokens, columns] · Wᵀ
    void multiply(const DeviceMatrix& w, const float* x, int64_t tokens, float* y);

  private:
    cudaStream_t stream_;
    struct HandleDeleter {
        void operator()(cublasHandle_t handle) const;
    };
    std::unique_ptr<cublasContext, HandleDeleter> handle_;
    uint16_t* activations_ = nullptr;  // x rounded to F16/BF16
    float* rowScales_ = nullptr;       // what F16 rows were divided by (kernels.h)
    uint16_t* dequantized_ = nullptr;  // a block matrix as F16
};

}  // namespace inferlens::cuda
