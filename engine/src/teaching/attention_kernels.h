#pragma once
// The attention kernels side by side, for the teaching view: one layer's causal attention over a
// whole prompt of n tokens, timed with the reference kernel (row by row: every head's scores, their
// softmax, then the weighted sum of the values — what the attention panels draw) and with the fused
// one (key blocks streamed past blocks of query rows with an online softmax; no probabilities
// stored). The inputs are random with the model's own layout (heads, KV groups, head size): the
// time does not depend on the values. The two outputs are compared too, to show that fusing
// changes the cost and not the result.

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "backend/cpu/fused_attention.h"
#include "generation_control.h"

namespace inferlens {

class ThreadPool;

struct AttentionKernelTiming {
    int64_t tokens = 0;
    double fusedSeconds = 0;
    double referenceSeconds = 0;
    double difference = 0;  // ‖fused − reference‖ / ‖reference‖ over the whole output
    double speedup() const { return referenceSeconds / fusedSeconds; }
};

// Times both kernels at each length in turn (`progress(done, total)` after each kernel run). With
// `control` cancelled it stops between rows and returns the lengths completed so far. Throws Error
// (or std::bad_alloc) when the buffers for a length cannot be allocated.
std::vector<AttentionKernelTiming> timeAttentionKernels(
    const AttentionLayout& layout, std::span<const int64_t> lengths, ThreadPool* pool,
    GenerationControl* control = nullptr,
    const std::function<void(int done, int total)>& progress = {});

}  // namespace inferlens
