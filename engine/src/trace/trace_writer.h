#pragma once
// A probe that writes every event it asks for as one JSON object per line.

#include <cstdio>
#include <functional>

#include "probe.h"

namespace inferlens {

class Tokenizer;

class TraceWriter final : public Probe {
  public:
    // `attention`: which (layer, head) blocks to write; empty for none. With a `tokenizer` (which
    // must outlive the writer), sampling events also carry the pieces of their tokens, so that a
    // replay can show them without the model.
    TraceWriter(std::FILE* out, std::function<bool(int64_t, int64_t)> attention,
                const Tokenizer* tokenizer = nullptr);

    ProbeInterest interest() const override;
    void onTokenized(const TokenizationInfo& info) override;
    void onStepBegin(const StepEvent& step) override;
    void onLayerEnd(const LayerEvent& layer) override;
    void onAttention(const AttentionEvent& attention) override;
    void onKvCache(int64_t step, const KvCacheStats& stats) override;
    void onSampling(int64_t step, const SamplingTrace& trace) override;
    void onStepEnd(const StepEvent& step) override;
    void onFinished(const FinishedEvent& finished) override;

  private:
    void writeLine(const std::string& line);

    std::FILE* out_;
    std::function<bool(int64_t, int64_t)> attention_;
    const Tokenizer* tokenizer_;
};

}  // namespace inferlens
