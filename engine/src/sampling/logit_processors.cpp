#include "sampling/logit_processors.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace inferlens {

void LogitBiasStage::apply(CandidateSet& candidates, const SamplerContext&) const {
    if (bias_.empty())
        return;
    std::vector<int32_t> forced, banned;
    for (const auto& [id, value] : bias_) {
        if (value == std::numeric_limits<float>::infinity())
            forced.push_back(id);
        else if (value == -std::numeric_limits<float>::infinity())
            banned.push_back(id);
        else if (Candidate* candidate = candidates.find(id))
            candidate->logit += value;
    }
    candidates.logitsChanged();
    std::sort(forced.begin(), forced.end());
    std::sort(banned.begin(), banned.end());
    const auto in = [](const std::vector<int32_t>& ids, int32_t id) {
        return std::binary_search(ids.begin(), ids.end(), id);
    };
    if (!forced.empty() || !banned.empty())
        maskOrRefuse(candidates, kind(), [&](const Candidate& c) {
            return in(banned, c.id) || (!forced.empty() && !in(forced, c.id));
        });
}

size_t BannedTextStage::Pattern::advance(size_t state, char byte) const {
    if (state == text.size())
        state = failure[state - 1];
    while (state > 0 && text[state] != byte)
        state = failure[state - 1];
    return text[state] == byte ? state + 1 : 0;
}

BannedTextStage::BannedTextStage(const std::vector<std::string>& banned) {
    for (const std::string& text : banned) {
        if (text.empty())
            throw Error("a banned text must not be empty");
        Pattern pattern{text, std::vector<size_t>(text.size(), 0)};
        for (size_t i = 1, border = 0; i < text.size(); ++i) {
            while (border > 0 && text[i] != text[border])
                border = pattern.failure[border - 1];
            if (text[i] == text[border])
                ++border;
            pattern.failure[i] = border;
        }
        patterns_.push_back(std::move(pattern));
    }
}

void BannedTextStage::apply(CandidateSet& candidates, const SamplerContext& context) const {
    if (patterns_.empty())
        return;
    if (context.tokenTexts == nullptr)
        throw Error("sampling: banned text needs the vocabulary's token texts");
    const std::vector<std::string>& texts = *context.tokenTexts;
    const auto textOf = [&texts](int32_t id) -> const std::string& {
        static const std::string none;
        return id >= 0 && size_t(id) < texts.size() ? texts[size_t(id)] : none;
    };
    // Each pattern's automaton state after the text generated so far: only the last
    // (length − 1) bytes can take part in a match that a new token completes.
    std::vector<size_t> states;
    for (const Pattern& pattern : patterns_) {
        std::string tail;
        for (size_t i = context.history.size(); i > context.promptLength; --i) {
            tail.insert(0, textOf(context.history[i - 1]));
            if (tail.size() >= pattern.text.size())
                break;
        }
        if (tail.size() >= pattern.text.size())
            tail.erase(0, tail.size() - (pattern.text.size() - 1));
        size_t state = 0;
        for (const char byte : tail)
            state = pattern.advance(state, byte);
        states.push_back(state);
    }
    maskOrRefuse(candidates, kind(), [&](const Candidate& c) {
        const std::string& text = textOf(c.id);
        for (size_t p = 0; p < patterns_.size(); ++p) {
            size_t state = states[p];
            for (const char byte : text) {
                state = patterns_[p].advance(state, byte);
                if (state == patterns_[p].text.size())
                    return true;
            }
        }
        return false;
    });
}

void MinNewTokensStage::apply(CandidateSet& candidates, const SamplerContext& context) const {
    if (minimum_ <= 0 || context.newTokens() >= minimum_ || context.stopIds.empty())
        return;
    maskOrRefuse(candidates, kind(), [&context](const Candidate& c) {
        return std::find(context.stopIds.begin(), context.stopIds.end(), c.id) !=
               context.stopIds.end();
    });
}

}  // namespace inferlens
