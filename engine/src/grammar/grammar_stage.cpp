#include "grammar/grammar_stage.h"

#include <algorithm>

#include "core/error.h"
#include "sampling/logit_processors.h"

namespace inferlens {

GrammarStage::GrammarStage(const std::string& text) {
    if (text.empty())
        return;
    grammar_ = std::make_unique<Grammar>(compileGrammar(text));
    matcher_ = std::make_unique<GrammarMatcher>(*grammar_);
}

void GrammarStage::buildTrie(const std::vector<std::string>& texts) const {
    trie_.assign(1, TrieNode{});
    for (size_t id = 0; id < texts.size(); ++id) {
        int node = 0;
        for (const char c : texts[id]) {
            const auto byte = uint8_t(c);
            auto& children = trie_[size_t(node)].children;
            const auto found =
                std::find_if(children.begin(), children.end(),
                             [byte](const auto& child) { return child.first == byte; });
            if (found != children.end()) {
                node = found->second;
            } else {
                const int child = int(trie_.size());
                trie_[size_t(node)].children.emplace_back(byte, child);
                trie_.emplace_back();
                node = child;
            }
        }
        if (node != 0)
            trie_[size_t(node)].ids.push_back(int32_t(id));
    }
    trieTexts_ = &texts;
}

void GrammarStage::walk(int node, const GrammarMatcher::State& state,
                        std::vector<uint8_t>& allowed) const {
    for (const auto& [byte, child] : trie_[size_t(node)].children) {
        GrammarMatcher::State next = state;
        if (!matcher_->advance(next, byte))
            continue;
        for (const int32_t id : trie_[size_t(child)].ids)
            allowed[size_t(id)] = 1;
        walk(child, next, allowed);
    }
}

std::vector<uint8_t> GrammarStage::allowedTokens(const SamplerContext& context) const {
    if (context.tokenTexts == nullptr)
        throw Error("sampling: a grammar needs the vocabulary's token texts");
    const std::vector<std::string>& texts = *context.tokenTexts;
    if (trieTexts_ != &texts)
        buildTrie(texts);
    GrammarMatcher::State state = matcher_->initial();
    for (size_t i = std::min(context.promptLength, context.history.size());
         i < context.history.size(); ++i) {
        const int32_t id = context.history[i];
        if (id >= 0 && size_t(id) < texts.size() && !matcher_->advance(state, texts[size_t(id)]))
            throw Error("sampling: the text generated so far does not follow the grammar");
    }
    std::vector<uint8_t> allowed(texts.size(), 0);
    walk(0, state, allowed);
    if (GrammarMatcher::accepts(state))
        for (const int32_t id : context.stopIds)
            if (id >= 0 && size_t(id) < allowed.size())
                allowed[size_t(id)] = 1;
    return allowed;
}

void GrammarStage::apply(CandidateSet& candidates, const SamplerContext& context) const {
    if (!matcher_)
        return;
    const std::vector<uint8_t> allowed = allowedTokens(context);
    maskOrRefuse(candidates, kind(), [&allowed](const Candidate& c) {
        return size_t(c.id) >= allowed.size() || allowed[size_t(c.id)] == 0;
    });
}

}  // namespace inferlens
