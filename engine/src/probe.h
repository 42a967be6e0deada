#pragma once
// The observer API through which the GUI, `inferlens-cli trace` and the tests watch a generation
// (DESIGN.md §3). The engine calls probes from the thread that runs it. A subscriber declares what
// it wants (ProbeInterest); the engine computes only that — with no subscriber, each probe point is
// one branch on a flag.

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "kv_cache.h"

namespace inferlens {

struct TokenizationInfo;  // tokenizer/tokenizer.h
struct SamplingTrace;     // sampling/sampling_trace.h

// The outer loop's steps: one prefill step runs the whole prompt, then one decode step per token.
enum class StepPhase { Prefill, Decode };

enum class FinishReason { EndOfSequence, MaxTokens, ContextFull, Cancelled, StopString };
const char* finishReasonName(FinishReason reason);

struct StepEvent {
    int64_t index = 0;          // 0 for the prefill, then 1, 2, ... for each decoded token
    int64_t firstPosition = 0;  // position of the step's first token in the sequence
    int64_t tokenCount = 0;     // tokens run in this step (the prompt length, or 1)
    StepPhase phase = StepPhase::Prefill;
    double seconds = 0;  // onStepEnd only: wall time of the step, sampling included
};

struct LayerEvent {
    int64_t step = 0;
    int64_t layer = 0;
    double seconds = 0;  // this layer, for all of the step's tokens
};

// Attention weights of one head of one layer for the step's query rows: weights is row-major
// [queryCount, keyCount] with keyCount = firstQuery + queryCount; row i holds the weights of the
// query at position firstQuery + i over keys 0 .. firstQuery + i, and zeros after (the causal
// mask). A prefill delivers the lower-triangular block; a decode step one row.
struct AttentionEvent {
    int64_t step = 0;
    int64_t layer = 0;
    int64_t head = 0;
    int64_t firstQuery = 0;
    int64_t queryCount = 0;
    int64_t keyCount = 0;
    std::span<const float> weights;
    // A sliding KV cache (windowTokens > 0): the query at position p saw the keys before
    // sinkTokens and those from p − windowTokens + 1 on; the others were evicted or masked, and
    // their weights are 0.
    int64_t sinkTokens = 0;
    int64_t windowTokens = 0;
    // A local layer's own window (Gemma 3's sliding-window layers; layerWindowTokens > 0): the
    // query at position p saw only keys p − layerWindowTokens + 1 .. p; the earlier ones lie
    // outside this layer's window (weight 0), whatever the cache holds.
    int64_t layerWindowTokens = 0;
};

// The residual stream of the step's last token after `layer` has run: what the logit lens reads.
// `hidden` has hiddenSize values and is valid only during the call.
struct HiddenStateEvent {
    int64_t step = 0;
    int64_t layer = 0;
    int64_t position = 0;  // the token's position in the sequence
    std::span<const float> hidden;
};

struct FinishedEvent {
    FinishReason reason = FinishReason::MaxTokens;
    int64_t generatedTokens = 0;
};

struct ProbeInterest {
    bool tokenization = false;
    bool steps = false;  // onStepBegin / onStepEnd
    bool layers = false;
    bool kvCache = false;
    bool sampling = false;
    bool finished = false;
    bool hiddenStates = false;  // onHiddenState after every layer
    // Which (layer, head) attention blocks to deliver; empty: none.
    std::function<bool(int64_t layer, int64_t head)> attention;
};

class Probe {
  public:
    virtual ~Probe() = default;
    virtual ProbeInterest interest() const = 0;
    virtual void onTokenized(const TokenizationInfo&) {}
    virtual void onStepBegin(const StepEvent&) {}
    virtual void onLayerEnd(const LayerEvent&) {}
    virtual void onAttention(const AttentionEvent&) {}
    virtual void onHiddenState(const HiddenStateEvent&) {}
    virtual void onKvCache(int64_t /*step*/, const KvCacheStats&) {}
    virtual void onSampling(int64_t /*step*/, const SamplingTrace&) {}
    virtual void onStepEnd(const StepEvent&) {}
    virtual void onFinished(const FinishedEvent&) {}
};

// Fan-out to several probes, with the union of their interests cached in plain flags so that the
// engine's probe points are single branches.
class ProbeSet {
  public:
    void add(Probe* probe);
    void remove(Probe* probe);
    // Re-reads every probe's interest (the engine calls it at the start of each step, so that a
    // subscriber may change what it wants between steps, e.g. the layer shown in the GUI).
    void refresh();

    bool wantsTokenization() const { return wants_.tokenization; }
    bool wantsSteps() const { return wants_.steps; }
    bool wantsLayers() const { return wants_.layers; }
    bool wantsKvCache() const { return wants_.kvCache; }
    bool wantsSampling() const { return wants_.sampling; }
    bool wantsFinished() const { return wants_.finished; }
    bool wantsHiddenStates() const { return wants_.hiddenStates; }
    bool anyAttention() const { return anyAttention_; }
    bool wantsAttention(int64_t layer, int64_t head) const;

    // Each event goes to the probes that want it; with none, each call is one branch.
    void tokenized(const TokenizationInfo& info) const {
        if (wants_.tokenization)
            each(&ProbeInterest::tokenization, [&](Probe& p) { p.onTokenized(info); });
    }
    void stepBegin(const StepEvent& event) const {
        if (wants_.steps)
            each(&ProbeInterest::steps, [&](Probe& p) { p.onStepBegin(event); });
    }
    void layerEnd(const LayerEvent& event) const {
        if (wants_.layers)
            each(&ProbeInterest::layers, [&](Probe& p) { p.onLayerEnd(event); });
    }
    void attention(const AttentionEvent& event) const;
    void hiddenState(const HiddenStateEvent& event) const {
        if (wants_.hiddenStates)
            each(&ProbeInterest::hiddenStates, [&](Probe& p) { p.onHiddenState(event); });
    }
    // Callers check wantsKvCache() first, so that the statistics are only gathered when wanted.
    void kvCacheStats(int64_t step, const KvCacheStats& stats) const {
        each(&ProbeInterest::kvCache, [&](Probe& p) { p.onKvCache(step, stats); });
    }
    void sampling(int64_t step, const SamplingTrace& trace) const {
        if (wants_.sampling)
            each(&ProbeInterest::sampling, [&](Probe& p) { p.onSampling(step, trace); });
    }
    void stepEnd(const StepEvent& event) const {
        if (wants_.steps)
            each(&ProbeInterest::steps, [&](Probe& p) { p.onStepEnd(event); });
    }
    void finished(const FinishedEvent& event) const {
        if (wants_.finished)
            each(&ProbeInterest::finished, [&](Probe& p) { p.onFinished(event); });
    }

  private:
    template <typename Deliver>
    void each(bool ProbeInterest::*wanted, Deliver deliver) const {
        for (size_t i = 0; i < probes_.size(); ++i)
            if (interests_[i].*wanted)
                deliver(*probes_[i]);
    }

    std::vector<Probe*> probes_;
    std::vector<ProbeInterest> interests_;
    ProbeInterest wants_;
    bool anyAttention_ = false;
};

}  // namespace inferlens
