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
    subtreeBytes_.assign(nodes.size(), ByteSet{});
    edges_.clear();
    trieIds_.clear();
    uint32_t placed = 1;  // the root is node 0
    const std::function<void(int, uint32_t)> flatten = [&](int from, uint32_t to) {
        Building& node = nodes[size_t(from)];
        std::sort(node.children.begin(), node.children.end());
        trie_[to] = {uint32_t(edges_.size()), uint32_t(node.children.size()),
                     uint32_t(trieIds_.size()), uint32_t(node.ids.size()), 0};
        trieIds_.insert(trieIds_.end(), node.ids.begin(), node.ids.end());
        const size_t first = edges_.size();
        for (const auto& [byte, child] : node.children)
            edges_.push_back({byte, placed++});
        for (size_t i = 0; i < node.children.size(); ++i) {
            const TrieEdge edge = edges_[first + i];
            flatten(node.children[i].second, edge.child);
            ByteSet& bytes = subtreeBytes_[to];
            bytes[edge.byte >> 6] |= uint64_t(1) << (edge.byte & 63);
            for (size_t word = 0; word < bytes.size(); ++word)
                bytes[word] |= subtreeBytes_[edge.child][word];
        }
        trie_[to].subtreeIdEnd = uint32_t(trieIds_.size());
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
        selfLoops_.emplace_back();
        selfLoopsKnown_.push_back(0);
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

const GrammarStage::ByteSet& GrammarStage::selfLoops(int state) const {
    if (!selfLoopsKnown_[size_t(state)]) {
        ByteSet loops{};
        for (int byte = 0; byte < 256; ++byte)
            if (next(state, uint8_t(byte)) == state)
                loops[size_t(byte >> 6)] |= uint64_t(1) << (byte & 63);
        selfLoops_[size_t(state)] = loops;  // after the calls: interning grows the vector
        selfLoopsKnown_[size_t(state)] = 1;
    }
    return selfLoops_[size_t(state)];
}

bool GrammarStage::Budget::allows(int64_t needed) {
    if (left < 0)
        return true;
    if (needed > left - 1) {
        cut = true;
        return false;
    }
    largestNeeded = std::max(largestNeeded, needed);
    return true;
}

void GrammarStage::walk(int node, int state, Budget& budget, std::vector<uint8_t>& allowed) const {
    const TrieNode& here = trie_[size_t(node)];
    for (uint32_t e = here.firstEdge; e < here.firstEdge + here.edgeCount; ++e) {
        const TrieEdge edge = edges_[e];
        const int after = next(state, edge.byte);
        if (after < 0)
            continue;
        const TrieNode& child = trie_[edge.child];
        // An edge that loops back (a byte of a JSON string's text) hints at a subtree that may
        // loop all the way down: then every token in it ends in this same state, and one test
        // decides them all.
        if (after == state && midCharacter_[size_t(state)] == 0) {
            const ByteSet& loops = selfLoops(state);
            const ByteSet& below = subtreeBytes_[edge.child];
            if ((below[0] & ~loops[0]) == 0 && (below[1] & ~loops[1]) == 0 &&
                (below[2] & ~loops[2]) == 0 && (below[3] & ~loops[3]) == 0) {
                if (budget.allows(budget.left < 0 ? 0 : distance(state)))
                    for (uint32_t i = child.firstId; i < child.subtreeIdEnd; ++i)
                        allowed[size_t(trieIds_[i])] = 1;
                continue;
            }
        }
        // With a budget, a token must leave a way to close in the tokens after it. A token that
        // ends inside a character counts as four bytes short: a vocabulary need not have tokens
        // for lone continuation bytes.
        // And a token ending inside a character needs a token to go on with: one whose first
        // bytes continue it.
        const bool midCharacter = midCharacter_[size_t(after)] != 0;
        if (child.idCount > 0 && (!midCharacter || continuable(after)) &&
            budget.allows(budget.left < 0 ? 0 : distance(after) + (midCharacter ? 4 : 0)))
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
        selfLoops_.clear();
        selfLoopsKnown_.clear();
        masks_.clear();
    }
    const bool accepting = GrammarMatcher::accepts(state);
    lastState_ = intern(std::move(state));
    Budget budget{context.tokensLeft()};
    const auto cached = std::find_if(masks_.begin(), masks_.end(), [&](const CachedMask& m) {
        return m.state == lastState_ &&
               (budget.left < 0 ? m.withoutBudget
                                : m.leastBudget >= 0 && budget.left >= m.leastBudget);
    });
    std::vector<uint8_t> allowed;
    if (cached != masks_.end()) {
        allowed = cached->allowed;
    } else {
        allowed.assign(texts.size(), 0);
        walk(0, lastState_, budget, allowed);
        // A mask the budget did not cut is the mask without a budget too, and (when the needs
        // were computed) for every budget that covers the largest need met.
        if (budget.left < 0 || !budget.cut) {
            CachedMask entry{lastState_, true, budget.left < 0 ? -1 : budget.largestNeeded + 1,
                             allowed};
            if (masks_.size() < kCachedMasks)
                masks_.push_back(std::move(entry));
            else
                masks_[nextMask_++ % kCachedMasks] = std::move(entry);
        }
    }
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
