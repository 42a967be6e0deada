#pragma once
// The sampling knobs the user sees as sliders. Each has a neutral value that turns its stage off,
// so one struct describes anything from greedy decoding to an untouched softmax draw.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace inferlens {

struct SamplingParams {
    float temperature = 0.8f;        // 0: greedy (argmax after the penalties)
    int32_t topK = 40;               // 0: off
    float topP = 0.95f;              // in (0, 1]; 1: off
    float minP = 0.05f;              // in [0, 1]; 0: off
    float repetitionPenalty = 1.0f;  // > 0; 1: off
    float frequencyPenalty = 0.0f;   // per occurrence; 0: off (negative values encourage repeats)
    float presencePenalty = 0.0f;    // once per token present; 0: off
    int32_t penaltyLastN = 64;       // tokens of the context the penalties look at; 0 off, -1 all
    // Logit processors (logit_processors.h).
    std::vector<std::pair<int32_t, float>> logitBias;  // added to an id's logit; ±inf force / ban
    std::vector<std::string> bannedTexts;              // never generated, however split into tokens
    int32_t minNewTokens = 0;  // the turn's end tokens masked until this many new ones
    std::string grammar;       // the output must follow it (grammar/grammar.h); "": off
    uint64_t seed = 0;
    int32_t traceTopN = 20;  // candidates a SamplingTrace reports

    bool operator==(const SamplingParams&) const = default;
};

// Throws Error naming the first parameter out of range (NaN is out of every range).
void validate(const SamplingParams& params);

// One logit bias as the user writes it, "ID=VALUE": VALUE a number, or inf / +inf (force) or -inf
// (ban). Throws Error saying what is wrong (the id's range is the caller's to check).
std::pair<int32_t, float> parseLogitBias(std::string_view text);

}  // namespace inferlens
