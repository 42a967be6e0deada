// Weights read into other forms: whole matrices to f16 for the prefill's cuBLAS products, rows of
// the token embedding to f32 activations, and activations rounded to the weights' float type.
// One thread per value: these run once per prefill chunk and are bound by memory traffic.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/device_formats.cuh"
#include "backend/cuda/kernels.h"

namespace inferlens::cuda {
namespace {

constexpr int kThreads = 256;

unsigned blocksFor(int64_t count) {
    return unsigned((count + kThreads - 1) / kThreads);
}

__global__ void dequantizeKernel(DeviceMatrix w, __half* out) {
    const int64_t index = int64_t(blockIdx.x) * kThreads + threadIdx.x;
    if (index >= w.rows * w.columns)
        return;
    out[index] = __float2half(decodeValue(w, index / w.columns, index % w.columns));
}

__global__ void embedKernel(DeviceMatrix table, const int32_t* tokens, int64_t count,
                            float* out) {
    const int64_t index = int64_t(blockIdx.x) * kThreads + threadIdx.x;
    if (index >= count * table.columns)
        return;
    const int64_t token = index / table.columns, column = index % table.columns;
    out[index] = decodeValue(table, tokens[token], column);
}

__global__ void toHalfKernel(const float* in, int64_t count, __half* out) {
    const int64_t index = int64_t(blockIdx.x) * kThreads + threadIdx.x;
    if (index < count)
        out[index] = __float2half(in[index]);
}

__global__ void toBf16Kernel(const float* in, int64_t count, __nv_bfloat16* out) {
    const int64_t index = int64_t(blockIdx.x) * kThreads + threadIdx.x;
    if (index < count)
        out[index] = __float2bfloat16(in[index]);
}

}  // namespace

void dequantizeToHalf(const DeviceMatrix& w, uint16_t* out, cudaStream_t stream) {
    dequantizeKernel<<<blocksFor(w.rows * w.columns), kThreads, 0, stream>>>(
        w, reinterpret_cast<__half*>(out));
    INFERLENS_CUDA_CHECK_LAUNCH();
}

void embedRows(const DeviceMatrix& table, const int32_t* tokens, int64_t count, float* out,
               cudaStream_t stream) {
    embedKernel<<<blocksFor(count * table.columns), kThreads, 0, stream>>>(table, tokens, count,
                                                                           out);
    INFERLENS_CUDA_CHECK_LAUNCH();
}

void convertActivations(const float* in, int64_t count, DType dtype, void* out,
                        cudaStream_t stream) {
    if (dtype == DType::BF16)
        toBf16Kernel<<<blocksFor(count), kThreads, 0, stream>>>(
            in, count, static_cast<__nv_bfloat16*>(out));
    else
        toHalfKernel<<<blocksFor(count), kThreads, 0, stream>>>(in, count,
                                                                static_cast<__half*>(out));
    INFERLENS_CUDA_CHECK_LAUNCH();
}

}  // namespace inferlens::cuda
