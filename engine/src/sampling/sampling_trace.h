#pragma once
// What one sampling step did, for the Sampling panel and the trace file: the top candidates with
// their probability after each stage, what each stage kept, the nucleus, the entropies, the draw.
// Plain data (no engine types beyond the params), cheap to copy into an immutable GUI snapshot.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sampling/sampling_params.h"

namespace inferlens {

// The chain, in the order it runs; Raw is the softmax of the logits as the model gave them. The
// logit processors come first (bias, banned text, minimum length, grammar): they mask tokens or
// shift their logits, whatever the distribution; then the penalties and the truncations.
enum class SamplingStage : uint8_t {
    Raw,
    LogitBias,
    BannedText,
    MinNewTokens,
    Grammar,
    Penalties,
    Temperature,
    TopK,
    TopP,
    MinP
};
inline constexpr size_t kSamplingStageCount = 10;
inline constexpr SamplingStage kFinalSamplingStage = SamplingStage::MinP;

inline const char* samplingStageName(SamplingStage stage) {
    constexpr const char* names[kSamplingStageCount] = {
        "raw",       "logit-bias",  "banned-text", "min-new-tokens", "grammar",
        "penalties", "temperature", "top-k",       "top-p",          "min-p"};
    return names[size_t(stage)];
}

// Whether a stage masks tokens whatever their probability (a logit processor) rather than cutting
// the unlikely ones.
inline bool isMaskingStage(SamplingStage stage) {
    return stage >= SamplingStage::LogitBias && stage <= SamplingStage::Grammar;
}

// A token a masking stage removed, with the logit the model gave it.
struct MaskedCandidate {
    int32_t id = 0;
    float rawLogit = 0;
    SamplingStage maskedBy = SamplingStage::LogitBias;
};

struct TraceCandidate {
    int32_t id = 0;
    float rawLogit = 0;
    float penalisedLogit = 0;
    // Indexed by SamplingStage: the probability after that stage, over all sampleable tokens, and
    // 0 once cut. Truncation renormalises over the survivors, so the last entry is the final
    // distribution the draw used.
    std::array<float, kSamplingStageCount> probability{};
    std::optional<SamplingStage> cutBy;  // empty: survived every stage

    bool kept() const { return !cutBy; }
    float finalProbability() const { return probability[size_t(kFinalSamplingStage)]; }
};

struct SamplingTrace {
    SamplingParams params;  // as used for this step
    // The best params.traceTopN candidates, best first, ranked by the logit that the truncation
    // stages saw (after penalties and temperature; ties to the lower id). In this order every
    // stage keeps a prefix, so the kept rows come first and the chosen token is row chosenRank
    // when chosenRank < traceTopN.
    std::vector<TraceCandidate> candidates;
    // Indexed by SamplingStage: the candidates left after that stage (Raw: every sampleable token),
    // and the entropy in nats of the distribution after it.
    std::array<int64_t, kSamplingStageCount> kept{};
    std::array<double, kSamplingStageCount> entropy{};
    // The nucleus: the probability mass (of the distribution top-p saw, i.e. after top-k) of the
    // tokens top-p kept, and how many it kept. With top-p off: 1 and kept[TopK].
    double nucleusMass = 1;
    int64_t nucleusKept = 0;
    // The masked tokens the model liked best (at most traceTopN, highest raw logit first): what the
    // logit processors took away. Their rows in `candidates`, if any, are cut by that stage.
    std::vector<MaskedCandidate> masked;
    double rawLogSumExp = 0;  // log Σ exp(raw logit): a raw probability is exp(logit − this)
    int32_t chosenId = -1;
    int64_t chosenRank = 0;       // in the order of `candidates`, 0 = best
    float chosenProbability = 0;  // in the final distribution
    double draw = 0;              // the uniform number in [0, 1) of this step (unused when greedy)
    bool greedy = false;

    // Set when a server chose the token (remote/remote_generator.h) rather than this engine: the
    // OpenAI-compatible APIs report only the top-N candidates' probabilities at the Raw stage,
    // the model's softmax before the server's sampling chain. `candidates` are then those N with
    // probability[Raw] (the later stages, which ran on the server, are left 0 and `kept` and
    // `entropy` unknown, 0); 1 − knownMass is the tail the server did not report; `texts` are the
    // candidates' pieces as the server wrote them (an id the server did not give is −1).
    struct ServerReport {
        double knownMass = 0;
        std::vector<std::string> texts;
        std::string chosenText;
    };
    std::optional<ServerReport> server;

    int64_t keptAfter(SamplingStage stage) const { return kept[size_t(stage)]; }
    double entropyAfter(SamplingStage stage) const { return entropy[size_t(stage)]; }
};

}  // namespace inferlens
