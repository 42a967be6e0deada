#pragma once
// The engine-side half of the GUI: a Probe that turns engine events into the panels' plain data
// (widgets/panel_data.h) on the engine's thread and hands each snapshot to a callback, which the
// worker turns into a queued signal. Nothing here touches a widget.

#include <atomic>
#include <functional>
#include <vector>

#include "panel_data.h"
#include "probe.h"
#include "tokenizer/tokenizer.h"

namespace inferlens::gui {

struct ProbeSinks {
    std::function<void(std::vector<widgets::TokenChip>)> tokenized;
    std::function<void(widgets::AttentionMatrix)> attention;
    std::function<void(widgets::KvCachePoint)> kvCache;
    std::function<void(widgets::SamplingStep)> sampling;
    std::function<void(widgets::LoopTiming)> loopTiming;
};

class GuiProbe final : public Probe {
  public:
    GuiProbe(const Tokenizer& tokenizer, ProbeSinks sinks);

    // The head whose attention is captured at full resolution; read at the start of every step
    // (ProbeSet::refresh), so a new selection applies from the next token.
    void selectHead(int layer, int head);

    ProbeInterest interest() const override;
    void onTokenized(const TokenizationInfo& info) override;
    void onStepBegin(const StepEvent& event) override;
    void onLayerEnd(const LayerEvent& event) override;
    void onAttention(const AttentionEvent& event) override;
    void onKvCache(int64_t step, const KvCacheStats& stats) override;
    void onSampling(int64_t step, const SamplingTrace& trace) override;
    void onStepEnd(const StepEvent& event) override;

    // A chip for a generated token (its piece and the bytes it stands for).
    widgets::TokenChip chipFor(int32_t id, bool generated) const;

  private:
    const Tokenizer& tokenizer_;
    ProbeSinks sinks_;
    std::atomic<int> selectedLayer_{0};
    std::atomic<int> selectedHead_{0};
    widgets::LoopTiming timing_;
};

}  // namespace inferlens::gui
