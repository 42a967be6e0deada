#include "grammar/grammar_stage.h"

#include <algorithm>
#include <functional>

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
    // First a pointer trie, then flattened in depth-first order.
    struct Building {
        std::vector<std::pair<uint8_t, int>> children;
        std::vector<int32_t> ids;
    };
    std::vector<Building> nodes(1);
    for (size_t id = 0; id < texts.size(); ++id) {
        int node = 0;
        for (const char c : texts[id]) {
            const auto byte = uint8_t(c);
            auto& children = nodes[size_t(node)].children;
            const auto found =
                std::find_if(children.begin(), children.end(),
                             [byte](const auto& child) { return child.first == byte; });
            if (found != children.end()) {
                node = found->second;
            } else {
                const int child = int(nodes.size());
                nodes[size_t(node)].children.emplace_back(byte, child);
                nodes.emplace_back();
                node = child;
            }
        }
        if (node != 0)
            nodes[size_t(node)].ids.push_back(int32_t(id));
    }
    trie_.assign(nodes.size(), TrieNode{});
    edges_.clear();
    trieIds_.clear();
    uint32_t placed = 1;  // the root is node 0
    const std::function<void(int, uint32_t)> flatten = [&](int from, uint32_t to) {
        Building& node = nodes[size_t(from)];
        std::sort(node.children.begin(), node.children.end());
        trie_[to] = {uint32_t(edges_.size()), uint32_t(node.children.size()),
                     uint32_t(trieIds_.size()), uint32_t(node.ids.size())};
        trieIds_.insert(trieIds_.end(), node.ids.begin(), node.ids.end());
        const size_t first = edges_.size();
        for (const auto& [byte, child] : node.children)
            edges_.push_back({byte, placed++});
        for (size_t i = 0; i < node.children.size(); ++i)
            flatten(node.children[i].second, edges_[first + i].child);
    };
    flatten(0, 0);
    trieTexts_ = &texts;
}

int GrammarStage::intern(GrammarMatcher::State state) const {
    std::string key;
    key.reserve(64);
    const auto append = [&key](const void* data, size_t size) {
        key.append(static_cast<const char*>(data), size);
    };
    append(&state.partial, sizeof state.partial);
    append(&state.missing, sizeof state.missing);
    append(&state.smallest, sizeof state.smallest);
    for (const GrammarMatcher::Stack& stack : state.stacks) {
        const size_t depth = stack.size();
        append(&depth, sizeof depth);
        append(stack.data(), depth * sizeof stack[0]);
    }
    const auto [found, added] = stateIds_.emplace(std::move(key), int(states_.size()));
    if (added) {
        states_.push_back(std::move(state));
        transitions_.emplace_back();
        transitions_.back().fill(kUnknown);
        distances_.push_back(kUnknown);
        midCharacter_.push_back(states_.back().missing > 0 ? 1 : 0);
        continuable_.push_back(-1);
    }
    return found->second;
}

int GrammarStage::next(int state, uint8_t byte) const {
    int& known = transitions_[size_t(state)][byte];
    if (known != kUnknown)
        return known;
    GrammarMatcher::State advanced = states_[size_t(state)];
    const int result = matcher_->advance(advanced, byte) ? intern(std::move(advanced)) : -1;
    transitions_[size_t(state)][byte] = result;  // `known` may dangle: interning grows the table
    return result;
}

int GrammarStage::distance(int state) const {
    if (distances_[size_t(state)] == kUnknown)
        distances_[size_t(state)] = matcher_->shortestCompletion(states_[size_t(state)]);
    return distances_[size_t(state)];
}

bool GrammarStage::continuable(int state) const {
    if (continuable_[size_t(state)] < 0) {
        bool found = false;
        const TrieNode& root = trie_[0];
        for (uint32_t e = root.firstEdge; e < root.firstEdge + root.edgeCount && !found; ++e)
            found = (edges_[e].byte & 0xc0) == 0x80 && next(state, edges_[e].byte) >= 0;
        continuable_[size_t(state)] = found ? 1 : 0;
    }
    return continuable_[size_t(state)] == 1;
}

void GrammarStage::walk(int node, int state, int64_t budget, std::vector<uint8_t>& allowed) const {
    const TrieNode& here = trie_[size_t(node)];
    for (uint32_t e = here.firstEdge; e < here.firstEdge + here.edgeCount; ++e) {
        const TrieEdge edge = edges_[e];
        const int after = next(state, edge.byte);
        if (after < 0)
            continue;
        const TrieNode& child = trie_[edge.child];
        // With a budget, a token must leave a way to close in the tokens after it. A token that
        // ends inside a character counts as four bytes short: a vocabulary need not have tokens
        // for lone continuation bytes.
        // And a token ending inside a character needs a token to go on with: one whose first
        // bytes continue it.
        const bool midCharacter = midCharacter_[size_t(after)] != 0;
        const int needed = budget < 0 ? 0 : distance(after) + (midCharacter ? 4 : 0);
        if (child.idCount > 0 && (budget < 0 || needed <= budget - 1) &&
            (!midCharacter || continuable(after)))
            for (uint32_t i = child.firstId; i < child.firstId + child.idCount; ++i)
                allowed[size_t(trieIds_[i])] = 1;
        walk(int(edge.child), after, budget, allowed);
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
    if (states_.size() > kMostStates) {  // deep nesting: start the table over
        states_.clear();
        stateIds_.clear();
        transitions_.clear();
        distances_.clear();
        midCharacter_.clear();
        continuable_.clear();
    }
    std::vector<uint8_t> allowed(texts.size(), 0);
    const bool accepting = GrammarMatcher::accepts(state);
    lastState_ = intern(std::move(state));
    walk(0, lastState_, context.tokensLeft(), allowed);
    if (accepting)
        for (const int32_t id : context.stopIds)
            if (id >= 0 && size_t(id) < allowed.size())
                allowed[size_t(id)] = 1;
    return allowed;
}

void GrammarStage::apply(CandidateSet& candidates, const SamplerContext& context) const {
    if (!matcher_)
        return;
    const std::vector<uint8_t> allowed = allowedTokens(context);
    if (std::find(allowed.begin(), allowed.end(), 1) == allowed.end() && context.tokensLeft() >= 0)
        throw Error("sampling: the grammar cannot be completed in the " +
                    std::to_string(context.tokensLeft()) + " tokens left (it needs at least " +
                    std::to_string(distance(lastState_)) + " more bytes): allow more new tokens");
    maskOrRefuse(candidates, kind(), [&allowed](const Candidate& c) {
        return size_t(c.id) >= allowed.size() || allowed[size_t(c.id)] == 0;
    });
}

}  // namespace inferlens
