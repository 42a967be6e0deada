#pragma once
// Attention of one layer over a sequence that has already been generated: how a viewer gets the
// past rows of a head it did not capture live (the GUI captures at full resolution only the head
// on screen, and asks again when the selection changes). Only layers 0 .. layer run, on a fresh
// cache like the generation's (type and window), in chunks of query rows so that the captured
// blocks stay within a memory budget.

#include <cstdint>
#include <span>

#include "backend/cpu/kv_rows.h"
#include "generation_control.h"
#include "models/model.h"
#include "probe.h"

namespace inferlens {

struct AttentionRecomputeOptions {
    int64_t layer = 0;
    int threads = 0;  // 0: one per hardware thread
    // Most bytes the blocks of one chunk may hold (all wanted heads × chunk rows × keys × 4).
    int64_t budgetBytes = int64_t(256) << 20;
    // The KV cache the generation ran with, so that the weights are the ones it used: its type,
    // and a sliding window of `window` tokens after `sinks` (window 0: none).
    KvType kvType = KvType::F32;
    int64_t window = 0;
    int64_t sinks = 0;
};

// Runs `tokens` through layers 0 .. options.layer and delivers to `probes` the attention blocks
// they want in that layer, as one AttentionEvent per head and chunk (step 0, firstQuery = the
// chunk's first position; the first chunk starts at 0). Returns false when `control` cancels.
// Throws Error for a layer outside the model or tokens outside the vocabulary.
bool recomputeAttention(const Model& model, std::span<const int32_t> tokens, ProbeSet& probes,
                        const AttentionRecomputeOptions& options,
                        GenerationControl* control = nullptr);

// How many query rows fit in `budgetBytes` when `heads` heads over `keys` keys are captured (at
// least one row).
int64_t attentionChunkRows(int64_t heads, int64_t keys, int64_t budgetBytes);

}  // namespace inferlens
