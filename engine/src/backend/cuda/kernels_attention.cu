// Causal attention with its probabilities kept: one block per (query token, head). The block's
// warps score the keys (a warp per key, lanes splitting the head's dimensions), the block turns
// the scores into softmax weights in place — the row the probes read — and then every thread sums
// the weighted values of its share of the dimensions. The scores live in global memory, so any
// context length fits; the row of one (token, head) is read back from L2.

#include <cfloat>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/device_formats.cuh"
#include "backend/cuda/kernels.h"

namespace inferlens::cuda {
namespace {

constexpr int kThreads = 128;
constexpr int kWarps = kThreads / 32;

// The block-wide reduction of `value` (sum or max); every thread gets the result.
template <bool kMax>
__device__ float blockReduce(float value, float* shared) {
    value = kMax ? warpMax(value) : warpSum(value);
    if (threadIdx.x % 32 == 0)
        shared[threadIdx.x / 32] = value;
    __syncthreads();
    float result = shared[0];
    for (int w = 1; w < kWarps; ++w)
        result = kMax ? fmaxf(result, shared[w]) : result + shared[w];
    __syncthreads();  // `shared` is reused by the next reduction
    return result;
}

__global__ void attentionKernel(const float* query, const float* keys, const float* values,
                                AttentionShape shape, const int64_t* firstPosition,
                                int64_t tokenOffset, float scale, float* probabilities,
                                float* out) {
    const int64_t head = blockIdx.x, token = blockIdx.y;
    const int64_t group = head / (shape.heads / shape.kvHeads);
    const int64_t kvWidth = shape.kvHeads * shape.headDim;
    const int64_t keyCount = *firstPosition + tokenOffset + token + 1;
    // A local layer's window: keys before firstKey are masked (weight 0 for the probes).
    const int64_t firstKey = shape.window > 0 ? max(int64_t(0), keyCount - shape.window) : 0;
    const float* q = query + (token * shape.heads + head) * shape.headDim;
    float* weights = probabilities + (token * shape.heads + head) * shape.capacity;
    const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
    __shared__ float reduction[kWarps];

    for (int64_t key = threadIdx.x; key < firstKey; key += kThreads)
        weights[key] = 0.0f;
    for (int64_t key = firstKey + warp; key < keyCount; key += kWarps) {
        const float* k = keys + key * kvWidth + group * shape.headDim;
        float sum = 0.0f;
        for (int64_t d = lane; d < shape.headDim; d += 32)
            sum += q[d] * k[d];
        sum = warpSum(sum);
        if (lane == 0)
            weights[key] = sum * scale;
    }
    __syncthreads();

    float largest = -FLT_MAX;
    for (int64_t key = firstKey + threadIdx.x; key < keyCount; key += kThreads)
        largest = fmaxf(largest, weights[key]);
    largest = blockReduce<true>(largest, reduction);
    float total = 0.0f;
    for (int64_t key = firstKey + threadIdx.x; key < keyCount; key += kThreads) {
        const float e = expf(weights[key] - largest);
        weights[key] = e;
        total += e;
    }
    total = blockReduce<false>(total, reduction);
    const float inverse = 1.0f / total;
    for (int64_t key = firstKey + threadIdx.x; key < keyCount; key += kThreads)
        weights[key] *= inverse;
    __syncthreads();

    float* result = out + (token * shape.heads + head) * shape.headDim;
    for (int64_t d = threadIdx.x; d < shape.headDim; d += kThreads) {
        const float* v = values + group * shape.headDim + d;
        float sum = 0.0f;
        for (int64_t key = firstKey; key < keyCount; ++key)
            sum += weights[key] * v[key * kvWidth];
        result[d] = sum;
    }
}

}  // namespace

void attention(const float* query, const float* keys, const float* values,
               const AttentionShape& shape, int64_t tokens, const int64_t* firstPosition,
               int64_t tokenOffset, float* probabilities, float* out, cudaStream_t stream) {
    const dim3 grid(unsigned(shape.heads), unsigned(tokens));
    const float scale = shape.scale > 0 ? shape.scale : float(1.0 / sqrt(double(shape.headDim)));
    attentionKernel<<<grid, kThreads, 0, stream>>>(query, keys, values, shape, firstPosition,
                                                   tokenOffset, scale, probabilities, out);
    INFERLENS_CUDA_CHECK_LAUNCH();
}

}  // namespace inferlens::cuda
