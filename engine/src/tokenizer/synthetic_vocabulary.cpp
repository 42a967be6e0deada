#include "tokenizer/synthetic_vocabulary.h"

#include <cstdio>
#include <deque>
#include <string>
#include <unordered_set>

#include "core/error.h"

namespace inferlens {
namespace {

const char* const kSpace = "\xe2\x96\x81";  // "▁", sentencepiece's visible space

const char* const kWords[] = {
    "the",  "of",   "and",   "to",    "in",    "is",    "you",       "that", "it",
    "he",   "was",  "for",   "on",    "are",   "as",    "with",      "his",  "they",
    "at",   "be",   "this",  "have",  "from",  "or",    "one",       "had",  "by",
    "word", "but",  "not",   "what",  "all",   "were",  "we",        "when", "your",
    "can",  "said", "hello", "world", "model", "token", "attention", "layer"};

}  // namespace

std::vector<VocabEntry> syntheticVocabulary(int64_t pieceCount,
                                            const std::vector<std::string>& reserved) {
    if (pieceCount < 260)
        throw Error("a synthetic vocabulary needs at least 260 pieces, got " +
                    std::to_string(pieceCount));
    std::vector<VocabEntry> entries{{"<unk>", 0.0f, PieceType::Unknown},
                                    {"<s>", 0.0f, PieceType::Control},
                                    {"</s>", 0.0f, PieceType::Control}};
    for (int value = 0; value < 256; ++value) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", value);
        entries.push_back({name, 0.0f, PieceType::Byte});
    }
    // Normal pieces, best merge first: BPE scores decrease with the id.
    std::unordered_set<std::string> present(reserved.begin(), reserved.end());
    std::deque<std::string> toExtend;
    const auto add = [&](const std::string& piece) {
        if (int64_t(entries.size()) >= pieceCount || !present.insert(piece).second)
            return;
        entries.push_back({piece, -float(entries.size()), PieceType::Normal});
        toExtend.push_back(piece);
    };
    add(kSpace);
    for (char letter = 'a'; letter <= 'z'; ++letter)
        add(std::string(1, letter));
    for (const char* word : kWords) {
        std::string prefix = kSpace;
        for (const char* c = word; *c; ++c)
            add(prefix += *c);
    }
    for (char c = '!'; c <= '~'; ++c)
        add(std::string(1, c));
    while (int64_t(entries.size()) < pieceCount) {
        const std::string base = toExtend.front();
        toExtend.pop_front();
        for (char letter = 'a'; letter <= 'z'; ++letter)
            add(base + letter);
    }
    return entries;
}

}  // namespace inferlens
