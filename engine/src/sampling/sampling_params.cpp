#include "sampling/sampling_params.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include "core/error.h"

namespace inferlens {
namespace {

template <typename T>
[[noreturn]] void reject(const char* name, const char* range, T value) {
    std::ostringstream message;
    message << "sampling: " << name << " must be " << range << ", got " << value;
    throw Error(message.str());
}

}  // namespace

void validate(const SamplingParams& p) {
    // Written as !(in range) so that NaN, which fails every comparison, is rejected too.
    if (!(p.temperature >= 0 && std::isfinite(p.temperature)))
        reject("temperature", ">= 0 (0 = greedy)", p.temperature);
    if (!(p.topK >= 0))
        reject("top-k", ">= 0 (0 = off)", p.topK);
    if (!(p.topP > 0 && p.topP <= 1))
        reject("top-p", "in (0, 1] (1 = off)", p.topP);
    if (!(p.minP >= 0 && p.minP <= 1))
        reject("min-p", "in [0, 1] (0 = off)", p.minP);
    if (!(p.repetitionPenalty > 0 && std::isfinite(p.repetitionPenalty)))
        reject("repetition penalty", "> 0 (1 = off)", p.repetitionPenalty);
    if (!std::isfinite(p.frequencyPenalty))
        reject("frequency penalty", "finite", p.frequencyPenalty);
    if (!std::isfinite(p.presencePenalty))
        reject("presence penalty", "finite", p.presencePenalty);
    if (!(p.penaltyLastN >= -1))
        reject("penalty window (last N tokens)", ">= -1 (0 = off, -1 = whole context)",
               p.penaltyLastN);
    for (const auto& [id, value] : p.logitBias) {
        if (!(id >= 0))
            reject("a logit bias's token id", ">= 0", id);
        if (std::isnan(value))
            reject("a logit bias", "a number or ±inf", value);
    }
    for (const std::string& text : p.bannedTexts)
        if (text.empty())
            throw Error("sampling: a banned text must not be empty");
    if (!(p.minNewTokens >= 0))
        reject("minimum new tokens", ">= 0", p.minNewTokens);
    if (!(p.traceTopN >= 0))
        reject("trace top-N", ">= 0", p.traceTopN);
}

std::pair<int32_t, float> parseLogitBias(std::string_view text) {
    const auto bad = [text](const std::string& why) {
        return Error("logit bias '" + std::string(text) + "': " + why +
                     " (expected ID=VALUE, e.g. 42=-inf, 42=+inf or 42=2.5)");
    };
    const size_t equals = text.find('=');
    if (equals == std::string_view::npos)
        throw bad("no '='");
    const std::string idText(text.substr(0, equals)), valueText(text.substr(equals + 1));
    size_t used = 0;
    long long id = 0;
    float value = 0;
    try {
        id = std::stoll(idText, &used);
        if (used != idText.size())
            throw bad("the id is not a whole number");
        value = std::stof(valueText, &used);
    } catch (const std::logic_error&) {
        throw bad("not a number");
    }
    if (used != valueText.size() || std::isnan(value))
        throw bad("the value is not a number");
    if (id < 0 || id > std::numeric_limits<int32_t>::max())
        throw bad("the id is negative or too large");
    return {int32_t(id), value};
}

}  // namespace inferlens
