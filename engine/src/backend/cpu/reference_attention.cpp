#include "backend/cpu/reference_attention.h"

#include <algorithm>

#include "backend/cpu/attention_scores.h"
#include "backend/cpu/cpu_features.h"
#include "backend/cpu/kernels.h"
#include "backend/cpu/reference_ops.h"
#include "backend/cpu/thread_pool.h"

namespace inferlens {
namespace {

// Below this many multiply-adds per phase of one row the hand-off to other threads costs more
// than it saves.
bool inParallel(const AttentionLayout& layout, int64_t keyCount, const ThreadPool* pool) {
    constexpr int64_t kParallelWork = int64_t(1) << 16;
    return pool != nullptr && pool->size() > 1 &&
           layout.headCount * keyCount * layout.headDim >= kParallelWork;
}

// Runs work(firstGroup, lastGroup) over the KV groups, split across the pool when worth it.
template <typename Work>
void overGroups(const AttentionLayout& layout, int64_t keyCount, ThreadPool* pool,
                const Work& work) {
    if (inParallel(layout, keyCount, pool))
        pool->parallelFor(layout.kvHeadCount, work);
    else
        work(0, layout.kvHeadCount);
}

}  // namespace

void attentionProbabilities(const AttentionLayout& layout, std::span<const float> query,
                            int64_t position, const float* keys, std::span<float> weights,
                            ThreadPool* pool) {
    // The scores of a KV group's heads against its keys are a small matrix product: keys as rows,
    // the heads' queries as tokens (attention_scores.h).
    const int64_t headDim = layout.headDim;
    const int64_t keyCount = position + 1;
    const int64_t headsPerGroup = layout.headCount / layout.kvHeadCount;
    const FloatTile tile = floatTile(DType::F32, cpuKernels());
    const auto headWeights = [&](int64_t h) {
        return weights.subspan(size_t(h * keyCount), size_t(keyCount));
    };
    overGroups(layout, keyCount, pool, [&](int64_t firstGroup, int64_t lastGroup) {
        for (int64_t g = firstGroup; g < lastGroup; ++g) {
            for (int64_t h0 = 0; h0 < headsPerGroup; h0 += kTileTokens) {
                const int heads = int(std::min<int64_t>(kTileTokens, headsPerGroup - h0));
                const float* queries[kTileTokens];
                for (int i = 0; i < heads; ++i)
                    queries[i] = query.data() + (g * headsPerGroup + h0 + i) * headDim;
                scoreKeys(tile, queries, heads, keys + g * headDim, layout.kvRowWidth, keyCount,
                          headDim, layout.scale, headWeights(g * headsPerGroup + h0).data(),
                          keyCount);
            }
            for (int64_t i = 0; i < headsPerGroup; ++i) {
                maskOutsideWindow(layout, position, 0, keyCount,
                                  headWeights(g * headsPerGroup + i).data());
                softmaxInPlace(headWeights(g * headsPerGroup + i));
            }
        }
    });
}

void weightedValues(const AttentionLayout& layout, std::span<const float> weights, int64_t keyCount,
                    const float* values, std::span<float> out, ThreadPool* pool) {
    const int64_t headsPerGroup = layout.headCount / layout.kvHeadCount;
    const WeightedSums sumValues = weightedSums(cpuKernels());
    overGroups(layout, keyCount, pool, [&](int64_t firstGroup, int64_t lastGroup) {
        for (int64_t g = firstGroup; g < lastGroup; ++g) {
            const int64_t h = g * headsPerGroup;  // the group's heads share its values
            sumValues(weights.data() + h * keyCount, keyCount, int(headsPerGroup), keyCount,
                      values + g * layout.headDim, layout.kvRowWidth, layout.headDim,
                      out.data() + h * layout.headDim, layout.headDim);
        }
    });
}

}  // namespace inferlens
