#pragma once
// Causal attention without the score matrix, FlashAttention-style: for a block of query rows and
// the query heads of one KV group, the keys go by in blocks; each block's scores live only long
// enough to update, per query vector, a running maximum, a running sum of exponentials and a
// running weighted sum of the values (rescaled whenever the maximum grows: the online softmax).
// The result equals softmax(q·Kᵀ · scale) · V up to rounding, but nothing of size positions ×
// positions (or even one row of it per head) is ever stored, and each key and value block is read
// once for a whole block of query rows, which is what makes a long prefill cheaper.
//
// It never forms the attention probabilities themselves: where a probe wants a head's weights (the
// attention panels), models/model.cpp computes them beside it, so watching changes no output.

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>

#include "backend/cpu/kv_rows.h"

namespace inferlens {

class ThreadPool;

// Which kernel computes the CPU forward pass's attention output.
enum class AttentionKernel { Fused, Reference };

// "fused" or "reference" (Error otherwise), and back.
AttentionKernel parseAttentionKernel(const std::string& name);
const char* attentionKernelName(AttentionKernel kernel);

struct AttentionLayout {
    int64_t headDim = 0;
    int64_t headCount = 0;
    int64_t kvHeadCount = 0;  // query heads share KV heads in equal groups (MHA, GQA, MQA)
    // Floats from one position's f32 K (or V) row to the next, for the reference kernels (the
    // fused kernel's KvRows say where their rows are).
    int64_t kvRowWidth = 0;
    float scale = 1;  // the scores' factor, 1/√head_dim
    // A sliding cache's window (kv_cache.h): the query in row r sees rows 0 .. sinks − 1 and
    // windowStart(r) .. r, the others are masked. window 0: every row up to its own.
    int64_t sinks = 0;
    int64_t window = 0;
    int64_t windowStart(int64_t row) const {
        return window > 0 ? std::max(sinks, row - window + 1) : 0;
    }
};

// queries: [count, headCount × headDim], the rows of cache rows firstRow .. firstRow + count − 1.
// keys, values: the cache's rows 0 .. firstRow + count − 1 (group g's head at g × headDim in
// each row). Query i attends to rows 0 .. firstRow + i. Writes out: [count, headCount ×
// headDim]. Rows stored as f16 or int8 are decoded a block at a time, as the kernel reaches
// them. Splits the work over `pool` when it is large enough.
void fusedAttention(const AttentionLayout& layout, std::span<const float> queries, int64_t firstRow,
                    int64_t count, const KvRows& keys, const KvRows& values, std::span<float> out,
                    ThreadPool* pool);
// The same over f32 rows layout.kvRowWidth floats apart.
void fusedAttention(const AttentionLayout& layout, std::span<const float> queries, int64_t firstRow,
                    int64_t count, const float* keys, const float* values, std::span<float> out,
                    ThreadPool* pool);

}  // namespace inferlens
