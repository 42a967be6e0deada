#pragma once
// The sampler: turns one step's logits into the next token through the chain of stages in
// sampler_stages.h, with a seeded random number generator, and describes what it did in a
// SamplingTrace when asked.
//
// Only sampleable ids are ever candidates: the output layer may have padding rows with no piece
// (ChatGLM2: 65,024 logits for 64,798 tokens), given either as a count (ids below it are
// sampleable) or as a mask.
//
// Randomness: every step consumes exactly one uniform number, greedy steps included, so step n
// always uses the seed's n-th number whatever the parameters were; changing the parameters
// between steps keeps the generator's state (a new seed restarts it).

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sampling/candidate_set.h"
#include "sampling/random.h"
#include "sampling/sampler_stages.h"
#include "sampling/sampling_params.h"
#include "sampling/sampling_trace.h"

namespace inferlens {

class Sampler {
  public:
    // Ids [0, sampleableCount) are sampleable. Throws Error on invalid params.
    Sampler(const SamplingParams& params, int64_t sampleableCount);
    // Ids i with sampleable[i] are sampleable.
    Sampler(const SamplingParams& params, const std::vector<bool>& sampleable);

    const SamplingParams& params() const { return params_; }
    // Validates (throws Error, keeping the old params) and applies from the next step on. The
    // random state continues, unless the seed changed: then it restarts from the new seed.
    void setParams(const SamplingParams& params);
    // Restarts the random numbers from params().seed.
    void reseed() { random_.reseed(params_.seed); }

    // What the logit processors need to know beyond the logits: the bytes each id stands for
    // (banned text; Tokenizer::textsOfAll), the ids that end a turn (minimum new tokens), and where
    // this generation's new tokens begin in the history passed to sample().
    void setTokenTexts(std::shared_ptr<const std::vector<std::string>> texts) {
        tokenTexts_ = std::move(texts);
    }
    void setStopIds(std::vector<int32_t> ids) { stopIds_ = std::move(ids); }
    // `maxNewTokens` (-1: unknown) lets a grammar close its structures before the budget ends.
    void beginGeneration(size_t promptLength, int64_t maxNewTokens = -1) {
        promptLength_ = promptLength;
        maxNewTokens_ = maxNewTokens;
    }

    // Chooses the next token. `logits`: the output layer's row (at least the sampleable ids);
    // `history`: the sequence so far, for the penalties. Fills `trace` when given.
    int32_t sample(std::span<const float> logits, std::span<const int32_t> history,
                   SamplingTrace* trace = nullptr);

    // The trace that sample() would give with these params and this uniform draw in [0, 1), without
    // consuming randomness or changing the sampler: for re-shaping retained logits while paused
    // (pass the step's trace.draw to see which token the same draw would have picked).
    SamplingTrace preview(const SamplingParams& params, std::span<const float> logits,
                          std::span<const int32_t> history, double draw) const;

  private:
    int32_t run(const SamplingParams& params, const SamplerChain& chain,
                std::span<const float> logits, std::span<const int32_t> history, double draw,
                CandidateSet& candidates, SamplingTrace* trace) const;

    SamplerContext context(std::span<const int32_t> history) const {
        return {history, promptLength_, stopIds_, tokenTexts_.get(), maxNewTokens_};
    }

    SamplingParams params_;
    std::shared_ptr<const std::vector<std::string>> tokenTexts_;
    std::vector<int32_t> stopIds_;
    size_t promptLength_ = 0;
    int64_t maxNewTokens_ = -1;
    SamplerChain chain_;
    int64_t sampleableCount_;
    std::vector<uint8_t> mask_;  // empty: every id below sampleableCount_
    Random random_;
    CandidateSet candidates_;  // reused between steps: no vocabulary-sized allocation per token
};

}  // namespace inferlens
