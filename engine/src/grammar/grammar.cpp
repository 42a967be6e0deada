#include "grammar/grammar.h"

#include <algorithm>
#include <functional>
#include <map>

#include "core/error.h"

namespace inferlens {

bool GrammarElement::matches(uint32_t codePoint) const {
    bool inside = false;
    for (const auto& [first, last] : ranges)
        inside = inside || (codePoint >= first && codePoint <= last);
    return inside != negated;
}

namespace {

using Sequence = std::vector<GrammarElement>;
using Alternatives = std::vector<Sequence>;

GrammarElement characters(std::vector<std::pair<uint32_t, uint32_t>> ranges, bool negated = false) {
    GrammarElement e;
    e.kind = GrammarElement::Kind::Characters;
    e.ranges = std::move(ranges);
    e.negated = negated;
    return e;
}

GrammarElement ruleReference(int rule) {
    GrammarElement e;
    e.kind = GrammarElement::Kind::Rule;
    e.rule = rule;
    return e;
}

bool isNameCharacter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
}

class Parser {
  public:
    explicit Parser(std::string_view text) : text_(text) {}

    Grammar parse() {
        while (true) {
            skipSpace();
            if (atEnd())
                break;
            const std::string name = parseName();
            skipSpace();
            if (text_.substr(at_, 3) != "::=")
                fail("expected ::= after the rule name '" + name + "'");
            at_ += 3;
            const int id = ruleId(name);
            if (defined_[size_t(id)])
                fail("the rule '" + name + "' is defined twice");
            defined_[size_t(id)] = true;
            grammar_.rules[size_t(id)] = parseAlternatives(name);
        }
        for (size_t r = 0; r < grammar_.rules.size(); ++r)
            if (!defined_[r])
                throw Error("grammar: the rule '" + grammar_.ruleNames[r] + "' is used (line " +
                            std::to_string(usedLine_[r]) + ") but never defined");
        const auto root = ids_.find("root");
        if (root == ids_.end())
            throw Error("grammar: there is no 'root' rule (where the output starts)");
        grammar_.root = root->second;
        for (auto& alternatives : grammar_.rules)
            for (Sequence& sequence : alternatives)
                sequence.push_back(GrammarElement{});  // End
        refuseLeftRecursion();
        return std::move(grammar_);
    }

  private:
    [[noreturn]] void fail(const std::string& what) const {
        throw Error("grammar, line " + std::to_string(line_) + ": " + what);
    }
    bool atEnd() const { return at_ >= text_.size(); }
    char peek() const { return atEnd() ? '\0' : text_[at_]; }

    void skipSpace() {
        while (!atEnd()) {
            const char c = text_[at_];
            if (c == '#') {
                while (!atEnd() && text_[at_] != '\n')
                    ++at_;
            } else if (c == '\n') {
                ++line_;
                ++at_;
            } else if (c == ' ' || c == '\t' || c == '\r') {
                ++at_;
            } else {
                break;
            }
        }
    }

    std::string parseName() {
        const size_t start = at_;
        while (!atEnd() && isNameCharacter(text_[at_]))
            ++at_;
        if (at_ == start)
            fail(std::string("expected a rule name, found '") + peek() + "'");
        return std::string(text_.substr(start, at_ - start));
    }

    // Whether a rule definition ("name ::=") starts here: the end of the one before.
    bool definitionAhead() const {
        size_t at = at_;
        while (at < text_.size() && isNameCharacter(text_[at]))
            ++at;
        if (at == at_)
            return false;
        while (at < text_.size() && (text_[at] == ' ' || text_[at] == '\t'))
            ++at;
        return text_.substr(at, 3) == "::=";
    }

    int ruleId(const std::string& name) {
        const auto [found, added] = ids_.emplace(name, int(grammar_.rules.size()));
        if (added) {
            grammar_.rules.emplace_back();
            grammar_.ruleNames.push_back(name);
            defined_.push_back(false);
            usedLine_.push_back(line_);
        }
        return found->second;
    }

    int helperRule(const std::string& parent, Alternatives alternatives) {
        const int id = int(grammar_.rules.size());
        grammar_.rules.push_back(std::move(alternatives));
        grammar_.ruleNames.push_back(parent + "_" + std::to_string(id));
        defined_.push_back(true);
        usedLine_.push_back(line_);
        return id;
    }

    Alternatives parseAlternatives(const std::string& rule) {
        Alternatives alternatives{parseSequence(rule)};
        while (true) {
            skipSpace();
            if (peek() != '|')
                break;
            ++at_;
            alternatives.push_back(parseSequence(rule));
        }
        return alternatives;
    }

    Sequence parseSequence(const std::string& rule) {
        Sequence sequence;
        while (true) {
            skipSpace();
            const char c = peek();
            if (atEnd() || c == '|' || c == ')' || definitionAhead())
                return sequence;
            Sequence item = parsePrimary(rule);
            const char suffix = peek();
            if (suffix == '*' || suffix == '+' || suffix == '?') {
                ++at_;
                item = repeat(rule, std::move(item), suffix);
            }
            sequence.insert(sequence.end(), item.begin(), item.end());
        }
    }

    // x* ::= x x* | ε;  x+ ::= x x*;  x? ::= x | ε
    Sequence repeat(const std::string& rule, Sequence item, char suffix) {
        if (suffix == '?')
            return {ruleReference(helperRule(rule, {item, {}}))};
        const int star = helperRule(rule, {});
        Sequence loop = item;
        loop.push_back(ruleReference(star));
        grammar_.rules[size_t(star)] = {loop, {}};
        if (suffix == '*')
            return {ruleReference(star)};
        item.push_back(ruleReference(star));
        return item;
    }

    Sequence parsePrimary(const std::string& rule) {
        const char c = peek();
        if (c == '"') {
            ++at_;
            Sequence literal;
            while (peek() != '"') {
                if (atEnd() || peek() == '\n')
                    fail("a literal is not closed with \"");
                const uint32_t codePoint = parseCharacter();
                literal.push_back(characters({{codePoint, codePoint}}));
            }
            ++at_;
            return literal;
        }
        if (c == '[') {
            ++at_;
            const bool negated = peek() == '^';
            if (negated)
                ++at_;
            std::vector<std::pair<uint32_t, uint32_t>> ranges;
            while (peek() != ']') {
                if (atEnd() || peek() == '\n')
                    fail("a character class is not closed with ]");
                const uint32_t first = parseCharacter();
                uint32_t last = first;
                if (peek() == '-' && at_ + 1 < text_.size() && text_[at_ + 1] != ']') {
                    ++at_;
                    last = parseCharacter();
                    if (last < first)
                        fail("a character range runs backwards");
                }
                ranges.emplace_back(first, last);
            }
            ++at_;
            return {characters(std::move(ranges), negated)};
        }
        if (c == '(') {
            ++at_;
            Alternatives group = parseAlternatives(rule);
            skipSpace();
            if (peek() != ')')
                fail("a group is not closed with )");
            ++at_;
            return {ruleReference(helperRule(rule, std::move(group)))};
        }
        if (isNameCharacter(c))
            return {ruleReference(ruleId(parseName()))};
        fail(std::string("unexpected '") + c + "'");
    }

    uint32_t hexDigits(int count) {
        uint32_t value = 0;
        for (int i = 0; i < count; ++i) {
            const char h = peek();
            int digit = -1;
            if (h >= '0' && h <= '9')
                digit = h - '0';
            else if (h >= 'a' && h <= 'f')
                digit = h - 'a' + 10;
            else if (h >= 'A' && h <= 'F')
                digit = h - 'A' + 10;
            if (digit < 0)
                fail("expected " + std::to_string(count) + " hexadecimal digits");
            value = value * 16 + uint32_t(digit);
            ++at_;
        }
        return value;
    }

    // One character of a literal or class: an escape, or a UTF-8 encoded code point.
    uint32_t parseCharacter() {
        const auto byte = uint8_t(text_[at_]);
        if (byte == '\\') {
            ++at_;
            const char e = peek();
            ++at_;
            switch (e) {
                case 'n':
                    return '\n';
                case 't':
                    return '\t';
                case 'r':
                    return '\r';
                case 'x':
                    return hexDigits(2);
                case 'u':
                    return hexDigits(4);
                case 'U':
                    return hexDigits(8);
                case '\\':
                case '"':
                case '\'':
                case '[':
                case ']':
                case '-':
                case '/':
                case '^':
                    return uint32_t(e);
                default:
                    fail(std::string("unknown escape \\") + e);
            }
        }
        const int length = byte < 0x80    ? 1
                           : byte >= 0xf0 ? 4
                           : byte >= 0xe0 ? 3
                           : byte >= 0xc0 ? 2
                                          : 0;
        if (length == 0 || at_ + size_t(length) > text_.size())
            fail("invalid UTF-8");
        uint32_t codePoint = length == 1 ? byte : byte & (0x7f >> length);
        for (int i = 1; i < length; ++i) {
            const auto next = uint8_t(text_[at_ + size_t(i)]);
            if ((next & 0xc0) != 0x80)
                fail("invalid UTF-8");
            codePoint = (codePoint << 6) | (next & 0x3f);
        }
        at_ += size_t(length);
        return codePoint;
    }

    // A rule that can reach itself before consuming a character would make the recognizer loop.
    void refuseLeftRecursion() const {
        const auto& rules = grammar_.rules;
        std::vector<bool> nullable(rules.size(), false);
        for (bool changed = true; changed;) {
            changed = false;
            for (size_t r = 0; r < rules.size(); ++r) {
                if (nullable[r])
                    continue;
                for (const Sequence& sequence : rules[r]) {
                    bool empty = true;
                    for (const GrammarElement& e : sequence)
                        if (e.kind == GrammarElement::Kind::Characters ||
                            (e.kind == GrammarElement::Kind::Rule && !nullable[size_t(e.rule)]))
                            empty = false;
                    if (empty) {
                        nullable[r] = true;
                        changed = true;
                        break;
                    }
                }
            }
        }
        // The rules each rule may start with; a cycle among them is left recursion.
        std::vector<int> state(rules.size(), 0);  // 0 unseen, 1 on the path, 2 done
        const std::function<void(size_t)> visit = [&](size_t r) {
            state[r] = 1;
            for (const Sequence& sequence : rules[r]) {
                for (const GrammarElement& e : sequence) {
                    if (e.kind != GrammarElement::Kind::Rule)
                        break;
                    if (state[size_t(e.rule)] == 1)
                        throw Error("grammar: the rule '" + grammar_.ruleNames[size_t(e.rule)] +
                                    "' is left-recursive (it can reach itself before any "
                                    "character): rewrite it with repetition, e.g. x ::= y (\",\" "
                                    "y)*");
                    if (state[size_t(e.rule)] == 0)
                        visit(size_t(e.rule));
                    if (!nullable[size_t(e.rule)])
                        break;
                }
            }
            state[r] = 2;
        };
        for (size_t r = 0; r < rules.size(); ++r)
            if (state[r] == 0)
                visit(r);
    }

    std::string_view text_;
    size_t at_ = 0;
    int line_ = 1;
    Grammar grammar_;
    std::map<std::string, int> ids_;
    std::vector<bool> defined_;
    std::vector<int> usedLine_;  // where each rule was first used
};

}  // namespace

Grammar compileGrammar(std::string_view text) {
    return Parser(text).parse();
}

}  // namespace inferlens
