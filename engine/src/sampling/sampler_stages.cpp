#include "sampling/sampler_stages.h"

#include <algorithm>
#include <cmath>

#include "grammar/grammar_stage.h"
#include "sampling/logit_processors.h"

namespace inferlens {
namespace {

// Top-p and the draw walk the candidates best first, sorting as they go: 64 first (the mass of a
// language model's distribution usually sits in a few dozen tokens), then four times as many
// each time, so that a flat distribution costs a few selections rather than a dozen.
constexpr size_t kFirstSortChunk = 64;

void extendSorted(CandidateSet& candidates, size_t needed) {
    if (needed > candidates.sortedSize())
        candidates.sortPrefix(std::max({needed, kFirstSortChunk, 4 * candidates.sortedSize()}));
}

}  // namespace

float PenaltyStage::penalise(float logit, int64_t count) const {
    if (count <= 0)
        return logit;
    logit = logit > 0 ? logit / repetition_ : logit * repetition_;
    return logit - float(count) * frequency_ - presence_;
}

void PenaltyStage::apply(CandidateSet& candidates, const SamplerContext& context) const {
    const bool neutral = repetition_ == 1 && frequency_ == 0 && presence_ == 0;
    if (neutral || lastN_ == 0 || context.history.empty())
        return;
    const size_t window =
        lastN_ < 0 ? context.history.size() : std::min(context.history.size(), size_t(lastN_));
    // Count by sorting a copy of the window: it is short, and no vocabulary-sized table is needed.
    std::vector<int32_t> tokens(context.history.end() - ptrdiff_t(window), context.history.end());
    std::sort(tokens.begin(), tokens.end());
    for (size_t i = 0; i < tokens.size();) {
        size_t j = i;
        while (j < tokens.size() && tokens[j] == tokens[i])
            ++j;
        if (Candidate* candidate = candidates.find(tokens[i]))
            candidate->logit = penalise(candidate->logit, int64_t(j - i));
        i = j;
    }
    candidates.logitsChanged();
}

void TemperatureStage::apply(CandidateSet& candidates, const SamplerContext&) const {
    if (temperature_ <= 0) {
        candidates.keepBest(1);
        return;
    }
    if (temperature_ == 1)
        return;
    for (Candidate& candidate : candidates.live())
        candidate.logit /= temperature_;
    candidates.logitsChanged();
}

void TopKStage::apply(CandidateSet& candidates, const SamplerContext&) const {
    if (k_ > 0)
        candidates.keepBest(size_t(k_));
}

void TopPStage::apply(CandidateSet& candidates, const SamplerContext&) const {
    if (p_ >= 1)
        return;
    const Softmax softmax = candidates.softmax();
    const double target = double(p_) - kBoundaryTolerance;
    double cumulative = 0;
    size_t kept = 0;
    while (kept < candidates.size() && cumulative < target) {
        extendSorted(candidates, kept + 1);
        cumulative += softmax.probability(candidates.live()[kept].logit);
        ++kept;
    }
    candidates.keepBest(std::max<size_t>(kept, 1));
}

void MinPStage::apply(CandidateSet& candidates, const SamplerContext&) const {
    if (p_ <= 0)
        return;
    const double threshold =
        double(candidates.softmax().maxLogit) + std::log(double(p_)) - kBoundaryTolerance;
    candidates.keepAtLeast(threshold);
}

SamplerChain makeSamplerChain(const SamplingParams& params) {
    SamplerChain chain;
    chain.push_back(std::make_unique<LogitBiasStage>(params.logitBias));
    chain.push_back(std::make_unique<BannedTextStage>(params.bannedTexts));
    chain.push_back(std::make_unique<MinNewTokensStage>(params.minNewTokens));
    chain.push_back(std::make_unique<GrammarStage>(params.grammar));
    chain.push_back(std::make_unique<PenaltyStage>(params.repetitionPenalty,
                                                   params.frequencyPenalty, params.presencePenalty,
                                                   params.penaltyLastN));
    chain.push_back(std::make_unique<TemperatureStage>(params.temperature));
    chain.push_back(std::make_unique<TopKStage>(params.topK));
    chain.push_back(std::make_unique<TopPStage>(params.topP));
    chain.push_back(std::make_unique<MinPStage>(params.minP));
    return chain;
}

size_t drawIndex(CandidateSet& candidates, double uniform) {
    const Softmax softmax = candidates.softmax();
    double cumulative = 0;
    size_t lastPossible = 0;
    for (size_t i = 0; i < candidates.size(); ++i) {
        extendSorted(candidates, i + 1);
        const double p = softmax.probability(candidates.live()[i].logit);
        if (p == 0)  // best first, so all that follow are impossible too
            break;
        lastPossible = i;
        cumulative += p;
        if (uniform < cumulative)
            return i;
    }
    // Rounding left the sum a hair below 1 and the draw above it: the last possible candidate.
    return lastPossible;
}

}  // namespace inferlens
