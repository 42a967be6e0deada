#include "evaluation/token_loss.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "generator.h"

namespace inferlens {

double TokenLoss::mean() const {
    return predictions > 0 ? totalNats / double(predictions) : 0;
}

double TokenLoss::perplexity() const {
    return std::exp(mean());
}

TokenLoss& TokenLoss::operator+=(const TokenLoss& other) {
    totalNats += other.totalNats;
    predictions += other.predictions;
    return *this;
}

namespace {

// −log softmax(logits)[target], in double so that long texts sum without drift.
double negativeLogLikelihood(std::span<const float> logits, int32_t target) {
    const float largest = *std::max_element(logits.begin(), logits.end());
    double sum = 0;
    for (const float logit : logits)
        sum += std::exp(double(logit) - double(largest));
    return std::log(sum) + double(largest) - double(logits[size_t(target)]);
}

}  // namespace

TokenLoss scoreTokens(Generator& generator, std::span<const int32_t> ids, size_t firstScored) {
    if (int64_t(ids.size()) > generator.contextSize())
        throw Error("a text of " + std::to_string(ids.size()) + " tokens does not fit in the " +
                    std::to_string(generator.contextSize()) + "-token context");
    // Prefill steps of a few tokens each, keeping the logits of every position: fast like a
    // prefill, with memory bounded by the chunk (ChatGLM2-6B: 64 × 65,024 floats = 16 MB).
    constexpr size_t kChunk = 64;
    const auto vocab = size_t(generator.config().vocabSize);
    std::vector<float> logits(kChunk * vocab);
    generator.reset();
    TokenLoss loss;
    const size_t scoredFrom = std::max<size_t>(firstScored, 1);
    for (size_t first = 0; first + 1 < ids.size(); first += kChunk) {
        const size_t count = std::min(kChunk, ids.size() - 1 - first);
        const std::span<float> rows(logits.data(), count * vocab);
        if (!generator.step(ids.subspan(first, count), rows))
            throw Error("scoring was cancelled");
        for (size_t row = 0; row < count; ++row) {
            const size_t predicted = first + row + 1;
            if (predicted < scoredFrom)
                continue;
            loss.totalNats +=
                negativeLogLikelihood(rows.subspan(row * vocab, vocab), ids[predicted]);
            ++loss.predictions;
        }
    }
    return loss;
}

}  // namespace inferlens
