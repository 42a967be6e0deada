#pragma once
// What a lossy KV cache (f16, int8, a sliding window) does to one step's next-token distribution:
// the step's logits are recomputed with an exact cache (f32, every position kept) in a shadow run
// of the same tokens, and the two softmax distributions are compared. The sampling panel asks for
// it on demand, since the shadow run costs a prefill of the whole sequence.

#include <cstdint>
#include <optional>
#include <span>

#include "backend/cpu/fused_attention.h"

namespace inferlens {

class GenerationControl;
class Model;

// KL(P‖Q) in nats, P = softmax(reference), Q = softmax(test): what is lost by using Q where P
// is right. Computed in double precision; throws Error when the rows differ in length.
double klDivergence(std::span<const float> referenceLogits, std::span<const float> testLogits);

struct CacheComparison {
    double klDivergence = 0;       // KL(exact ‖ this cache), nats
    double largestDifference = 0;  // max over tokens of |P − Q|
    int32_t exactTop = -1;         // the most likely token with each cache
    int32_t testTop = -1;
};

// Runs `history` on the CPU with an f32 cache holding every position and compares its logits of
// the last token with `logits` (those of the same step with the cache in use). Returns nullopt
// when `control` cancels the shadow run.
std::optional<CacheComparison> compareWithExactCache(const Model& model,
                                                     std::span<const int32_t> history,
                                                     std::span<const float> logits,
                                                     AttentionKernel kernel, int threads,
                                                     GenerationControl* control = nullptr);

}  // namespace inferlens
