#pragma once
// Grammar-constrained decoding as a stage of the sampler chain: masks every token whose bytes
// cannot continue the text generated so far as a prefix of a sentence of the grammar, and the
// turn's end tokens until the text is a whole sentence. Tokens that stand for no text (specials)
// other than the end tokens are masked too: they would not advance the grammar.
//
// The vocabulary's token texts are put in a byte trie once; a step walks the trie from the state
// after the generated text, carrying the recognizer state down each edge and abandoning a subtree
// as soon as the state dies, so tokens sharing a prefix share its work and most of a large
// vocabulary is never visited when the grammar allows few bytes.

#include <memory>
#include <string>
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

  private:
    struct TrieNode {
        std::vector<std::pair<uint8_t, int>> children;
        std::vector<int32_t> ids;  // tokens whose text ends here
    };
    void buildTrie(const std::vector<std::string>& texts) const;
    void walk(int node, const GrammarMatcher::State& state, std::vector<uint8_t>& allowed) const;

    std::unique_ptr<Grammar> grammar_;
    std::unique_ptr<GrammarMatcher> matcher_;
    // The trie of the token texts last seen (built on first use).
    mutable const std::vector<std::string>* trieTexts_ = nullptr;
    mutable std::vector<TrieNode> trie_;
};

}  // namespace inferlens
