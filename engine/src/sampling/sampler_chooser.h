#pragma once
// The sampler chain as the generator's TokenChooser, keeping the trace of its last choice.

#include "generator.h"
#include "sampling/sampler.h"
#include "sampling/sampling_trace.h"

namespace inferlens {

class SamplerChooser : public TokenChooser {
  public:
    explicit SamplerChooser(Sampler& sampler) : sampler_(sampler) {}
    int32_t choose(std::span<const float> logits, std::span<const int32_t> history,
                   bool traced) override {
        return sampler_.sample(logits, history, traced ? &trace_ : nullptr);
    }
    const SamplingTrace* lastTrace() const override { return &trace_; }
    void begin(size_t promptLength, int64_t maxNewTokens) override {
        sampler_.beginGeneration(promptLength, maxNewTokens);
    }

  private:
    Sampler& sampler_;
    SamplingTrace trace_;
};

}  // namespace inferlens
