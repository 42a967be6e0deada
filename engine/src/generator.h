#pragma once
// The autoregressive double loop. The outer loop runs over steps: one prefill step for the prompt,
// then one decode step per new token; inside every step the inner loop runs the step's tokens
// through all layers, then the final norm and LM head give the logits of the next token. With the
// KV cache on, a decode step runs only the new token; with it off, every step recomputes the whole
// sequence from scratch — slower, same logits. Probes are told about each step and layer;
// cancellation and pause are checked between layers.

#include <cstdint>
#include <memory>
#include <span>
#include <unordered_set>
#include <vector>

#include "backend/devices.h"
#include "backend/forward_backend.h"
#include "generation_control.h"
#include "probe.h"

namespace inferlens {

struct GeneratorOptions {
    int64_t contextSize = 0;  // tokens the cache holds; 0: the model's context, at most 4096
    bool useKvCache = true;
    int threads = 1;       // CPU threads for the matrix products; 0: one per hardware thread
    ComputeDevice device;  // where the forward passes run
    // The CPU's attention kernel (the GPU has its own kernels).
    AttentionKernel attention = AttentionKernel::Fused;
    // The CPU's KV cache: how it stores K/V, and a sliding window of `window` tokens after
    // `sinks` kept ones (window 0: none; then contextSize is the cache's capacity).
    KvType kvType = KvType::F32;
    int64_t window = 0;
    int64_t sinks = 0;
};

// The backend `options` ask for, running `model` (which must outlive it). Throws Error when the
// device is unavailable or the model does not fit there.
std::unique_ptr<ForwardBackend> makeForwardBackend(const Model& model,
                                                   const GeneratorOptions& options);

// The KV cache's capacity for a requested context size: 0 gives the model's context, at most
// 4096 tokens. Throws Error for a negative size or one beyond the model's context.
int64_t resolveContextSize(const ModelConfig& config, int64_t requested);
// The tokens the CPU's KV cache for `options` holds: the resolved context, or a sliding window's
// sinks + window. Throws Error for a window that is negative or beyond the model's context.
int64_t cacheCapacity(const ModelConfig& config, const GeneratorOptions& options);
// The rows it may allocate (what memory estimates count; kvCacheRowsAtMost).
int64_t cacheRowsAtMost(const ModelConfig& config, const GeneratorOptions& options);

struct Generation {
    std::vector<int32_t> tokens;  // the new tokens only
    FinishReason reason = FinishReason::MaxTokens;
};

// Picks the next token from the logits and the sequence so far: the sampler chain
// (sampling/sampler.h) or greedy.
class TokenChooser {
  public:
    virtual ~TokenChooser() = default;
    // `traced`: a probe wants this choice's SamplingTrace, to be read from lastTrace().
    virtual int32_t choose(std::span<const float> logits, std::span<const int32_t> history,
                           bool traced) = 0;
    virtual const SamplingTrace* lastTrace() const { return nullptr; }
    // Called once the prompt has run: the history's first `promptLength` tokens are the prompt, and
    // at most `maxNewTokens` will follow.
    virtual void begin(size_t /*promptLength*/, int64_t /*maxNewTokens*/) {}
    // Asked after each choice: true ends the generation there (a stop string appeared in its text),
    // with the chosen token kept.
    virtual bool stopRequested() const { return false; }
};

class GreedyChooser final : public TokenChooser {
  public:
    int32_t choose(std::span<const float> logits, std::span<const int32_t> history,
                   bool traced) override;
};

class Generator {
  public:
    // `probes` and `control` are optional and must outlive the generator.
    Generator(const Model& model, GeneratorOptions options = {}, ProbeSet* probes = nullptr,
              GenerationControl* control = nullptr);
    // Runs on a backend made elsewhere (a synthetic model on a GPU, or one kept across generations
    // because making it uploads the weights); options.contextSize, threads and device are the
    // backend's. Its cache is cleared: a generator starts from an empty sequence.
    Generator(std::shared_ptr<ForwardBackend> backend, bool useKvCache = true,
              ProbeSet* probes = nullptr, GenerationControl* control = nullptr);
    // Continues on `backend`'s cache instead of clearing it: `cachedHistory` are the tokens
    // whose K/V it holds (an earlier generator's history() there). Throws Error when their number
    // is not the cache's.
    Generator(std::shared_ptr<ForwardBackend> backend, std::vector<int32_t> cachedHistory,
              ProbeSet* probes = nullptr, GenerationControl* control = nullptr);

    const ModelConfig& config() const { return backend_->config(); }
    int64_t contextSize() const { return backend_->contextSize(); }
    int threadCount() const { return backend_->threadCount(); }
    int64_t tokenCount() const { return int64_t(history_.size()); }
    int64_t cachedTokens() const { return backend_->cachedTokens(); }
    // A sliding cache never fills up.
    bool contextFull() const { return slidingWindow() == 0 && tokenCount() >= contextSize(); }
    int64_t slidingWindow() const { return backend_->slidingWindow(); }  // ForwardBackend's
    KvCacheStats cacheStats() const { return backend_->cacheStats(); }
    const std::vector<int32_t>& history() const { return history_; }

    // One step of the outer loop: runs `tokens` at the next positions and writes the logits of the
    // last one (logits.size() == vocab) or of every one (tokens × vocab, row-major). Returns false
    // when cancelled (nothing of the step is kept). Throws Error if the tokens do not fit (with a
    // sliding cache: if they are more than its window).
    bool step(std::span<const int32_t> tokens, std::span<float> logits);
    // step() over tokens of any number: one step, or with a sliding cache as many steps of its
    // window as they need (cancelled between two, the steps that ran are kept). `logits` as for
    // step(): the last token's row, or one row per token.
    bool prefill(std::span<const int32_t> tokens, std::span<float> logits);
    // The whole outer loop: the prompt, then chosen tokens until one of `stopTokens`,
    // `maxNewTokens` new tokens, a full context, or cancellation. The last chosen token is
    // returned but not run (a following turn feeds it with its own tokens). The prompt runs by
    // prefill().
    Generation generate(std::span<const int32_t> prompt, int64_t maxNewTokens,
                        TokenChooser& chooser, const std::unordered_set<int32_t>& stopTokens);
    void reset();
    // Where a new turn starts from: keeps the longest common prefix of the history and `sequence`
    // (at most sequence.size() − 1 tokens, since the last one must run to give the next token's
    // logits), drops the rest of the history and its K/V rows, and returns the prefix's length.
    // The caller then runs sequence's remaining tokens: a chat re-renders the whole conversation
    // every turn, and only what is new since the last turn (or since an edited message) is
    // prefilled. The result is the same as a reset and a prefill of the whole sequence. (A sliding
    // cache that has evicted part of the prefix keeps nothing.)
    int64_t keepCommonPrefix(std::span<const int32_t> sequence);

  private:
    // The inner loop: tokens at firstPosition.. through every layer, then the LM head for the
    // last `logitRows` of them. Returns false when cancelled.
    bool runLayers(std::span<const int32_t> tokens, int64_t firstPosition, StepEvent& event,
                   std::span<float> logits, int64_t logitRows);
    Generation finish(Generation result, FinishReason reason);

    std::shared_ptr<ForwardBackend> backend_;
    bool useKvCache_;
    ProbeSet noProbes_;  // stands in when the caller has none, so probe points need no null check
    ProbeSet* probes_;
    GenerationControl* control_;
    std::vector<int32_t> history_;
    int64_t stepIndex_ = 0;
};

// Greedy choice: the index of the largest logit.
int32_t argmax(std::span<const float> logits);

}  // namespace inferlens
