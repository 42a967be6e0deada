// Grammars and JSON schemas as a user types them: the text is compiled as a grammar and, read as a
// JSON schema, converted and compiled; a grammar that compiles runs its recognizer over the input's
// own bytes and its shortest-completion measure at every step, and masks a small vocabulary.

#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "grammar/grammar.h"
#include "grammar/grammar_matcher.h"
#include "grammar/grammar_stage.h"
#include "grammar/json_schema.h"

namespace {

void exercise(const std::string& text, std::string_view input) {
    const inferlens::Grammar grammar = inferlens::compileGrammar(text);
    const inferlens::GrammarMatcher matcher(grammar);
    inferlens::GrammarMatcher::State state = matcher.initial();
    for (const char byte : input.substr(0, 64)) {
        matcher.shortestCompletion(state);
        if (!matcher.advance(state, uint8_t(byte)))
            break;
    }
    const std::vector<std::string> texts{"", "a", "{", "\"", "ab", "1", " ", "\xe4\xbd\xa0", "\xe4",
                                         "\xbd\xa0", "}", "]", "[", ",", ":", "true"};
    const std::vector<int32_t> history{1, 2, 3};
    const std::vector<int32_t> stops{0};
    const inferlens::GrammarStage stage(text);
    stage.allowedTokens({history, 3, stops, &texts, 8});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        exercise(std::string(text), text);
    } catch (const inferlens::Error&) {
    }
    try {
        exercise(inferlens::grammarFromJsonSchema(text), text);
    } catch (const inferlens::Error&) {
    }
    return 0;
}
