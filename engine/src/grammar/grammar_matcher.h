#pragma once
// Recognises text against a compiled grammar byte by byte, as a set of stacks (a pushdown
// automaton run on every parse at once): each stack holds the positions still to be matched, the
// next character set on top; a rule reference on top is replaced by its continuation and each of
// its alternatives. A code point advances every stack whose top set contains it; bytes of a UTF-8
// character wait until it is complete, but a stack that no completion could satisfy is dropped at
// once. The state after some text is what masking a token's bytes starts from.

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "grammar/grammar.h"

namespace inferlens {

class GrammarMatcher {
  public:
    using Stack = std::vector<const GrammarElement*>;
    struct State {
        std::vector<Stack> stacks;  // empty stack: the text so far is a complete sentence
        uint32_t partial = 0;       // the bits of a UTF-8 character read so far
        int missing = 0;            // its continuation bytes still to come
        uint32_t smallest = 0;      // the smallest code point its length may encode (no overlong)
    };

    // `grammar` must outlive the matcher.
    explicit GrammarMatcher(const Grammar& grammar);

    const State& initial() const { return initial_; }
    // Consumes one byte; false when the text can no longer be part of any sentence (then `state`
    // is unusable).
    bool advance(State& state, uint8_t byte) const;
    bool advance(State& state, std::string_view bytes) const;
    // The text so far is a whole sentence (the output may end here).
    static bool accepts(const State& state);
    // More text may follow.
    static bool continues(const State& state);
    // Bytes in the shortest text that makes the text so far a whole sentence (each character at
    // its shortest UTF-8 length); a large number when none does.
    int shortestCompletion(const State& state) const;

  private:
    void expand(Stack stack, std::vector<Stack>& out) const;
    bool advanceCodePoint(State& state, uint32_t codePoint) const;

    const Grammar& grammar_;
    State initial_;
    // For every element: the fewest bytes that match it and the rest of its sequence.
    std::unordered_map<const GrammarElement*, int> restOfSequence_;
};

}  // namespace inferlens
