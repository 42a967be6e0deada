#pragma once
// Grammars for constrained decoding, in a GBNF-like EBNF (the notation llama.cpp uses):
//
//   root   ::= "{" ws pair ("," ws pair)* "}"      # rule ::= alternatives; `root` starts
//   pair   ::= string ":" ws value
//   string ::= "\"" [^"\\]* "\""                    # literals, character classes, negation
//   ws     ::= [ \t\n]*
//
// Items are "literals", [character classes] (ranges, ^ negation, escapes \n \t \r \\ \" \] \- and
// \xHH \uHHHH), rule names, and ( groups ), each optionally followed by *, + or ?. Alternatives are
// separated by |, a rule may span lines, # starts a comment. Characters are Unicode code points.
//
// Compiling flattens the grammar into rules of alternatives of elements, each element a character
// set or a reference to another rule; repetitions and groups become helper rules (x* ::= x x* | ε).
// Left recursion (a rule that can reach itself without consuming a character) is refused, since a
// top-down recognizer would loop on it.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace inferlens {

struct GrammarElement {
    enum class Kind : uint8_t { Characters, Rule, End };
    Kind kind = Kind::End;
    // Characters: the code point ranges [first, last] it matches (or, negated, does not match).
    std::vector<std::pair<uint32_t, uint32_t>> ranges;
    bool negated = false;
    int rule = -1;  // Rule: the rule referred to

    bool matches(uint32_t codePoint) const;
};

struct Grammar {
    // rules[r][a]: alternative a of rule r, a sequence of elements ending with an End element.
    std::vector<std::vector<std::vector<GrammarElement>>> rules;
    std::vector<std::string> ruleNames;  // helper rules are named after their parent
    int root = 0;
};

// Parses and compiles a grammar. Throws Error with the line and what is wrong: a syntax error, an
// undefined rule, no `root` rule, or left recursion.
Grammar compileGrammar(std::string_view text);

}  // namespace inferlens
