#pragma once
// Causal attention the textbook way, one query row at a time: every head's scores against all
// visible keys, their softmax (the probabilities the attention panels draw), then each head's
// probability-weighted sum of the values. It forms what the fused kernel never does, which is why
// the model uses it for the weights a probe asks for and, with --attention reference, for the
// output as well.

#include <cstdint>
#include <span>

#include "backend/cpu/fused_attention.h"

namespace inferlens {

class ThreadPool;

// The softmax weights of every head of `query` ([headCount × headDim], the row at `position`) over
// positions 0..position: weights[h × (position + 1) + p]. `keys`: the cache's rows from position 0.
void attentionProbabilities(const AttentionLayout& layout, std::span<const float> query,
                            int64_t position, const float* keys, std::span<float> weights,
                            ThreadPool* pool);

// out[h] = Σ_p weights[h, p] · V[p, group of h], for keyCount positions.
void weightedValues(const AttentionLayout& layout, std::span<const float> weights, int64_t keyCount,
                    const float* values, std::span<float> out, ThreadPool* pool);

}  // namespace inferlens
