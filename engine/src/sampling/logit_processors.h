#pragma once
// The logit processors: the stages of the sampler chain that act on tokens by identity or by the
// text they would add, whatever their probability. They run before the penalties and truncations,
// and the trace reports what each one masked (SamplingTrace::masked).
//
//   LogitBiasStage     adds a value to chosen tokens' logits; -inf bans a token, +inf forces it
//                      (with several forced, the choice is among them).
//   BannedTextStage    masks every token whose text would complete a banned string in the text
//                      generated so far, however the string is split into tokens: the check runs
//                      on bytes (a KMP automaton per string, advanced over the last bytes generated
//                      and then over each candidate's bytes), so "hello" is banned whether it would
//                      come as "▁hello", "▁hel" + "lo" or byte by byte. A prefix may appear; the
//                      token that would complete the string never does.
//   MinNewTokensStage  masks the tokens that end the turn until the generation has this many new
//                      tokens.
//
// A stage that would leave no token to choose throws Error naming itself.

#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "sampling/sampler_stages.h"

namespace inferlens {

// Cuts the candidates `masked` says yes to (CandidateSet::cutMasked), refusing with an Error naming
// `stage` to leave nothing to choose.
template <typename Predicate>
void maskOrRefuse(CandidateSet& candidates, SamplingStage stage, Predicate masked) {
    size_t survivors = 0;
    for (const Candidate& c : candidates.live())
        survivors += masked(c) ? 0 : 1;
    if (survivors == 0)
        throw Error(std::string("sampling: the ") + samplingStageName(stage) +
                    " stage masks every token: nothing is left to choose");
    candidates.cutMasked(masked);
}

class LogitBiasStage final : public SamplerStage {
  public:
    explicit LogitBiasStage(std::vector<std::pair<int32_t, float>> bias) : bias_(std::move(bias)) {}
    SamplingStage kind() const override { return SamplingStage::LogitBias; }
    void apply(CandidateSet& candidates, const SamplerContext& context) const override;

  private:
    std::vector<std::pair<int32_t, float>> bias_;
};

class BannedTextStage final : public SamplerStage {
  public:
    // Throws Error for an empty string.
    explicit BannedTextStage(const std::vector<std::string>& banned);
    SamplingStage kind() const override { return SamplingStage::BannedText; }
    // Needs context.tokenTexts (throws Error without them).
    void apply(CandidateSet& candidates, const SamplerContext& context) const override;

  private:
    struct Pattern {
        std::string text;
        std::vector<size_t> failure;  // KMP: longest proper border of text[0 .. i]
        size_t advance(size_t state, char byte) const;
    };
    std::vector<Pattern> patterns_;
};

class MinNewTokensStage final : public SamplerStage {
  public:
    explicit MinNewTokensStage(int32_t minimum) : minimum_(minimum) {}
    SamplingStage kind() const override { return SamplingStage::MinNewTokens; }
    void apply(CandidateSet& candidates, const SamplerContext& context) const override;

  private:
    int32_t minimum_;
};

}  // namespace inferlens
