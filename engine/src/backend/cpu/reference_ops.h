#pragma once
// The CPU operations of the decoder, one function per operation, on f32 activations. The weight
// products go through the SIMD kernels (kernels.h, chosen at run time); the rest are plain loops.

#include <cstdint>
#include <span>

#include "core/tensor.h"
#include "models/model_config.h"

namespace inferlens {

class ThreadPool;

// y = W · x for W of shape [rows, columns] in any weight type (y has `rows` entries). Block types
// (Q8_0, Q4_0) quantize x to 8 bits per block first (kernels.h). With a pool, large products split
// their rows across its threads (each row's sum is computed the same way, so the result does not
// depend on the thread count).
void matVec(const TensorView& weight, std::span<const float> x, std::span<float> y,
            ThreadPool* pool = nullptr);
// Y = X · Wᵀ for the `tokens` rows of X ([tokens, columns]) into Y ([tokens, rows]): a prefill's
// products as one cache-blocked GEMM. Threads split the weight rows; within its rows a thread takes
// the tokens in blocks that stay in cache and the weights in register tiles of rows × tokens
// (kernels.h), so that a weight is read once per block rather than once per token.
void matMat(const TensorView& weight, std::span<const float> x, int64_t tokens, std::span<float> y,
            ThreadPool* pool = nullptr);
// y += b
void addBias(const TensorView& bias, std::span<float> y);
// out = x / rms(x) * (weightOffset + weight); Gemma's Hugging Face norms have offset 1.
void rmsNorm(std::span<const float> x, const TensorView& weight, double eps, std::span<float> out,
             double weightOffset = 0.0);
// Rotates the first 2 × frequencies.size() values of one head, pair i by position · θ_i
// (models/rope_frequencies.h).
void applyRope(std::span<float> head, int64_t position, std::span<const double> frequencies,
               RopePairing pairing);
// The same with θ_i = base^(−2i/ropeDims).
void applyRope(std::span<float> head, int64_t position, int64_t ropeDims, double base,
               RopePairing pairing);
void softmaxInPlace(std::span<float> values);
// gate[i] = silu(gate[i]) * up[i] (kernels.h's siluGate for the kernel set in use)
void swiGlu(std::span<float> gate, std::span<const float> up);
// gate[i] = gelu_tanh(gate[i]) * up[i] (GELU's tanh approximation, as Gemma's
// gelu_pytorch_tanh and llama.cpp's GELU)
void geluTanhGlu(std::span<float> gate, std::span<const float> up);
// gate = act(gate) ⊙ up with the model's activation.
void gatedActivation(FfnActivation activation, std::span<float> gate, std::span<const float> up);
// values[i] = cap · tanh(values[i] / cap)
void softcap(std::span<float> values, double cap);

}  // namespace inferlens
