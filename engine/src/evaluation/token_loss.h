#pragma once
// How well a model predicts a text: the mean next-token cross-entropy (nats per token) and its
// perplexity. This is the figure a training run reports as its loss, so the bundled model's card
// can be checked against the engine.

#include <cstdint>
#include <span>

namespace inferlens {

class Generator;

struct TokenLoss {
    double totalNats = 0;
    int64_t predictions = 0;

    double mean() const;        // nats per predicted token
    double perplexity() const;  // exp(mean)
    TokenLoss& operator+=(const TokenLoss& other);
};

// Runs `ids` through a reset `generator` one token at a time; the logits after ids[i] are scored
// against ids[i + 1] for every i + 1 >= firstScored (so firstScored = the prefix length skips the
// predictions of the prefix itself). Throws Error when `ids` do not fit in the context.
TokenLoss scoreTokens(Generator& generator, std::span<const int32_t> ids, size_t firstScored);

}  // namespace inferlens
