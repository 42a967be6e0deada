#pragma once
// Grammar-constrained decoding as a stage of the sampler chain: masks every token whose bytes
// cannot continue the text generated so far as a prefix of a sentence of the grammar, and the
// turn's end tokens until the text is a whole sentence. Tokens that stand for no text (specials)
// other than the end tokens are masked too: they would not advance the grammar.
//
// The vocabulary's token texts are put in a byte trie once; a step walks the trie from the state
// after the generated text, carrying the recognizer state down each edge and abandoning a subtree
// as soon as the state dies, so tokens sharing a prefix share its work and most of a large
// vocabulary is never visited when the grammar allows few bytes. Recognizer states are interned and
// their transitions by byte remembered (across steps too), so where the grammar allows almost
// anything — inside a JSON string — a trie edge costs an array lookup, not a parse; a subtree
// whose bytes all lead back to the same state is decided whole; and the masks of the last few
// states are kept, since inside a string each token of text leads back to the same state.
//
// With a token budget (SamplerContext::maxNewTokens) the output closes in time: a token is allowed
// only if the shortest way from the state after it to a whole sentence, one byte per token, fits
// in the tokens left after it — so the text is a whole sentence when the budget ends, provided the
// vocabulary has single-byte tokens for the closing bytes (sentencepiece's byte fallback does).

#include <array>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "grammar/grammar.h"
#include "grammar/grammar_matcher.h"
#include "sampling/sampler_stages.h"

namespace inferlens {

class GrammarStage final : public SamplerStage {
  public:
    // An empty text turns the stage off; else it must compile (Error otherwise).
    explicit GrammarStage(const std::string& text);
    SamplingStage kind() const override { return SamplingStage::Grammar; }
    // Needs context.tokenTexts. Throws Error when the text so far does not follow the grammar or
    // when no token may come next.
    void apply(CandidateSet& candidates, const SamplerContext& context) const override;

    // Which ids may come after the text of history[promptLength ..] (1 allowed, 0 masked): the
    // mask itself, for tests and benchmarks.
    std::vector<uint8_t> allowedTokens(const SamplerContext& context) const;
    // Forgets the masks kept by state, so that the next step walks the trie (what a state's
    // first step costs; for benchmarks).
    void forgetMasks() const { masks_.clear(); }

  private:
    // The trie, flattened in depth-first order so that a walk reads memory front to back: node n's
    // children are edges [firstEdge, firstEdge + edgeCount), the tokens ending at it ids [firstId,
    // firstId + idCount).
    // The tokens of node n's whole subtree are ids [firstId, subtreeIdEnd).
    struct TrieNode {
        uint32_t firstEdge = 0, edgeCount = 0, firstId = 0, idCount = 0, subtreeIdEnd = 0;
    };
    using ByteSet = std::array<uint64_t, 4>;
    struct TrieEdge {
        uint8_t byte = 0;
        uint32_t child = 0;
    };
    void buildTrie(const std::vector<std::string>& texts) const;
    // The tokens left (-1: no budget), and what the budget rule did during a walk: a mask that
    // the rule never cut is the mask for every budget that covers the largest need it met.
    struct Budget {
        int64_t left = -1;
        int64_t largestNeeded = 0;
        bool cut = false;
        bool allows(int64_t needed);
    };
    void walk(int node, int state, Budget& budget, std::vector<uint8_t>& allowed) const;
    // Bytes on the shortest way from a state to a whole sentence (GrammarMatcher::
    // shortestCompletion, memoised).
    int distance(int state) const;
    // Whether some token's first byte continues the character a state is in the middle of.
    bool continuable(int state) const;
    // The bytes that lead from a state back to itself (inside a JSON string: nearly all).
    const ByteSet& selfLoops(int state) const;
    // The id of a recognizer state, and the state a byte leads to from one (-1: none).
    int intern(GrammarMatcher::State state) const;
    int next(int state, uint8_t byte) const;

    std::unique_ptr<Grammar> grammar_;
    std::unique_ptr<GrammarMatcher> matcher_;
    // The trie of the token texts last seen (built on first use).
    mutable const std::vector<std::string>* trieTexts_ = nullptr;
    mutable std::vector<TrieNode> trie_;
    mutable std::vector<TrieEdge> edges_;
    mutable std::vector<int32_t> trieIds_;
    // Per node: every byte on an edge below it. A subtree whose bytes all loop back to the state
    // at its top is allowed (or not) as a whole: its ids are filled without walking it.
    mutable std::vector<ByteSet> subtreeBytes_;
    // Interned states and their transitions (kUnknown until computed); cleared when too many.
    static constexpr int kUnknown = -2;
    static constexpr size_t kMostStates = 20000;
    mutable std::vector<GrammarMatcher::State> states_;
    mutable std::unordered_map<std::string, int> stateIds_;
    mutable std::vector<std::array<int, 256>> transitions_;
    mutable std::vector<int> distances_;
    // Per state: 1 when it is inside a character, and whether a token can go on from it (-1: not
    // yet known); kept apart from the states so that a walk reads bytes, not State objects.
    mutable std::vector<uint8_t> midCharacter_;
    mutable std::vector<int8_t> continuable_;
    mutable std::vector<ByteSet> selfLoops_;
    mutable std::vector<uint8_t> selfLoopsKnown_;
    mutable int lastState_ = 0;  // the state allowedTokens started from
    // The last few masks by state. Inside a JSON string every token of text returns to the same
    // state, so from the second token of a string on a step costs a copy, not a walk.
    struct CachedMask {
        int state = 0;
        bool withoutBudget = false;  // valid when there is no budget
        int64_t leastBudget = -1;    // valid for budgets from this one on; -1: for none
        std::vector<uint8_t> allowed;
    };
    static constexpr size_t kCachedMasks = 8;
    mutable std::vector<CachedMask> masks_;
    mutable size_t nextMask_ = 0;  // the entry to replace next
};

}  // namespace inferlens
