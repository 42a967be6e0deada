// Random weights generated where they are used: benchmarks of full-size shapes (ChatGLM2-6B is
// 12.5 GB in F16) need no file. Values come from a counter-based hash of (seed, index), so a seed
// gives the same model on every GPU and launch configuration.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/kernels.h"

namespace inferlens::cuda {
namespace {

constexpr int kThreads = 256;

unsigned blocksFor(int64_t count) {
    return unsigned((count + kThreads - 1) / kThreads);
}

// SplitMix64's finaliser: a good 64-bit mix of the counter.
__device__ uint64_t mix(uint64_t seed, uint64_t index) {
    uint64_t z = seed + 0x9e3779b97f4a7c15ull * (index + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// Uniform in [−1, 1).
__device__ float uniform(uint64_t seed, uint64_t index) {
    return float(mix(seed, index) >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

__global__ void floatsKernel(DType dtype, void* values, int64_t count, float center,
                             float amplitude, uint64_t seed) {
    const int64_t index = int64_t(blockIdx.x) * kThreads + threadIdx.x;
    if (index >= count)
        return;
    const float value = center + amplitude * uniform(seed, uint64_t(index));
    if (dtype == DType::F16)
        static_cast<__half*>(values)[index] = __float2half(value);
    else if (dtype == DType::BF16)
        static_cast<__nv_bfloat16*>(values)[index] = __float2bfloat16(value);
    else
        static_cast<float*>(values)[index] = value;
}

__global__ void quantBytesKernel(uint8_t* bytes, int64_t count, uint64_t seed, bool signedQuants) {
    const int64_t index = int64_t(blockIdx.x) * kThreads + threadIdx.x;
    if (index >= count)
        return;
    const auto bits = uint8_t(mix(seed, uint64_t(index)));
    // Q8_0 quants stay within ±127 as a quantizer writes them.
    bytes[index] = signedQuants && bits == 0x80 ? 0x81 : bits;
}

__global__ void scalesKernel(uint16_t* scales, int64_t count, float scale) {
    const int64_t index = int64_t(blockIdx.x) * kThreads + threadIdx.x;
    if (index < count)
        scales[index] = __half_as_ushort(__float2half(scale));
}

}  // namespace

void fillRandomMatrix(const DeviceMatrix& w, float amplitude, uint64_t seed, cudaStream_t stream) {
    // The arena piece behind `w` is ours to fill; DeviceMatrix is read-only for the kernels.
    void* values = const_cast<void*>(w.values);
    if (w.dtype == DType::Q8_0 || w.dtype == DType::Q4_0) {
        const int64_t bytes = w.valueBytes(), blocks = w.scaleBytes() / 2;
        quantBytesKernel<<<blocksFor(bytes), kThreads, 0, stream>>>(
            static_cast<uint8_t*>(values), bytes, seed, w.dtype == DType::Q8_0);
        INFERLENS_CUDA_CHECK_LAUNCH();
        const float scale = amplitude / (w.dtype == DType::Q8_0 ? 127.0f : 8.0f);
        scalesKernel<<<blocksFor(blocks), kThreads, 0, stream>>>(const_cast<uint16_t*>(w.scales),
                                                                 blocks, scale);
    } else {
        const int64_t count = w.rows * w.columns;
        floatsKernel<<<blocksFor(count), kThreads, 0, stream>>>(w.dtype, values, count, 0.0f,
                                                                amplitude, seed);
    }
    INFERLENS_CUDA_CHECK_LAUNCH();
}

void fillRandomFloats(float* values, int64_t count, float center, float amplitude, uint64_t seed,
                      cudaStream_t stream) {
    floatsKernel<<<blocksFor(count), kThreads, 0, stream>>>(DType::F32, values, count, center,
                                                            amplitude, seed);
    INFERLENS_CUDA_CHECK_LAUNCH();
}

}  // namespace inferlens::cuda
