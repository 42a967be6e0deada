#include "generator.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "attention_capture.h"
#include "backend/cpu/cpu_forward.h"
#include "backend/cuda_backend.h"
#include "core/error.h"

namespace inferlens {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

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

int64_t cacheCapacity(const ModelConfig& config, const GeneratorOptions& options) {
    if (options.window < 0 || options.sinks < 0 || (options.window == 0 && options.sinks > 0))
        throw Error("a sliding window needs a positive --window, and --sinks at least 0");
    if (options.window == 0)
        return resolveContextSize(config, options.contextSize);
    const int64_t cached = options.window + options.sinks;
    if (cached > config.contextLength)
        throw Error("a window of " + std::to_string(options.window) + " tokens after " +
                    std::to_string(options.sinks) + " sinks exceeds the model's context of " +
                    std::to_string(config.contextLength) + " tokens");
    return cached;
}

int64_t cacheRowsAtMost(const ModelConfig& config, const GeneratorOptions& options) {
    return kvCacheRowsAtMost(cacheCapacity(config, options),
                             {options.kvType, options.window > 0, options.sinks});
}

std::unique_ptr<ForwardBackend> makeForwardBackend(const Model& model,
                                                   const GeneratorOptions& options) {
    const int64_t context = cacheCapacity(model.config(), options);
    if (options.device.isCuda()) {
        if (options.kvType != KvType::F32 || options.window > 0)
            throw Error(
                "the GPU keeps an f32 KV cache without a sliding window; "
                "f16/int8 caches and windows run on the CPU");
        return makeCudaForward(model, options.device.index, context);
    }
    return std::make_unique<CpuForward>(
        model, context, options.threads, options.attention,
        KvCacheOptions{options.kvType, options.window > 0, options.sinks});
}

Generator::Generator(const Model& model, GeneratorOptions options, ProbeSet* probes,
                     GenerationControl* control)
    : Generator(makeForwardBackend(model, options), options.useKvCache, probes, control) {}

Generator::Generator(std::shared_ptr<ForwardBackend> backend, bool useKvCache, ProbeSet* probes,
                     GenerationControl* control)
    : backend_(std::move(backend)),
      useKvCache_(useKvCache),
      probes_(probes != nullptr ? probes : &noProbes_),
      control_(control) {
    if (!useKvCache && backend_->slidingWindow() > 0)
        throw Error("a sliding window needs the KV cache");
    backend_->clearCache();
}

Generator::Generator(std::shared_ptr<ForwardBackend> backend, std::vector<int32_t> cachedHistory,
                     ProbeSet* probes, GenerationControl* control)
    : backend_(std::move(backend)),
      useKvCache_(true),
      probes_(probes != nullptr ? probes : &noProbes_),
      control_(control),
      history_(std::move(cachedHistory)) {
    if (int64_t(history_.size()) != backend_->cachedTokens())
        throw Error("the KV cache holds " + std::to_string(backend_->cachedTokens()) +
                    " tokens, not the " + std::to_string(history_.size()) + " given");
}

bool Generator::step(std::span<const int32_t> tokens, std::span<float> logits) {
    const auto count = int64_t(tokens.size());
    const int64_t vocab = config().vocabSize;
    if (count == 0)
        throw Error("a step needs at least one token");
    const int64_t window = backend_->slidingWindow();
    if (window > 0 && count > window)
        throw Error("a step of " + std::to_string(count) +
                    " tokens does not fit the sliding window of " + std::to_string(window) +
                    " tokens");
    if (window == 0 && count > contextSize() - tokenCount())
        throw Error("the context is full: " + std::to_string(tokenCount()) + " of " +
                    std::to_string(contextSize()) + " tokens used, " + std::to_string(count) +
                    " more do not fit");
    if (int64_t(logits.size()) != vocab && int64_t(logits.size()) != count * vocab)
        throw Error("the logits buffer must hold one row or one row per token");
    probes_->refresh();

    // A later turn's new prompt tokens are a prefill too.
    StepEvent event{stepIndex_, tokenCount(), count,
                    stepIndex_ == 0 || count > 1 ? StepPhase::Prefill : StepPhase::Decode, 0};
    const auto start = Clock::now();
    probes_->stepBegin(event);

    const size_t kept = history_.size();
    history_.insert(history_.end(), tokens.begin(), tokens.end());
    const int64_t logitRows = int64_t(logits.size()) / vocab;
    bool completed;
    if (useKvCache_) {
        completed = runLayers(tokens, event.firstPosition, event, logits, logitRows);
    } else {
        // Without a cache nothing of earlier steps is kept: rerun the whole sequence.
        backend_->clearCache();
        completed = runLayers(history_, 0, event, logits, logitRows);
    }
    if (!completed) {
        history_.resize(kept);
        return false;
    }

    event.seconds = secondsSince(start);
    if (probes_->wantsKvCache())
        probes_->kvCacheStats(event.index, backend_->cacheStats());
    probes_->stepEnd(event);
    ++stepIndex_;
    return true;
}

bool Generator::prefill(std::span<const int32_t> tokens, std::span<float> logits) {
    const auto vocab = size_t(config().vocabSize);
    const bool everyRow = logits.size() == tokens.size() * vocab;  // else step() checks it
    const int64_t window = slidingWindow();
    const size_t chunk = window > 0 ? size_t(window) : tokens.size();
    for (size_t first = 0; first < tokens.size(); first += chunk) {
        const size_t count = std::min(chunk, tokens.size() - first);
        if (!step(tokens.subspan(first, count),
                  everyRow ? logits.subspan(first * vocab, count * vocab) : logits))
            return false;
    }
    return true;
}

bool Generator::runLayers(std::span<const int32_t> tokens, int64_t firstPosition, StepEvent& event,
                          std::span<float> logits, int64_t logitRows) {
    const ModelConfig& c = config();
    const auto count = int64_t(tokens.size());
    backend_->beginStep(tokens, firstPosition);

    std::optional<AttentionCapture> attention;
    if (probes_->anyAttention()) {
        const int64_t window = backend_->slidingWindow();
        attention.emplace(*probes_, event.index, firstPosition, count,
                          window > 0 ? backend_->cacheStats().sinkTokens : 0, window, &c);
    }
    for (int64_t layer = 0; layer < c.layerCount; ++layer) {
        if (control_ != nullptr && !control_->checkpoint())
            return false;
        const auto start = Clock::now();
        backend_->runLayer(layer, attention ? &*attention : nullptr);
        if (attention)
            attention->deliver(layer);
        if (probes_->wantsHiddenStates())
            probes_->hiddenState(
                {event.index, layer, firstPosition + count - 1, backend_->lastHidden()});
        if (probes_->wantsLayers()) {
            backend_->synchronize();
            probes_->layerEnd({event.index, layer, secondsSince(start)});
        }
    }
    backend_->finishStep(logits, logitRows);
    return true;
}

Generation Generator::generate(std::span<const int32_t> prompt, int64_t maxNewTokens,
                               TokenChooser& chooser,
                               const std::unordered_set<int32_t>& stopTokens) {
    if (prompt.empty())
        throw Error("the prompt has no tokens");
    Generation result;
    const int64_t window = backend_->slidingWindow();
    if (window == 0 && int64_t(prompt.size()) > contextSize() - tokenCount())
        return finish(std::move(result), FinishReason::ContextFull);
    std::vector<float> logits(size_t(config().vocabSize));
    if (!prefill(prompt, logits))
        return finish(std::move(result), FinishReason::Cancelled);
    chooser.begin(history_.size(), maxNewTokens);
    while (int64_t(result.tokens.size()) < maxNewTokens) {
        const bool traced = probes_->wantsSampling();
        const int32_t next = chooser.choose(logits, history_, traced);
        if (control_ != nullptr)
            control_->tokenChosen();
        if (traced && chooser.lastTrace() != nullptr)
            probes_->sampling(stepIndex_ - 1, *chooser.lastTrace());
        result.tokens.push_back(next);
        if (stopTokens.count(next))
            return finish(std::move(result), FinishReason::EndOfSequence);
        if (chooser.stopRequested())
            return finish(std::move(result), FinishReason::StopString);
        if (int64_t(result.tokens.size()) == maxNewTokens)
            break;  // the last token is returned, not run: nothing would read its logits
        if (contextFull())
            return finish(std::move(result), FinishReason::ContextFull);
        const int32_t token[] = {next};
        if (!step(token, logits))
            return finish(std::move(result), FinishReason::Cancelled);
    }
    return finish(std::move(result), FinishReason::MaxTokens);
}

Generation Generator::finish(Generation result, FinishReason reason) {
    result.reason = reason;
    probes_->finished({reason, int64_t(result.tokens.size())});
    return result;
}

int64_t Generator::keepCommonPrefix(std::span<const int32_t> sequence) {
    const size_t limit = std::min(history_.size(), sequence.empty() ? 0 : sequence.size() - 1);
    const size_t kept = size_t(
        std::mismatch(history_.begin(), history_.begin() + ptrdiff_t(limit), sequence.begin())
            .first -
        history_.begin());
    const int64_t keptHere = useKvCache_ ? backend_->truncateCache(int64_t(kept)) : int64_t(kept);
    history_.resize(size_t(keptHere));
    return keptHere;
}

void Generator::reset() {
    backend_->clearCache();
    history_.clear();
    stepIndex_ = 0;
}

int32_t GreedyChooser::choose(std::span<const float> logits, std::span<const int32_t>, bool) {
    return argmax(logits);
}

int32_t argmax(std::span<const float> logits) {
    return int32_t(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

}  // namespace inferlens
