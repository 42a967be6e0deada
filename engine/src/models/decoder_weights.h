#pragma once
// The weights of a pre-norm gated-FFN decoder, bound to tensors in the model files. Shapes are in
// PyTorch order ([out, in]); H = hidden size, D = head_dim, Q = heads × D, KV = kv_heads × D,
// F = feed-forward size, V = vocabulary. The optional norms exist for the architectures that have
// them (Qwen3, Gemma 3: Q/K norms; Gemma 3: post-norms). Fused tensors (GLM's QKV, gate+up) are row
// slices of the file's tensor, so nothing is copied.

#include <optional>
#include <vector>

#include "core/tensor.h"

namespace inferlens {

struct LayerWeights {
    TensorView attentionNorm;                                 // [H]
    TensorView query;                                         // [Q, H]
    TensorView key;                                           // [KV, H]
    TensorView value;                                         // [KV, H]
    std::optional<TensorView> queryBias, keyBias, valueBias;  // [Q], [KV], [KV]
    std::optional<TensorView> queryNorm, keyNorm;             // [D], shared by every head
    TensorView attentionOutput;                               // [H, Q]
    std::optional<TensorView> postAttentionNorm;              // [H]
    TensorView ffnNorm;                                       // [H]
    TensorView ffnGate;                                       // [F, H]
    TensorView ffnUp;                                         // [F, H]
    TensorView ffnDown;                                       // [H, F]
    std::optional<TensorView> postFfnNorm;                    // [H]
};

struct DecoderWeights {
    TensorView tokenEmbedding;  // [V, H]
    std::vector<LayerWeights> layers;
    TensorView outputNorm;  // [H]
    TensorView output;      // [V, H]; the token embedding when tied
};

}  // namespace inferlens
