#pragma once
// The KV cache on/off experiment: the same prompt and greedy generation run twice, with the cache
// (each step runs only the new token) and without it (each step reruns the whole sequence), timing
// every token. The tokens must be identical; the times show what the cache saves on this machine,
// and the FLOP counts (step_costs.h) explain why: without the cache, token n costs n tokens' work.

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "generation_control.h"
#include "models/model.h"

namespace inferlens {

struct KvExperimentOptions {
    int64_t newTokens = 128;    // generated in each run (end of sequence does not stop it)
    int threads = 0;            // 0: one per hardware thread
    double bytesPerWeight = 2;  // for the FLOP and byte counts (see stepCosts)
};

struct KvExperimentRun {
    bool kvCache = true;
    std::vector<int32_t> tokens;          // the generated ids
    std::vector<double> secondsPerToken;  // [i]: the step whose logits chose token i (the
                                          // prefill for token 0); one entry per token
    std::vector<double> flopsPerToken;    // [i]: the FLOPs of that step, from stepCosts
    double totalSeconds() const;
    // Seconds to produce the first n tokens (n ≤ tokens.size()).
    double secondsForFirst(int64_t n) const;
};

struct KvExperimentResult {
    int64_t promptTokens = 0;
    KvExperimentRun withCache, withoutCache;
    bool identical() const { return withCache.tokens == withoutCache.tokens; }
    // Time without the cache over time with it, for the first n tokens.
    double speedupAt(int64_t n) const;
    // The same ratio in FLOPs.
    double flopRatioAt(int64_t n) const;
};

// Runs with the cache first, then without. `progress(kvCache, tokensDone)` after every token;
// returns the result so far with `cancelled` set when `control` cancels. Throws Error for an empty
// prompt or one that leaves no room for newTokens in the context.
struct KvExperimentOutcome {
    KvExperimentResult result;
    bool cancelled = false;
};
KvExperimentOutcome runKvCacheExperiment(
    const Model& model, std::span<const int32_t> prompt, const KvExperimentOptions& options,
    GenerationControl* control = nullptr,
    const std::function<void(bool kvCache, int64_t tokensDone)>& progress = {});

}  // namespace inferlens
