// The per-step cost of the grammar mask over a 65,024-token vocabulary (ChatGLM2-6B's size): the
// time GrammarStage::allowedTokens takes at typical states of a JSON grammar — before the first
// byte, inside a string (where almost every token is allowed, the worst case), and after a key
// (few tokens allowed). The vocabulary is synthetic but shaped like a real one: the 256 byte
// tokens, then words with and without a leading space, numbers, punctuation runs and CJK pieces.
//
//   bench_grammar_mask [runs]      (default 21; prints the medians per state, in ms)

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "grammar/grammar_stage.h"

using namespace inferlens;

namespace {

constexpr const char* kJsonGrammar =
    "root   ::= object\n"
    "value  ::= object | array | string | number | (\"true\" | \"false\" | \"null\") ws\n"
    "object ::= \"{\" ws ( string \":\" ws value (\",\" ws string \":\" ws value)* )? \"}\" ws\n"
    "array  ::= \"[\" ws ( value (\",\" ws value)* )? \"]\" ws\n"
    "string ::= \"\\\"\" ( [^\"\\\\\\x00-\\x1f] | \"\\\\\" ([\"\\\\/bfnrt] | \"u\" hex hex hex "
    "hex) )* "
    "\"\\\"\" ws\n"
    "number ::= (\"-\"? ([0-9] | [1-9] [0-9]*)) (\".\" [0-9]+)? ([eE] [-+]? [0-9]+)? ws\n"
    "hex    ::= [0-9a-fA-F]\n"
    "ws     ::= ([ \\t\\n] ws)?\n";

std::string utf8(uint32_t c) {
    std::string s;
    if (c < 0x800) {
        s += char(0xc0 | (c >> 6));
    } else {
        s += char(0xe0 | (c >> 12));
        s += char(0x80 | ((c >> 6) & 0x3f));
    }
    s += char(0x80 | (c & 0x3f));
    return s;
}

std::vector<std::string> vocabulary(size_t size) {
    std::mt19937 random(11);
    std::vector<std::string> texts;
    for (int b = 0; b < 256; ++b)
        texts.push_back(std::string(1, char(b)));
    const std::string letters = "etaoinshrdlucmfwypvbgkjqxz";
    const std::string punctuation = ".,;:!?-_()[]{}\"'/\\*&%$#@+=<>|~`";
    while (texts.size() < size) {
        const int kind = int(random() % 10);
        std::string t = random() % 2 ? " " : "";
        if (kind < 5) {
            for (size_t n = 1 + random() % 10; n > 0; --n)
                t += letters[std::min<size_t>(random() % 26, random() % 26)];
        } else if (kind == 5) {
            for (size_t n = 1 + random() % 4; n > 0; --n)
                t += char('0' + random() % 10);
        } else if (kind == 6) {
            for (size_t n = 1 + random() % 3; n > 0; --n)
                t += punctuation[random() % punctuation.size()];
        } else {
            for (size_t n = 1 + random() % 3; n > 0; --n)
                t += utf8(0x4e00 + uint32_t(random() % 0x5000));
        }
        texts.push_back(t);
    }
    return texts;
}

}  // namespace

int main(int argc, char** argv) {
    const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 21;
    const std::vector<std::string> texts = vocabulary(65024);
    // History ids: tokens whose text is exactly the bytes wanted (the byte tokens 0-255).
    const auto idsOf = [](const std::string& text) {
        std::vector<int32_t> ids{0};  // a one-token prompt
        for (const char c : text)
            ids.push_back(int32_t(uint8_t(c)));
        return ids;
    };
    const GrammarStage stage(kJsonGrammar);
    const std::vector<int32_t> stops{1};
    std::printf(
        "| state | tokens allowed | first step in the state, median ms | again, median ms "
        "|\n|---|---|---|---|\n");
    for (const auto& [name, text] : {std::pair{"before the first byte", std::string()},
                                     {"inside a string", std::string("{\"name\": \"Li")},
                                     {"after a key", std::string("{\"name\"")}}) {
        const std::vector<int32_t> history = idsOf(text);
        const SamplerContext context{history, 1, stops, &texts};
        stage.allowedTokens(context);  // builds the trie once
        // A state's first step walks the trie; the next ones in the same state (every token of
        // a string's text leads back to it) find its mask kept.
        std::vector<double> first, again;
        size_t allowed = 0;
        const auto timed = [&](std::vector<double>& ms) {
            const auto start = std::chrono::steady_clock::now();
            const std::vector<uint8_t> mask = stage.allowedTokens(context);
            ms.push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                    .count());
            allowed = size_t(std::count(mask.begin(), mask.end(), 1));
        };
        for (int run = 0; run < runs; ++run) {
            stage.forgetMasks();
            timed(first);
            timed(again);
        }
        const auto median = [](std::vector<double>& ms) {
            std::sort(ms.begin(), ms.end());
            return ms[ms.size() / 2];
        };
        std::printf("| %s | %zu of %zu | %.2f | %.2f |\n", name, allowed, texts.size(),
                    median(first), median(again));
    }
    return 0;
}
