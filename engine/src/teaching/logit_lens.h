#pragma once
// The logit lens: what the model would predict if it stopped after layer l — the final RMSNorm
// and the LM head applied to that layer's hidden state (the residual stream) of the step's last
// token — for every layer, as the top tokens with their probabilities. A probe: it asks the engine
// for the hidden states (ProbeInterest::hiddenStates) and costs one LM-head product per layer, so
// the GUI turns it on only while its panel is shown.

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "models/model.h"
#include "probe.h"

namespace inferlens {

struct LensRow {
    int64_t layer = 0;
    std::vector<int32_t> ids;          // the top tokens, most probable first
    std::vector<float> probabilities;  // softmax over the whole vocabulary
    double residualNorm = 0;           // ‖hidden state‖₂ after this layer
};

struct LensStep {
    int64_t step = 0;           // the outer loop's step (0: the prefill)
    int64_t position = 0;       // the token whose hidden states these are (the step's last)
    std::vector<LensRow> rows;  // one per layer, in order
};

// Softmax(LM head(final norm(hidden))) over the vocabulary: the lens's distribution for one
// hidden state of size hiddenSize.
std::vector<float> lensDistribution(const Model& model, std::span<const float> hidden);

class LogitLens final : public Probe {
  public:
    // `sink` receives the step's rows so far after each layer (on the engine's thread): a step's
    // rows grow one layer at a time, and its last call holds every layer.
    // `sampleableCount` > 0: only ids below it count (the output layer's padding rows past the
    // tokenizer's pieces are never sampled), so that the last layer's row equals the sampler's
    // raw distribution; 0: the whole output layer.
    LogitLens(const Model& model, int topK, std::function<void(LensStep)> sink,
              int64_t sampleableCount = 0);

    ProbeInterest interest() const override;
    void onStepBegin(const StepEvent& event) override;
    void onHiddenState(const HiddenStateEvent& event) override;
    void onStepEnd(const StepEvent& event) override;

  private:
    const Model& model_;
    int topK_;
    std::function<void(LensStep)> sink_;
    LensStep current_;
    ForwardScratch scratch_;            // its own: the generator's is in use while the probe runs
    std::vector<float> probabilities_;  // [vocab]
    std::vector<int32_t> order_;        // [vocab]: token ids, the top-k sorted to the front
};

}  // namespace inferlens
