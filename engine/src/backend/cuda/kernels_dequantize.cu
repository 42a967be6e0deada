// Weights read into other forms: whole matrices to f16 for the prefill's cuBLAS products, rows of
// the token embedding to f32 activations, and activations rounded to the weights' float type (and
// the product's rows scaled back). Mostly one thread per value: these run once per prefill chunk
// and are bound by memory traffic.

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

__global__ void embedKernel(DeviceMatrix table, const int32_t* tokens, int64_t count, float* out) {
    const int64_t index = int64_t(blockIdx.x) * kThreads + threadIdx.x;
    if (index >= count * table.columns)
        return;
    const int64_t token = index / table.columns, column = index % table.columns;
    out[index] = decodeValue(table, tokens[token], column);
}

// The largest magnitude F16 inputs are allowed before their row is scaled down.
constexpr float kHalfSafe = 16384.0f;

// One block per row: the row's largest magnitude, then every value divided by the row's scale.
__global__ void toHalfKernel(const float* in, int64_t columns, __half* out, float* rowScales) {
    const float* row = in + int64_t(blockIdx.x) * columns;
    float largest = 0.0f;
    for (int64_t i = threadIdx.x; i < columns; i += kThreads)
        largest = fmaxf(largest, fabsf(row[i]));
    __shared__ float warpMaxima[kThreads / 32];
    largest = warpMax(largest);
    if (threadIdx.x % 32 == 0)
        warpMaxima[threadIdx.x / 32] = largest;
    __syncthreads();
    for (int w = 0; w < kThreads / 32; ++w)
        largest = fmaxf(largest, warpMaxima[w]);
    const float scale = largest > kHalfSafe ? exp2f(ceilf(log2f(largest / kHalfSafe))) : 1.0f;
    const float inverse = 1.0f / scale;  // a power of two: exact
    for (int64_t i = threadIdx.x; i < columns; i += kThreads)
        out[int64_t(blockIdx.x) * columns + i] = __float2half(row[i] * inverse);
    if (threadIdx.x == 0)
        rowScales[blockIdx.x] = scale;
}

__global__ void toBf16Kernel(const float* in, int64_t count, __nv_bfloat16* out) {
    const int64_t index = int64_t(blockIdx.x) * kThreads + threadIdx.x;
    if (index < count)
        out[index] = __float2bfloat16(in[index]);
}

__global__ void scaleRowsKernel(float* y, int64_t tokens, int64_t width, const float* rowScales) {
    const int64_t index = int64_t(blockIdx.x) * kThreads + threadIdx.x;
    if (index < tokens * width)
        y[index] *= rowScales[index / width];
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

void convertActivations(const float* in, int64_t tokens, int64_t columns, DType dtype, void* out,
                        float* rowScales, cudaStream_t stream) {
    if (dtype == DType::BF16)
        toBf16Kernel<<<blocksFor(tokens * columns), kThreads, 0, stream>>>(
            in, tokens * columns, static_cast<__nv_bfloat16*>(out));
    else
        toHalfKernel<<<unsigned(tokens), kThreads, 0, stream>>>(
            in, columns, static_cast<__half*>(out), rowScales);
    INFERLENS_CUDA_CHECK_LAUNCH();
}

void scaleRows(float* y, int64_t tokens, int64_t width, const float* rowScales,
               cudaStream_t stream) {
    scaleRowsKernel<<<blocksFor(tokens * width), kThreads, 0, stream>>>(y, tokens, width,
                                                                        rowScales);
    INFERLENS_CUDA_CHECK_LAUNCH();
}

}  // namespace inferlens::cuda
