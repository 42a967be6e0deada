#include "grammar/grammar_matcher.h"

#include <algorithm>

namespace inferlens {
namespace {

void deduplicate(std::vector<GrammarMatcher::Stack>& stacks) {
    std::sort(stacks.begin(), stacks.end());
    stacks.erase(std::unique(stacks.begin(), stacks.end()), stacks.end());
}

// Whether a character set may contain some code point in [low, high] (a character whose first
// bytes are known).
bool mayMatch(const GrammarElement& e, uint32_t low, uint32_t high) {
    for (const auto& [first, last] : e.ranges) {
        const bool overlaps = first <= high && last >= low;
        if (!e.negated && overlaps)
            return true;
        if (e.negated && first <= low && last >= high)
            return false;  // the whole interval is excluded
    }
    return e.negated;
}

}  // namespace

namespace {

constexpr int kNever = 1 << 28;

int utf8Length(uint32_t c) {
    return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}

// The fewest bytes of a character a set matches; kNever if it matches none.
int shortestCharacter(const GrammarElement& e) {
    if (!e.negated) {
        int fewest = kNever;
        for (const auto& [first, last] : e.ranges)
            fewest = std::min(fewest, utf8Length(first));
        return fewest;
    }
    for (uint32_t c = 0; c <= 0x10ffff;) {
        const auto excluding = std::find_if(e.ranges.begin(), e.ranges.end(), [c](const auto& r) {
            return c >= r.first && c <= r.second;
        });
        if (excluding == e.ranges.end())
            return utf8Length(c);
        c = excluding->second + 1;
    }
    return kNever;
}

}  // namespace

GrammarMatcher::GrammarMatcher(const Grammar& grammar) : grammar_(grammar) {
    // Shortest lengths of the rules, by iterating to a fixed point (rules refer to each other).
    const auto& rules = grammar_.rules;
    std::vector<int> rule(rules.size(), kNever);
    const auto sequenceLength = [&](const std::vector<GrammarElement>& sequence, size_t from) {
        int64_t total = 0;
        for (size_t i = from; i < sequence.size(); ++i) {
            const GrammarElement& e = sequence[i];
            if (e.kind == GrammarElement::Kind::Characters)
                total += shortestCharacter(e);
            else if (e.kind == GrammarElement::Kind::Rule)
                total += rule[size_t(e.rule)];
        }
        return int(std::min<int64_t>(total, kNever));
    };
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t r = 0; r < rules.size(); ++r)
            for (const auto& alternative : rules[r]) {
                const int length = sequenceLength(alternative, 0);
                if (length < rule[r]) {
                    rule[r] = length;
                    changed = true;
                }
            }
    }
    for (const auto& alternatives : rules)
        for (const auto& sequence : alternatives)
            for (size_t i = 0; i < sequence.size(); ++i)
                restOfSequence_[&sequence[i]] = sequenceLength(sequence, i);
    for (const auto& alternative : grammar_.rules[size_t(grammar_.root)])
        expand({&alternative[0]}, initial_.stacks);
    deduplicate(initial_.stacks);
}

void GrammarMatcher::expand(Stack stack, std::vector<Stack>& out) const {
    while (!stack.empty() && stack.back()->kind == GrammarElement::Kind::End)
        stack.pop_back();  // a rule finished: continue after its reference
    if (stack.empty() || stack.back()->kind == GrammarElement::Kind::Characters) {
        out.push_back(std::move(stack));
        return;
    }
    // A rule reference: its continuation below, each alternative's first element on top. A
    // reference that ends its sequence leaves no continuation (a tail call), so that repetition —
    // x* ::= x x* | ε — keeps stacks from growing with every round and equal states stay equal.
    const GrammarElement* reference = stack.back();
    stack.back() = reference + 1;
    if (stack.back()->kind == GrammarElement::Kind::End)
        stack.pop_back();
    for (const auto& alternative : grammar_.rules[size_t(reference->rule)]) {
        Stack next = stack;
        next.push_back(&alternative[0]);
        expand(std::move(next), out);
    }
}

bool GrammarMatcher::advanceCodePoint(State& state, uint32_t codePoint) const {
    std::vector<Stack> next;
    for (Stack& stack : state.stacks) {
        if (stack.empty() || !stack.back()->matches(codePoint))
            continue;
        Stack moved = stack;
        moved.back() = moved.back() + 1;
        expand(std::move(moved), next);
    }
    deduplicate(next);
    state.stacks = std::move(next);
    return !state.stacks.empty();
}

bool GrammarMatcher::advance(State& state, uint8_t byte) const {
    if (state.missing == 0) {
        if (byte < 0x80)
            return advanceCodePoint(state, byte);
        const int length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 0;
        if (length == 0 || byte >= 0xf8)
            return false;  // a stray continuation byte
        state.partial = byte & (0x7f >> length);
        state.missing = length - 1;
        state.smallest = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000;
    } else {
        if ((byte & 0xc0) != 0x80)
            return false;
        state.partial = (state.partial << 6) | (byte & 0x3f);
        if (--state.missing == 0) {
            // Overlong forms, surrogates and code points past Unicode are not characters.
            const uint32_t c = state.partial;
            if (c < state.smallest || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
                return false;
            return advanceCodePoint(state, c);
        }
    }
    // Keep only the stacks some completion of this character could still satisfy.
    const uint32_t first = state.partial << (6 * state.missing);
    const uint32_t low = std::max(first, state.smallest);
    const uint32_t high = std::min<uint32_t>(first | ((1u << (6 * state.missing)) - 1), 0x10ffff);
    // No completion is a character: overlong, past Unicode, or only surrogates.
    if (low > high || (low >= 0xd800 && high <= 0xdfff))
        return false;
    std::erase_if(state.stacks, [&](const Stack& stack) {
        return stack.empty() || !mayMatch(*stack.back(), low, high);
    });
    return !state.stacks.empty();
}

bool GrammarMatcher::advance(State& state, std::string_view bytes) const {
    for (const char byte : bytes)
        if (!advance(state, uint8_t(byte)))
            return false;
    return true;
}

bool GrammarMatcher::accepts(const State& state) {
    return state.missing == 0 && std::any_of(state.stacks.begin(), state.stacks.end(),
                                             [](const Stack& stack) { return stack.empty(); });
}

int GrammarMatcher::shortestCompletion(const State& state) const {
    int fewest = kNever;
    for (const Stack& stack : state.stacks) {
        // The partial character's bytes complete the top element's character.
        int64_t total = state.missing;
        for (size_t i = 0; i < stack.size(); ++i) {
            const GrammarElement* position = stack[i];
            total += restOfSequence_.at(position);
            if (i + 1 == stack.size() && state.missing > 0 &&
                position->kind == GrammarElement::Kind::Characters)
                total -= shortestCharacter(*position);  // counted as the missing bytes instead
        }
        fewest = int(std::min<int64_t>(fewest, std::max<int64_t>(total, 0)));
    }
    return fewest;
}

bool GrammarMatcher::continues(const State& state) {
    return std::any_of(state.stacks.begin(), state.stacks.end(),
                       [](const Stack& stack) { return !stack.empty(); });
}

}  // namespace inferlens
