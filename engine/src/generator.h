#pragma once
// The autoregressive double loop. The outer loop runs over tokens (the prompt, then each new
// token); for every token the inner loop runs it through all layers, then the final norm and LM
// head give the logits of the next token. With the KV cache on, each step runs only the new token;
// with it off, each step recomputes the whole sequence from scratch — slower, same logits.

#include <cstdint>
#include <functional>
#include <span>
#include <unordered_set>
#include <vector>

#include "kv_cache.h"
#include "models/model.h"

namespace inferlens {

struct GeneratorOptions {
    int64_t contextSize = 0;  // tokens the cache holds; 0: the model's context, at most 4096
    bool useKvCache = true;
};

enum class FinishReason { EndOfSequence, MaxTokens, ContextFull };

struct Generation {
    std::vector<int32_t> tokens;  // the new tokens only
    FinishReason reason = FinishReason::MaxTokens;
};

// Picks the next token from the logits (greedy, or the sampler chain).
using TokenChooser = std::function<int32_t(std::span<const float> logits)>;

class Generator {
  public:
    Generator(const Model& model, GeneratorOptions options = {});

    int64_t contextSize() const { return cache_.capacity(); }
    int64_t tokenCount() const { return int64_t(history_.size()); }
    bool contextFull() const { return tokenCount() >= contextSize(); }
    const KvCache& cache() const { return cache_; }

    // Appends `token` at the next position and writes the logits of the token after it. Throws
    // Error when the context is full (check contextFull() first).
    void step(int32_t token, std::span<float> logits);
    // The outer loop: feeds the prompt, then chooses and feeds new tokens until one of
    // `stopTokens`, `maxNewTokens` new tokens, or a full context.
    Generation generate(std::span<const int32_t> prompt, int64_t maxNewTokens,
                        const TokenChooser& choose, const std::unordered_set<int32_t>& stopTokens);
    void reset();

  private:
    // The inner loop: one token through every layer, then (if logits is not empty) the LM head.
    void runToken(int32_t token, int64_t position, std::span<float> logits);

    const Model& model_;
    GeneratorOptions options_;
    KvCache cache_;
    ForwardScratch scratch_;
    std::vector<float> residual_;  // [H]: the residual stream of the token being run
    std::vector<int32_t> history_;
};

int32_t argmax(std::span<const float> logits);

}  // namespace inferlens
