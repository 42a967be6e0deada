#include "backend/cpu/fused_attention.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <vector>

#include "backend/cpu/attention_scores.h"
#include "backend/cpu/cpu_features.h"
#include "backend/cpu/kernels.h"
#include "backend/cpu/thread_pool.h"
#include "core/error.h"

namespace inferlens {
namespace {

constexpr int64_t kKeyBlock = 64;    // keys whose scores exist at once
constexpr int64_t kQueryBlock = 16;  // query rows that share each key block's loads

// One thread's buffers, for a block of query rows times the heads of a group.
struct Running {
    Running(size_t vectors, int64_t headsPerGroup, int64_t headDim)
        : scores(vectors * kKeyBlock),
          maximum(vectors),
          sum(vectors),
          accumulated(vectors * size_t(headDim)),
          partial(size_t(headsPerGroup * headDim)),
          weighted(size_t(headsPerGroup)),
          keyBlock(size_t(kKeyBlock * headDim)),
          valueBlock(size_t(kKeyBlock * headDim)) {}
    std::vector<float> scores;  // [vectors, kKeyBlock]
    std::vector<float> maximum, sum;
    std::vector<float> accumulated;  // [vectors, headDim]
    std::vector<float> partial;      // [headsPerGroup, headDim]: one query row's block sums
    std::vector<char> weighted;      // [headsPerGroup]: whether a head of the row sees the block
    // A block of f16 or int8 rows of one group, decoded: [kKeyBlock, headDim].
    std::vector<float> keyBlock, valueBlock;
};

// The f32 rows of `group` from `first`: in place when stored as f32, else decoded into `block`.
// Sets `stride` to the floats from one row to the next.
const float* groupRows(const KvRows& rows, int64_t first, int64_t count, int64_t group,
                       std::vector<float>& block, int64_t& stride) {
    if (const float* floats = rows.floatData()) {
        stride = rows.rowBytes / int64_t(sizeof(float));
        return floats + first * stride + group * rows.headDim;
    }
    rows.decodeHead(first, count, group, block.data());
    stride = rows.headDim;
    return block.data();
}

}  // namespace

AttentionKernel parseAttentionKernel(const std::string& name) {
    if (name == "fused")
        return AttentionKernel::Fused;
    if (name == "reference")
        return AttentionKernel::Reference;
    throw Error("unknown attention kernel '" + name + "' (fused or reference)");
}

const char* attentionKernelName(AttentionKernel kernel) {
    return kernel == AttentionKernel::Fused ? "fused" : "reference";
}

void fusedAttention(const AttentionLayout& layout, std::span<const float> queries, int64_t firstRow,
                    int64_t count, const float* keys, const float* values, std::span<float> out,
                    ThreadPool* pool) {
    fusedAttention(layout, queries, firstRow, count,
                   KvRows::floats(keys, layout.kvHeadCount, layout.headDim, layout.kvRowWidth),
                   KvRows::floats(values, layout.kvHeadCount, layout.headDim, layout.kvRowWidth),
                   out, pool);
}

void fusedAttention(const AttentionLayout& layout, std::span<const float> queries, int64_t firstRow,
                    int64_t count, const KvRows& keys, const KvRows& values, std::span<float> out,
                    ThreadPool* pool) {
    const int64_t headDim = layout.headDim;
    const int64_t headsPerGroup = layout.headCount / layout.kvHeadCount;
    const int64_t queryWidth = layout.headCount * headDim;
    const FloatTile tile = floatTile(DType::F32, cpuKernels());
    const WeightedSums weightedSumsOf = weightedSums(cpuKernels());
    const OnlineSoftmaxStep softmaxStep = onlineSoftmaxStep(cpuKernels());
    const int64_t rowBlocks = (count + kQueryBlock - 1) / kQueryBlock;
    const int64_t items = layout.kvHeadCount * rowBlocks;
    // Below this many multiply-adds the hand-off to other threads costs more than it saves.
    constexpr int64_t kParallelWork = int64_t(1) << 16;
    const int64_t work = layout.headCount * count * (firstRow + count) * headDim;
    const bool parallel = pool != nullptr && pool->size() > 1 && items > 1 && work >= kParallelWork;

    // Every thread's buffers are allocated here, once, before any work starts (running out of
    // memory throws before the pool is busy). Each call of `run` (at most one per thread) takes
    // the next set.
    const auto vectorsAtMost = size_t(std::min(kQueryBlock, count) * headsPerGroup);
    std::vector<Running> buffers(parallel ? size_t(pool->size()) : 1,
                                 Running(vectorsAtMost, headsPerGroup, headDim));
    std::atomic<size_t> nextBuffers{0};

    const auto run = [&](int64_t firstItem, int64_t lastItem) {
        Running& r = buffers[nextBuffers.fetch_add(1, std::memory_order_relaxed)];
        for (int64_t item = firstItem; item < lastItem; ++item) {
            const int64_t group = item / rowBlocks;
            const int64_t row0 = (item % rowBlocks) * kQueryBlock;
            const int64_t rows = std::min(kQueryBlock, count - row0);
            // Vector v is query row row0 + v / headsPerGroup, head group × headsPerGroup + v % ….
            const int64_t vectors = rows * headsPerGroup;
            const auto queryOf = [&](int64_t v) {
                return queries.data() + (row0 + v / headsPerGroup) * queryWidth +
                       (group * headsPerGroup + v % headsPerGroup) * headDim;
            };
            std::fill_n(r.maximum.begin(), vectors, -std::numeric_limits<float>::infinity());
            std::fill_n(r.sum.begin(), vectors, 0.0f);
            std::fill_n(r.accumulated.begin(), vectors * headDim, 0.0f);
            const int64_t keyEnd = firstRow + row0 + rows;  // the last row's keys, exclusive
            for (int64_t key0 = 0; key0 < keyEnd; key0 += kKeyBlock) {
                const int64_t keysHere = std::min(kKeyBlock, keyEnd - key0);
                // A block a window hides from the item's first row is hidden from all its rows.
                if (key0 >= layout.sinks && key0 + keysHere <= layout.windowStart(firstRow + row0))
                    continue;
                int64_t keyStride, valueStride;
                const float* keyRows =
                    groupRows(keys, key0, keysHere, group, r.keyBlock, keyStride);
                const float* valueRows =
                    groupRows(values, key0, keysHere, group, r.valueBlock, valueStride);
                // The block's scores, kTileTokens query vectors at a time.
                for (int64_t v0 = 0; v0 < vectors; v0 += kTileTokens) {
                    const int tokens = int(std::min<int64_t>(kTileTokens, vectors - v0));
                    const float* xs[kTileTokens];
                    for (int t = 0; t < tokens; ++t)
                        xs[t] = queryOf(v0 + t);
                    scoreKeys(tile, xs, tokens, keyRows, keyStride, keysHere, headDim, layout.scale,
                              r.scores.data() + v0 * kKeyBlock, kKeyBlock);
                }
                for (int64_t row = 0; row < rows; ++row) {
                    // Causal: the row sees keys up to its own position.
                    const int64_t position = firstRow + row0 + row;
                    const int64_t visible = std::min(keysHere, position - key0 + 1);
                    if (visible <= 0)
                        continue;
                    for (int64_t head = 0; head < headsPerGroup; ++head) {
                        const int64_t v = row * headsPerGroup + head;
                        float* scores = r.scores.data() + v * kKeyBlock;
                        float* accumulated = r.accumulated.data() + v * headDim;
                        maskOutsideWindow(layout, position, key0, visible, scores);
                        const SoftmaxStep step =
                            softmaxStep(scores, visible, r.maximum[size_t(v)], r.sum[size_t(v)]);
                        // A block the window hides entirely adds nothing.
                        r.weighted[size_t(head)] = step.adds;
                        if (step.adds && step.rescale != 1.0f)
                            for (int64_t d = 0; d < headDim; ++d)
                                accumulated[d] *= step.rescale;
                    }
                    // The row's heads share the value rows: their weighted sums at once, a run
                    // of heads that see the block at a time.
                    for (int64_t head = 0; head < headsPerGroup;) {
                        int64_t end = head;
                        while (end < headsPerGroup && r.weighted[size_t(end)])
                            ++end;
                        if (end == head) {
                            ++head;
                            continue;
                        }
                        const int64_t v = row * headsPerGroup + head;
                        weightedSumsOf(r.scores.data() + v * kKeyBlock, kKeyBlock, int(end - head),
                                       visible, valueRows, valueStride, headDim,
                                       r.partial.data() + head * headDim, headDim);
                        for (; head < end; ++head) {
                            float* accumulated =
                                r.accumulated.data() + (row * headsPerGroup + head) * headDim;
                            const float* partial = r.partial.data() + head * headDim;
                            for (int64_t d = 0; d < headDim; ++d)
                                accumulated[d] += partial[d];
                        }
                    }
                }
            }
            for (int64_t v = 0; v < vectors; ++v) {
                float* target = out.data() + (row0 + v / headsPerGroup) * queryWidth +
                                (group * headsPerGroup + v % headsPerGroup) * headDim;
                const float inverse = 1.0f / r.sum[size_t(v)];
                for (int64_t d = 0; d < headDim; ++d)
                    target[d] = r.accumulated[size_t(v * headDim + d)] * inverse;
            }
        }
    };
    if (parallel)
        pool->parallelFor(items, run);
    else
        run(0, items);
}

}  // namespace inferlens
