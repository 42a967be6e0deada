#pragma once
// The units of the sampler chain. Each one reshapes the logits of a CandidateSet or cuts
// candidates from it, knows only its own knobs, and does nothing at its neutral value. The chain
// runs them in SamplingStage order — the logit processors (logit_processors.h), penalties,
// temperature, top-k, top-p, min-p — and then draws. Each truncation stage sees the distribution
// renormalised over what the previous one kept.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sampling/candidate_set.h"
#include "sampling/sampling_params.h"
#include "sampling/sampling_trace.h"

namespace inferlens {

// What a stage may look at besides the candidates.
struct SamplerContext {
    std::span<const int32_t> history;  // the whole sequence so far: prompt and generated tokens
    size_t promptLength = 0;           // history[promptLength ..] is this generation's new text
    std::span<const int32_t> stopIds;  // the tokens that end the turn
    const std::vector<std::string>* tokenTexts = nullptr;  // the bytes of each id, when known
    int64_t maxNewTokens = -1;  // the generation's budget of new tokens; -1: unknown

    int64_t newTokens() const {
        return int64_t(history.size()) - int64_t(std::min(promptLength, history.size()));
    }
    // Tokens that may still be chosen, this one included; -1: no budget known.
    int64_t tokensLeft() const { return maxNewTokens < 0 ? -1 : maxNewTokens - newTokens(); }
};

class SamplerStage {
  public:
    virtual ~SamplerStage() = default;
    virtual SamplingStage kind() const = 0;
    virtual void apply(CandidateSet& candidates, const SamplerContext& context) const = 0;
};

// Repetition, frequency and presence penalties over the tokens in the window: the last `lastN`
// tokens of the history (0: off, -1: all of it). For a token seen `count` times there:
//   repetition (CTRL, Keskar et al. 2019, as llama.cpp applies it): logit > 0 ? logit / r
//       : logit · r, once per distinct token however often it occurs;
//   frequency and presence (as OpenAI documents them): logit -= count · f + (count > 0) · p.
// Tokens of the history that are not candidates (padding, out of range) are ignored.
class PenaltyStage final : public SamplerStage {
  public:
    PenaltyStage(float repetition, float frequency, float presence, int32_t lastN)
        : repetition_(repetition), frequency_(frequency), presence_(presence), lastN_(lastN) {}
    SamplingStage kind() const override { return SamplingStage::Penalties; }
    void apply(CandidateSet& candidates, const SamplerContext& context) const override;

  private:
    float penalise(float logit, int64_t count) const;

    float repetition_, frequency_, presence_;
    int32_t lastN_;
};

// Divides the logits by T: T < 1 sharpens, T > 1 flattens. T = 0 is the limit T → 0, which keeps
// only the best candidate (greedy).
class TemperatureStage final : public SamplerStage {
  public:
    explicit TemperatureStage(float temperature) : temperature_(temperature) {}
    SamplingStage kind() const override { return SamplingStage::Temperature; }
    void apply(CandidateSet& candidates, const SamplerContext& context) const override;

  private:
    float temperature_;
};

// Keeps the k best (0: off); ties go to the lower id, so exactly k are kept.
class TopKStage final : public SamplerStage {
  public:
    explicit TopKStage(int32_t k) : k_(k) {}
    SamplingStage kind() const override { return SamplingStage::TopK; }
    void apply(CandidateSet& candidates, const SamplerContext& context) const override;

  private:
    int32_t k_;
};

// Nucleus sampling (Holtzman et al. 2019): keeps the smallest set of best candidates whose
// probabilities sum to at least p (1: off), never fewer than one. Among tied candidates at the
// boundary the lower ids are taken first, so the set is the smallest and well defined.
class TopPStage final : public SamplerStage {
  public:
    explicit TopPStage(float p) : p_(p) {}
    SamplingStage kind() const override { return SamplingStage::TopP; }
    void apply(CandidateSet& candidates, const SamplerContext& context) const override;

  private:
    float p_;
};

// Keeps the candidates whose probability is at least p times the best one's (0: off). Compared
// in logits: p_i ≥ p·p_max ⇔ logit_i ≥ logit_max + ln p, so no softmax is needed; ties at the
// threshold are all kept.
class MinPStage final : public SamplerStage {
  public:
    explicit MinPStage(float p) : p_(p) {}
    SamplingStage kind() const override { return SamplingStage::MinP; }
    void apply(CandidateSet& candidates, const SamplerContext& context) const override;

  private:
    float p_;
};

// Boundaries of top-p and min-p are met within this much (a probability, or a logit difference):
// "reaching 0.8" must not depend on whether 0.5 + 0.3 rounds to 0.79999995 in floats.
inline constexpr double kBoundaryTolerance = 1e-6;

using SamplerChain = std::vector<std::unique_ptr<SamplerStage>>;
// Every stage, in SamplingStage order (a stage whose knob is neutral does nothing).
SamplerChain makeSamplerChain(const SamplingParams& params);

// The draw: walks the live candidates best first, adding up their probabilities, and returns the
// position of the first at which the sum exceeds `uniform` (in [0, 1)). Candidates of zero
// probability are never returned.
size_t drawIndex(CandidateSet& candidates, double uniform);

}  // namespace inferlens
