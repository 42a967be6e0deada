#pragma once
// Host-side launchers of the CUDA kernels, one family per file: products of one token
// (kernels_gemv.cu), reading weights into other forms (kernels_dequantize.cu), per-token and
// per-element operations (kernels_elementwise.cu), attention (kernels_attention.cu) and random
// weights (kernels_random.cu). Every launcher enqueues on `stream`, checks the launch, and takes
// device pointers; activations are f32.
//
// Positions come from device memory (`firstPosition`, a single int64) rather than from an
// argument, so that a decode step captured once in a CUDA graph replays at every position; a
// kernel working on a chunk of a step's tokens adds `tokenOffset` to it.

#include <cuda_runtime.h>

#include <cstdint>

#include "backend/cuda/device_matrix.h"
#include "models/model_config.h"

namespace inferlens::cuda {

// y[rows] = W · x for one token's x[columns].
void gemv(const DeviceMatrix& w, const float* x, float* y, cudaStream_t stream);

// W decoded to f16, [rows, columns] (the prefill GEMM's input for block types).
void dequantizeToHalf(const DeviceMatrix& w, uint16_t* out, cudaStream_t stream);
// out[i] = row tokens[i] of `table` decoded to f32, [count, columns].
void embedRows(const DeviceMatrix& table, const int32_t* tokens, int64_t count, float* out,
               cudaStream_t stream);
// Activations [tokens, columns] rounded to F16 or BF16 (`dtype`) for a cuBLAS product with such
// weights. F16 ends at ±65504, and activations of some models go beyond that: a row whose largest
// magnitude passes 16384 is divided by a power of two (exact) that is written to `rowScales` (1
// for the other rows, and for BF16, which has f32's range), and scaleRows() multiplies the
// product's rows back.
void convertActivations(const float* in, int64_t tokens, int64_t columns, DType dtype, void* out,
                        float* rowScales, cudaStream_t stream);
// y[t] *= rowScales[t] for `tokens` rows of `width`.
void scaleRows(float* y, int64_t tokens, int64_t width, const float* rowScales,
               cudaStream_t stream);

// out[t] = x[t] / rms(x[t]) * (weightOffset + weight) for `tokens` rows of `width` (out may be
// x). Gemma's Hugging Face norms have weightOffset 1; per-head Q/K norms pass tokens × heads rows
// of head_dim.
void rmsNorm(const float* x, const float* weight, int64_t tokens, int64_t width, double eps,
             float* out, cudaStream_t stream, double weightOffset = 0.0);
// y[t] += bias for `tokens` rows of `width`.
void addBias(const float* bias, int64_t tokens, int64_t width, float* y, cudaStream_t stream);
// x += y, `count` values.
void addInPlace(float* x, const float* y, int64_t count, cudaStream_t stream);
// gate = silu(gate) * up, `count` values.
void swiGlu(float* gate, const float* up, int64_t count, cudaStream_t stream);
// gate = gelu_tanh(gate) * up, `count` values (Gemma's GeGLU).
void geluTanhGlu(float* gate, const float* up, int64_t count, cudaStream_t stream);
// x *= factor, `count` values (Gemma's embedding scale).
void scaleValues(float* x, int64_t count, float factor, cudaStream_t stream);
// x = cap · tanh(x / cap), `count` values (final logit soft-capping).
void softcap(float* x, int64_t count, float cap, cudaStream_t stream);

struct RopeShape {
    int64_t heads = 0;  // heads per token row
    int64_t headDim = 0;
    int64_t ropeDims = 0;  // leading dimensions of each head that rotate
    double base = 10000.0;
    RopePairing pairing = RopePairing::Adjacent;
    // Device array of ropeDims / 2 frequencies θ_i (models/rope_frequencies.h: a layer's own
    // base, scaling and Llama 3 factors); null: θ_i = base^(−2i/ropeDims).
    const double* frequencies = nullptr;
};
// Rotates the heads of `tokens` rows ([tokens, heads × headDim]) by their positions.
void rope(float* rows, int64_t tokens, const RopeShape& shape, const int64_t* firstPosition,
          int64_t tokenOffset, cudaStream_t stream);
// Copies `tokens` K and V rows of `width` into the cache rows of their positions.
void storeKv(const float* key, const float* value, int64_t tokens, int64_t width, float* cacheKeys,
             float* cacheValues, const int64_t* firstPosition, int64_t tokenOffset,
             cudaStream_t stream);

struct AttentionShape {
    int64_t heads = 0, kvHeads = 0, headDim = 0;
    int64_t capacity = 0;  // rows of the cache, and the stride of a probability row
    float scale = 0.0f;    // the scores' factor; 0: 1/√headDim
    // A local layer's window (Gemma 3): the query at position p sees p − window + 1 .. p only
    // (the others get weight 0); 0: every position up to its own.
    int64_t window = 0;
};
// Causal attention of `tokens` queries ([tokens, heads × headDim]) over the cached keys and
// values ([capacity, kvHeads × headDim]) of positions 0 .. their own (within the window). The
// softmax weights stay in `probabilities` ([tokens, heads, capacity], only each row's first
// position + 1 entries meaningful) for the probes; the result goes to `out` ([tokens, heads ×
// headDim]).
void attention(const float* query, const float* keys, const float* values,
               const AttentionShape& shape, int64_t tokens, const int64_t* firstPosition,
               int64_t tokenOffset, float* probabilities, float* out, cudaStream_t stream);

// Deterministic pseudo-random contents for synthetic weights: floats uniform in
// [center − amplitude, center + amplitude] in `dtype` (F32, F16 or BF16), or random quants with
// scales amplitude/127 (Q8_0) and amplitude/8 (Q4_0).
// `w` must point into memory of ours (a fresh arena piece): its contents are overwritten.
void fillRandomMatrix(const DeviceMatrix& w, float amplitude, uint64_t seed, cudaStream_t stream);
void fillRandomFloats(float* values, int64_t count, float center, float amplitude, uint64_t seed,
                      cudaStream_t stream);

}  // namespace inferlens::cuda
