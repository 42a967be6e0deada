#include "generator.h"

#include <algorithm>

#include "core/error.h"

namespace inferlens {
namespace {

int64_t resolveContextSize(const ModelConfig& config, int64_t requested) {
    if (requested < 0)
        throw Error("context size must be positive, got " + std::to_string(requested));
    if (requested == 0)
        return std::min<int64_t>(config.contextLength, 4096);
    if (requested > config.contextLength)
        throw Error("context size " + std::to_string(requested) + " exceeds the model's context " +
                    std::to_string(config.contextLength));
    return requested;
}

}  // namespace

Generator::Generator(const Model& model, GeneratorOptions options)
    : model_(model),
      options_(options),
      cache_(model.config().layerCount, model.config().kvHeadCount, model.config().headCount,
             model.config().headDim, resolveContextSize(model.config(), options.contextSize)),
      scratch_(model.config()),
      residual_(model.config().hiddenSize) {}

void Generator::runToken(int32_t token, int64_t position, std::span<float> logits) {
    model_.embed(token, residual_);
    for (int64_t layer = 0; layer < model_.config().layerCount; ++layer)
        model_.forwardLayer(layer, position, residual_, cache_, scratch_);
    cache_.commitToken();
    if (!logits.empty())
        model_.computeLogits(residual_, logits, scratch_);
}

void Generator::step(int32_t token, std::span<float> logits) {
    if (contextFull())
        throw Error("the context is full (" + std::to_string(contextSize()) + " tokens)");
    history_.push_back(token);
    if (options_.useKvCache) {
        runToken(token, tokenCount() - 1, logits);
        return;
    }
    // Without a cache nothing of earlier steps is kept: rerun the whole sequence.
    cache_.clear();
    for (int64_t position = 0; position < tokenCount(); ++position) {
        const bool last = position + 1 == tokenCount();
        runToken(history_[position], position, last ? logits : std::span<float>{});
    }
}

Generation Generator::generate(std::span<const int32_t> prompt, int64_t maxNewTokens,
                               const TokenChooser& choose,
                               const std::unordered_set<int32_t>& stopTokens) {
    if (prompt.empty())
        throw Error("the prompt has no tokens");
    Generation result;
    std::vector<float> logits(model_.config().vocabSize);
    for (int32_t token : prompt) {
        if (contextFull()) {
            result.reason = FinishReason::ContextFull;
            return result;
        }
        step(token, logits);
    }
    while (int64_t(result.tokens.size()) < maxNewTokens) {
        const int32_t next = choose(logits);
        result.tokens.push_back(next);
        if (stopTokens.count(next)) {
            result.reason = FinishReason::EndOfSequence;
            return result;
        }
        if (contextFull()) {
            result.reason = FinishReason::ContextFull;
            return result;
        }
        step(next, logits);
    }
    result.reason = FinishReason::MaxTokens;
    return result;
}

void Generator::reset() {
    cache_.clear();
    history_.clear();
}

int32_t argmax(std::span<const float> logits) {
    return int32_t(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

}  // namespace inferlens
