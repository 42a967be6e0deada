#pragma once
// The engine-side half of the GUI: a Probe that turns engine events into the panels' plain data
// (widgets/panel_data.h) on the engine's thread and hands each snapshot to a callback, which the
// worker turns into a queued signal. Nothing here touches a widget.
//
// Attention capture policy, so that a 28-layer × 32-head model stays fluid at thousands of tokens:
// full matrices leave the engine only for the selected layer (every head: the heat map shows the
// selected one, the small multiples all of them, downsampled by the grid itself); every other head
// contributes one number per step to the layers × heads overview (its mean row entropy), computed
// here and never sent as a matrix. A step whose blocks would exceed the memory budget (a long
// prompt's prefill: heads × rows × keys floats per layer) captures only the selected head, and the
// overview says that it skipped the prompt; a prompt over the budget even for one head is not
// captured at all. What the heat map keeps across steps has its own budget (AttentionStore).

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "panel_data.h"
#include "probe.h"
#include "tokenizer/tokenizer.h"

namespace inferlens::gui {

// Most bytes one layer's captured attention blocks may hold in a step, live or recomputed (see the
// policy above).
inline constexpr int64_t kAttentionBudgetBytes = int64_t(256) << 20;

// The layers × heads overview after a step: mean row entropy (nats) of every head over the rows
// seen so far, row-major [layers, heads], NaN where no row was seen.
struct AttentionOverview {
    int layers = 0;
    int heads = 0;
    std::vector<float> meanEntropy;
    bool promptSkipped = false;  // the prefill was over the budget: only generated rows count
};

struct ProbeSinks {
    std::function<void(std::vector<widgets::TokenChip>)> tokenized;
    std::function<void(widgets::AttentionMatrix)> attention;
    std::function<void(widgets::KvCachePoint)> kvCache;
    std::function<void(widgets::SamplingStep)> sampling;
    std::function<void(widgets::LoopTiming)> loopTiming;
    std::function<void(AttentionOverview)> overview;
};

class GuiProbe final : public Probe {
  public:
    GuiProbe(const Tokenizer& tokenizer, int layers, int heads, ProbeSinks sinks);

    // The head whose attention is captured at full resolution; read at the start of every step
    // (ProbeSet::refresh), so a new selection applies from the next token.
    void selectHead(int layer, int head);
    // Tokens of the next sequence from this index on are marked as generated (a branch replays
    // the answer it departs from as part of its prompt).
    void setGeneratedFrom(size_t index) { generatedFrom_ = index; }

    ProbeInterest interest() const override;
    void onTokenized(const TokenizationInfo& info) override;
    void onStepBegin(const StepEvent& event) override;
    void onLayerEnd(const LayerEvent& event) override;
    void onAttention(const AttentionEvent& event) override;
    void onKvCache(int64_t step, const KvCacheStats& stats) override;
    void onSampling(int64_t step, const SamplingTrace& trace) override;
    void onStepEnd(const StepEvent& event) override;

    // Mean attention entropy (nats) over the heads captured in `layer` during the step now ending;
    // NaN when none was (read from the engine's thread, e.g. by the logit lens at step end).
    double stepAttentionEntropy(int layer) const;

    // A chip for a generated token (its piece and the bytes it stands for).
    widgets::TokenChip chipFor(int32_t id, bool generated) const;

  private:
    // Whether the next step's blocks of `heads` heads of one layer fit the budget.
    bool captureFits(int heads) const;

    const Tokenizer& tokenizer_;
    const int layers_, heads_;
    ProbeSinks sinks_;
    std::atomic<int> selectedLayer_{0};
    std::atomic<int> selectedHead_{0};
    widgets::LoopTiming timing_;
    int64_t positions_ = 0;     // tokens run so far in this generation
    int64_t nextStepRows_ = 1;  // tokens the next step runs (the prompt's length before prefill)
    std::vector<double> entropySum_;      // per (layer, head): summed row entropies
    std::vector<int64_t> rowsSeen_;       // per (layer, head)
    std::vector<double> stepEntropySum_;  // per layer, this step
    std::vector<int64_t> stepRows_;       // per layer, this step
    bool promptSkipped_ = false;
    size_t generatedFrom_ = SIZE_MAX;
    bool overviewChanged_ = false;
};

}  // namespace inferlens::gui
