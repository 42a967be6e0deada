// Per-token and per-element operations of a decoder layer: RMSNorm, biases, residual additions,
// SwiGLU and GeGLU, scaling and soft-capping, RoPE and the copy of a step's K/V rows into the
// cache.

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/device_formats.cuh"
#include "backend/cuda/kernels.h"

namespace inferlens::cuda {
namespace {

constexpr int kThreads = 256;

unsigned blocksFor(int64_t count) {
    return unsigned((count + kThreads - 1) / kThreads);
}

// One block per token: the sum of squares is reduced across the block, then every thread scales
// its share of the row.
__global__ void rmsNormKernel(const float* x, const float* weight, int64_t width, float eps,
                              float weightOffset, float* out) {
    const float* row = x + int64_t(blockIdx.x) * width;
    float* result = out + int64_t(blockIdx.x) * width;
    float sum = 0.0f;
    for (int64_t i = threadIdx.x; i < width; i += kThreads)
        sum += row[i] * row[i];
    __shared__ float warpSums[kThreads / 32];
    sum = warpSum(sum);
    if (threadIdx.x % 32 == 0)
        warpSums[threadIdx.x / 32] = sum;
    __syncthreads();
    if (threadIdx.x < 32) {
        sum = threadIdx.x < kThreads / 32 ? warpSums[threadIdx.x] : 0.0f;
        sum = warpSum(sum);
        if (threadIdx.x == 0)
            warpSums[0] = sum;
    }
    __syncthreads();
    const float scale = rsqrtf(warpSums[0] / float(width) + eps);
    // Each thread writes only the values it read, after the reduction: out may be x.
    for (int64_t i = threadIdx.x; i < width; i += kThreads)
        result[i] = (weightOffset + weight[i]) * (row[i] * scale);
}

__global__ void addBiasKernel(const float* bias, int64_t tokens, int64_t width, float* y) {
    const int64_t index = int64_t(blockIdx.x) * kThreads + threadIdx.x;
    if (index < tokens * width)
        y[index] += bias[index % width];
}

__global__ void addKernel(float* x, const float* y, int64_t count) {
    const int64_t index = int64_t(blockIdx.x) * kThreads + threadIdx.x;
    if (index < count)
        x[index] += y[index];
}

__global__ void swiGluKernel(float* gate, const float* up, int64_t count) {
    const int64_t index = int64_t(blockIdx.x) * kThreads + threadIdx.x;
    if (index < count) {
        const float g = gate[index];
        gate[index] = g / (1.0f + expf(-g)) * up[index];
    }
}

__global__ void geluTanhGluKernel(float* gate, const float* up, int64_t count) {
    const int64_t index = int64_t(blockIdx.x) * kThreads + threadIdx.x;
    if (index < count) {
        const float g = gate[index];
        gate[index] = 0.5f * g * (1.0f + tanhf(0.7978845608028654f * (g + 0.044715f * g * g * g))) *
                      up[index];
    }
}

__global__ void scaleKernel(float* x, int64_t count, float factor) {
    const int64_t index = int64_t(blockIdx.x) * kThreads + threadIdx.x;
    if (index < count)
        x[index] *= factor;
}

__global__ void softcapKernel(float* x, int64_t count, float cap) {
    const int64_t index = int64_t(blockIdx.x) * kThreads + threadIdx.x;
    if (index < count)
        x[index] = cap * tanhf(x[index] / cap);
}

// One thread per rotated pair. The angle is computed in double, as on the CPU, so that long
// positions do not lose the small frequencies' precision.
__global__ void ropeKernel(float* rows, int64_t tokens, RopeShape shape,
                           const int64_t* firstPosition, int64_t tokenOffset) {
    const int64_t pairs = shape.ropeDims / 2;
    const int64_t index = int64_t(blockIdx.x) * kThreads + threadIdx.x;
    if (index >= tokens * shape.heads * pairs)
        return;
    const int64_t pair = index % pairs;
    const int64_t head = (index / pairs) % shape.heads;
    const int64_t token = index / (pairs * shape.heads);
    const int64_t position = *firstPosition + tokenOffset + token;
    const double frequency = shape.frequencies != nullptr
                                 ? shape.frequencies[pair]
                                 : pow(shape.base, -2.0 * double(pair) / double(shape.ropeDims));
    const double angle = double(position) * frequency;
    double sine, cosine;
    sincos(angle, &sine, &cosine);
    float* h = rows + (token * shape.heads + head) * shape.headDim;
    // Adjacent: (x[2i], x[2i+1]); rotate-half: (x[i], x[i + ropeDims/2]).
    const bool adjacent = shape.pairing == RopePairing::Adjacent;
    float& a = adjacent ? h[2 * pair] : h[pair];
    float& b = adjacent ? h[2 * pair + 1] : h[pair + pairs];
    const float first = a, second = b;
    const auto c = float(cosine), s = float(sine);
    a = first * c - second * s;
    b = first * s + second * c;
}

__global__ void storeKvKernel(const float* key, const float* value, int64_t tokens, int64_t width,
                              float* cacheKeys, float* cacheValues, const int64_t* firstPosition,
                              int64_t tokenOffset) {
    const int64_t index = int64_t(blockIdx.x) * kThreads + threadIdx.x;
    if (index >= tokens * width)
        return;
    const int64_t token = index / width, column = index % width;
    const int64_t row = *firstPosition + tokenOffset + token;
    cacheKeys[row * width + column] = key[index];
    cacheValues[row * width + column] = value[index];
}

}  // namespace

void rmsNorm(const float* x, const float* weight, int64_t tokens, int64_t width, double eps,
             float* out, cudaStream_t stream, double weightOffset) {
    rmsNormKernel<<<unsigned(tokens), kThreads, 0, stream>>>(x, weight, width, float(eps),
                                                             float(weightOffset), out);
    INFERLENS_CUDA_CHECK_LAUNCH();
}

void addBias(const float* bias, int64_t tokens, int64_t width, float* y, cudaStream_t stream) {
    addBiasKernel<<<blocksFor(tokens * width), kThreads, 0, stream>>>(bias, tokens, width, y);
    INFERLENS_CUDA_CHECK_LAUNCH();
}

void addInPlace(float* x, const float* y, int64_t count, cudaStream_t stream) {
    addKernel<<<blocksFor(count), kThreads, 0, stream>>>(x, y, count);
    INFERLENS_CUDA_CHECK_LAUNCH();
}

void swiGlu(float* gate, const float* up, int64_t count, cudaStream_t stream) {
    swiGluKernel<<<blocksFor(count), kThreads, 0, stream>>>(gate, up, count);
    INFERLENS_CUDA_CHECK_LAUNCH();
}

void geluTanhGlu(float* gate, const float* up, int64_t count, cudaStream_t stream) {
    geluTanhGluKernel<<<blocksFor(count), kThreads, 0, stream>>>(gate, up, count);
    INFERLENS_CUDA_CHECK_LAUNCH();
}

void scaleValues(float* x, int64_t count, float factor, cudaStream_t stream) {
    scaleKernel<<<blocksFor(count), kThreads, 0, stream>>>(x, count, factor);
    INFERLENS_CUDA_CHECK_LAUNCH();
}

void softcap(float* x, int64_t count, float cap, cudaStream_t stream) {
    softcapKernel<<<blocksFor(count), kThreads, 0, stream>>>(x, count, cap);
    INFERLENS_CUDA_CHECK_LAUNCH();
}

void rope(float* rows, int64_t tokens, const RopeShape& shape, const int64_t* firstPosition,
          int64_t tokenOffset, cudaStream_t stream) {
    const int64_t pairs = tokens * shape.heads * (shape.ropeDims / 2);
    if (pairs == 0)
        return;
    ropeKernel<<<blocksFor(pairs), kThreads, 0, stream>>>(rows, tokens, shape, firstPosition,
                                                          tokenOffset);
    INFERLENS_CUDA_CHECK_LAUNCH();
}

void storeKv(const float* key, const float* value, int64_t tokens, int64_t width, float* cacheKeys,
             float* cacheValues, const int64_t* firstPosition, int64_t tokenOffset,
             cudaStream_t stream) {
    storeKvKernel<<<blocksFor(tokens * width), kThreads, 0, stream>>>(
        key, value, tokens, width, cacheKeys, cacheValues, firstPosition, tokenOffset);
    INFERLENS_CUDA_CHECK_LAUNCH();
}

}  // namespace inferlens::cuda
