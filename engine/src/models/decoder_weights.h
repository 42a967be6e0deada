#pragma once
// The weights of a pre-norm SwiGLU decoder, bound to tensors in the model files. Shapes are in
// PyTorch order ([out, in]); H = hidden size, Q = heads × head_dim, KV = kv_heads × head_dim,
// F = feed-forward size, V = vocabulary. Fused tensors (GLM's QKV, gate+up) are row slices of the
// file's tensor, so nothing is copied.

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
    TensorView attentionOutput;                               // [H, Q]
    TensorView ffnNorm;                                       // [H]
    TensorView ffnGate;                                       // [F, H]
    TensorView ffnUp;                                         // [F, H]
    TensorView ffnDown;                                       // [H, F]
};

struct DecoderWeights {
    TensorView tokenEmbedding;  // [V, H]
    std::vector<LayerWeights> layers;
    TensorView outputNorm;  // [H]
    TensorView output;      // [V, H]; the token embedding when tied
};

}  // namespace inferlens
