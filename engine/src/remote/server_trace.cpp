#include "remote/server_trace.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace inferlens::remote {

namespace {

// Two reports of one token: by id when both have one, else by the bytes they stand for.
bool sameToken(const TokenCandidate& a, const TokenCandidate& b) {
    if (a.id && b.id)
        return *a.id == *b.id;
    return a.bytes.value_or(a.text) == b.bytes.value_or(b.text);
}

}  // namespace

SamplingTrace traceFromServer(const GeneratedToken& token, const SamplingParams& params) {
    SamplingTrace trace;
    trace.params = params;
    trace.greedy = params.temperature == 0;
    trace.rawLogSumExp = 0;  // log-probabilities are logits whose log Σ exp is 0
    trace.nucleusMass = 0;
    SamplingTrace::ServerReport report;
    report.chosenText = token.chosen.text;
    std::optional<int64_t> chosenRank;
    for (const TokenCandidate& alternative : token.alternatives) {
        if (!alternative.logprob)
            continue;  // a null the server wrote: no probability to show
        TraceCandidate candidate;
        candidate.id = alternative.id.value_or(-1);
        candidate.rawLogit = float(*alternative.logprob);
        candidate.penalisedLogit = candidate.rawLogit;
        candidate.probability[size_t(SamplingStage::Raw)] = float(std::exp(*alternative.logprob));
        if (!chosenRank && sameToken(alternative, token.chosen))
            chosenRank = int64_t(trace.candidates.size());
        report.knownMass += std::exp(*alternative.logprob);
        report.texts.push_back(alternative.text);
        trace.candidates.push_back(candidate);
    }
    trace.chosenRank = chosenRank.value_or(int64_t(trace.candidates.size()));
    trace.chosenId = token.chosen.id.value_or(-1);
    trace.chosenProbability = token.chosen.logprob ? float(std::exp(*token.chosen.logprob)) : 0;
    // Rounding in the server's log-probabilities can take the sum a hair past 1.
    report.knownMass = std::min(report.knownMass, 1.0);
    trace.server = std::move(report);
    return trace;
}

}  // namespace inferlens::remote
