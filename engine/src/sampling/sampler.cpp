#include "sampling/sampler.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "core/error.h"

namespace inferlens {

Sampler::Sampler(const SamplingParams& params, int64_t sampleableCount)
    : params_(params), sampleableCount_(sampleableCount), random_(params.seed) {
    validate(params_);
    if (sampleableCount < 1)
        throw Error("sampler: at least one token must be sampleable, got " +
                    std::to_string(sampleableCount));
    chain_ = makeSamplerChain(params_);
}

Sampler::Sampler(const SamplingParams& params, const std::vector<bool>& sampleable)
    : Sampler(params, int64_t(sampleable.size())) {
    if (std::find(sampleable.begin(), sampleable.end(), true) == sampleable.end())
        throw Error("sampler: the mask leaves no token sampleable");
    mask_.assign(sampleable.begin(), sampleable.end());
}

void Sampler::setParams(const SamplingParams& params) {
    validate(params);
    if (params.seed != params_.seed)
        random_.reseed(params.seed);
    params_ = params;
    chain_ = makeSamplerChain(params_);
}

int32_t Sampler::sample(std::span<const float> logits, std::span<const int32_t> history,
                        SamplingTrace* trace) {
    const double draw = random_.nextDouble();
    return run(params_, chain_, logits, history, draw, candidates_, trace);
}

SamplingTrace Sampler::preview(const SamplingParams& params, std::span<const float> logits,
                               std::span<const int32_t> history, double draw) const {
    validate(params);
    if (!(draw >= 0 && draw < 1))
        throw Error("sampler: a draw must be in [0, 1), got " + std::to_string(draw));
    CandidateSet candidates;
    SamplingTrace trace;
    run(params, makeSamplerChain(params), logits, history, draw, candidates, &trace);
    return trace;
}

int32_t Sampler::run(const SamplingParams& params, const SamplerChain& chain,
                     std::span<const float> logits, std::span<const int32_t> history, double draw,
                     CandidateSet& candidates, SamplingTrace* trace) const {
    candidates.assign(logits, sampleableCount_, mask_);
    const SamplerContext context = this->context(history);
    if (trace == nullptr) {
        for (const auto& stage : chain)
            stage->apply(candidates, context);
        return candidates.live()[drawIndex(candidates, draw)].id;
    }

    // Traced: the softmax summary after every stage gives any candidate's probability there
    // without storing per-stage arrays; penalised logits are kept for the rows.
    std::array<Softmax, kSamplingStageCount> softmax;
    std::array<int64_t, kSamplingStageCount> kept{};
    std::vector<float> processed, penalised;  // logits after the processors, after the penalties
    std::vector<MaskedCandidate> masked;
    softmax[0] = candidates.softmax();
    kept[0] = int64_t(candidates.size());
    for (const auto& stage : chain) {
        const size_t before = candidates.size();
        stage->apply(candidates, context);
        const auto s = size_t(stage->kind());
        softmax[s] = candidates.softmax();
        kept[s] = int64_t(candidates.size());
        if (isMaskingStage(stage->kind()))
            for (const Candidate& c : candidates.cutSince(before))
                masked.push_back({c.id, logits[size_t(c.id)], stage->kind()});
        std::vector<float>* copy = stage->kind() == SamplingStage::Grammar     ? &processed
                                   : stage->kind() == SamplingStage::Penalties ? &penalised
                                                                               : nullptr;
        if (copy != nullptr) {
            copy->assign(logits.size(), 0.0f);
            for (const Candidate& c : candidates.live())
                (*copy)[size_t(c.id)] = c.logit;
        }
    }
    const size_t maskedShown = std::min(masked.size(), size_t(params.traceTopN));
    std::partial_sort(masked.begin(), masked.begin() + ptrdiff_t(maskedShown), masked.end(),
                      [](const MaskedCandidate& a, const MaskedCandidate& b) {
                          return a.rawLogit > b.rawLogit ||
                                 (a.rawLogit == b.rawLogit && a.id < b.id);
                      });
    masked.resize(maskedShown);
    const size_t chosenRank = drawIndex(candidates, draw);
    const Candidate chosen = candidates.live()[chosenRank];

    SamplingTrace& t = *trace;
    t = SamplingTrace{};
    t.params = params;
    t.kept = kept;
    t.masked = std::move(masked);
    t.rawLogSumExp = softmax[0].logSumExp;
    for (size_t s = 0; s < kSamplingStageCount; ++s)
        t.entropy[s] = softmax[s].entropy;
    const auto topK = size_t(SamplingStage::TopK), topP = size_t(SamplingStage::TopP);
    t.nucleusMass = std::exp(softmax[topP].logSumExp - softmax[topK].logSumExp);
    t.nucleusKept = kept[topP];
    t.chosenId = chosen.id;
    t.chosenRank = int64_t(chosenRank);
    t.chosenProbability = float(softmax[size_t(kFinalSamplingStage)].probability(chosen.logit));
    t.draw = draw;
    t.greedy = params.temperature <= 0;

    // Rows in the order the truncations used: each stage kept a prefix of it, so row r was alive
    // after stage s exactly when r < kept[s].
    const std::vector<Candidate> best = candidates.best(size_t(params.traceTopN));
    t.candidates.reserve(best.size());
    for (size_t rank = 0; rank < best.size(); ++rank) {
        TraceCandidate row;
        row.id = best[rank].id;
        row.rawLogit = logits[size_t(row.id)];
        row.penalisedLogit = penalised[size_t(row.id)];
        for (size_t s = 0; s < kSamplingStageCount; ++s) {
            const auto stage = SamplingStage(s);
            if (int64_t(rank) >= kept[s]) {
                if (!row.cutBy)
                    row.cutBy = stage;
                continue;
            }
            const float logit = stage == SamplingStage::Raw         ? row.rawLogit
                                : isMaskingStage(stage)             ? processed[size_t(row.id)]
                                : stage == SamplingStage::Penalties ? row.penalisedLogit
                                                                    : best[rank].logit;
            row.probability[s] = float(softmax[s].probability(logit));
        }
        t.candidates.push_back(row);
    }
    return chosen.id;
}

}  // namespace inferlens
