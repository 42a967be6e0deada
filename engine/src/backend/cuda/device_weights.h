#pragma once
// A model's weights in GPU memory: uploaded from its files, or generated there at random for a
// benchmark of a shape (kernels_random.cu). Matrices keep their file's type where the kernels read
// it (device_matrix.h) and become F16 otherwise; norms and biases become f32 vectors. Everything
// lives in one arena, sized before anything is allocated (bytesFor*), so that a model that does not
// fit is refused up front.

#include <optional>
#include <vector>

#include "backend/cuda/device_matrix.h"
#include "backend/cuda/device_memory.h"
#include "models/decoder_weights.h"
#include "models/model_config.h"

namespace inferlens::cuda {

struct DeviceLayer {
    const float* attentionNorm = nullptr;
    DeviceMatrix query, key, value;
    const float* queryBias = nullptr;  // null without biases
    const float* keyBias = nullptr;
    const float* valueBias = nullptr;
    const float* queryNorm = nullptr;  // [head_dim]; null without Q/K norms
    const float* keyNorm = nullptr;
    DeviceMatrix attentionOutput;
    const float* postAttentionNorm = nullptr;  // null without post-norms
    const float* ffnNorm = nullptr;
    DeviceMatrix ffnGate, ffnUp, ffnDown;
    const float* postFfnNorm = nullptr;
};

struct DeviceWeights {
    DeviceArena arena;
    DeviceMatrix tokenEmbedding;
    std::vector<DeviceLayer> layers;
    const float* outputNorm = nullptr;
    DeviceMatrix output;  // the token embedding's when tied

    // The largest block-quantized matrix (rows × columns), which the prefill dequantizes to F16
    // for cuBLAS, and whether any product needs its activations in F16/BF16; 0 / false if none.
    int64_t largestBlockMatrix() const;
    bool anyReducedPrecision() const;
    // Every matrix a product reads.
    std::vector<const DeviceMatrix*> productMatrices() const;
};

// What the weights will take on the device, known before anything is allocated.
struct WeightPlan {
    int64_t bytes = 0;
    int64_t largestBlockMatrix = 0;  // as DeviceWeights::largestBlockMatrix()
    bool reducedPrecision = false;   // as DeviceWeights::anyReducedPrecision()
};
WeightPlan planUpload(const ModelConfig& config, const DecoderWeights& weights);
WeightPlan planSynthetic(const ModelConfig& config, DType dtype);

// One matrix as uploadWeights() places it, into `arena` (which needs matrixBytes(view) more):
// how the kernel tests put their inputs on the device.
int64_t matrixBytes(const TensorView& view);
DeviceMatrix uploadMatrix(const TensorView& view, DeviceArena& arena);

// Both run on the current device and return when the weights are in place.
DeviceWeights uploadWeights(const ModelConfig& config, const DecoderWeights& weights);
// `dtype`: F32, F16, BF16, Q8_0 or Q4_0 (Error otherwise).
DeviceWeights syntheticWeights(const ModelConfig& config, DType dtype, uint64_t seed);

}  // namespace inferlens::cuda
