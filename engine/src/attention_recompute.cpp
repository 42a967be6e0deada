#include "attention_recompute.h"

#include <algorithm>
#include <string>
#include <vector>

#include "attention_capture.h"
#include "backend/cpu/thread_pool.h"
#include "core/error.h"
#include "kv_cache.h"

namespace inferlens {

int64_t attentionChunkRows(int64_t heads, int64_t keys, int64_t budgetBytes) {
    const int64_t rowBytes = std::max<int64_t>(1, heads) * std::max<int64_t>(1, keys) * 4;
    return std::max<int64_t>(1, budgetBytes / rowBytes);
}

bool recomputeAttention(const Model& model, std::span<const int32_t> tokens, ProbeSet& probes,
                        const AttentionRecomputeOptions& options, GenerationControl* control) {
    const ModelConfig& c = model.config();
    if (options.layer < 0 || options.layer >= c.layerCount)
        throw Error("layer " + std::to_string(options.layer) + " is outside the model's " +
                    std::to_string(c.layerCount) + " layers");
    const auto count = int64_t(tokens.size());
    if (count == 0)
        return true;
    probes.refresh();
    int64_t wantedHeads = 0;
    for (int64_t head = 0; head < c.headCount; ++head)
        wantedHeads += probes.wantsAttention(options.layer, head) ? 1 : 0;
    // A sliding cache takes at most a window per step.
    const bool slides = options.window > 0;
    const int64_t chunk = std::min(attentionChunkRows(wantedHeads, count, options.budgetBytes),
                                   slides ? options.window : count);

    // Layers past the one asked for are never run, so the cache needs only layers 0 .. layer.
    KvCache cache(options.layer + 1, c.kvHeadCount, c.headCount, c.headDim,
                  slides ? options.sinks + options.window : count,
                  {options.kvType, slides, options.sinks});
    ThreadPool pool(options.threads);
    ForwardScratch scratch(c);
    scratch.pool = &pool;
    const auto hidden = size_t(c.hiddenSize);
    std::vector<float> residual;
    for (int64_t first = 0; first < count; first += chunk) {
        const int64_t rows = std::min(chunk, count - first);
        residual.assign(size_t(rows) * hidden, 0.0f);
        for (int64_t i = 0; i < rows; ++i)
            model.embed(tokens[size_t(first + i)],
                        std::span(residual).subspan(size_t(i) * hidden, hidden));
        cache.reserve(rows);
        AttentionCapture capture(probes, 0, first, rows, slides ? options.sinks : 0,
                                 options.window, &c);
        for (int64_t layer = 0; layer <= options.layer; ++layer) {
            if (control != nullptr && !control->checkpoint())
                return false;
            const bool captured = layer == options.layer;
            model.forwardLayer(layer, first, residual, cache, scratch,
                               captured ? &capture : nullptr);
            if (captured)
                capture.deliver(layer);
        }
        cache.commit(rows);
    }
    return true;
}

}  // namespace inferlens
