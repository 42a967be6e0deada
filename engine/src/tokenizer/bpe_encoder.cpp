#include "tokenizer/bpe_encoder.h"

#include <algorithm>
#include <cstdio>
#include <queue>

#include "core/error.h"
#include "tokenizer/byte_level_alphabet.h"

namespace inferlens {
namespace {

struct Symbol {
    int prev = -1;
    int next = -1;
    size_t begin = 0;  // bytes [begin, begin + count) of the word; count 0 once merged away
    size_t count = 0;
};

struct Candidate {
    int32_t rank = 0;
    int left = 0;
    int right = 0;
    size_t leftCount = 0;  // the sizes when queued: a candidate whose symbols changed is stale
    size_t rightCount = 0;

    // The queue's top is the lowest rank, the leftmost pair among equal ranks.
    bool operator<(const Candidate& other) const {
        return rank != other.rank ? rank > other.rank : left > other.left;
    }
};

}  // namespace

BpeEncoder::BpeEncoder(const BpeVocabulary& vocabulary, std::string source)
    : userDefined_(vocabulary.entries),
      ignoreMerges_(vocabulary.preTokenizer.ignoreMerges),
      source_(std::move(source)) {
    idOf_.reserve(vocabulary.entries.size());
    for (size_t id = 0; id < vocabulary.entries.size(); ++id) {
        const VocabEntry& entry = vocabulary.entries[id];
        idOf_.emplace(entry.piece, int32_t(id));  // the first of duplicates wins
        if (entry.type == PieceType::Unknown && unknownId_ < 0)
            unknownId_ = int32_t(id);
    }
    mergeRank_.reserve(vocabulary.merges.size());
    for (size_t rank = 0; rank < vocabulary.merges.size(); ++rank) {
        const std::string& merge = vocabulary.merges[rank];
        // The separator is the first space after the first character: a piece may start with one
        // only in vocabularies without the byte-level alphabet.
        const size_t space = merge.find(' ', 1);
        if (space == std::string::npos || space + 1 == merge.size())
            throwFileError(source_, "BPE merge " + std::to_string(rank) + " ('" + merge +
                                        "') is not two pieces separated by a space");
        mergeRank_.emplace(merge, int32_t(rank));
    }
    for (unsigned byte = 0; byte < 256; ++byte) {
        const auto found = idOf_.find(byteLevelCharacter(uint8_t(byte)));
        byteTokens_[byte] = found == idOf_.end() ? -1 : found->second;
    }
    splitter_ = std::make_unique<RegexSplitter>(vocabulary.preTokenizer.expressions, source_);
}

int32_t BpeEncoder::byteToken(uint8_t byte) const {
    if (byteTokens_[byte] >= 0)
        return byteTokens_[byte];
    if (unknownId_ >= 0)
        return unknownId_;
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", byte);
    throwFileError(source_, std::string("the vocabulary has no token for byte ") + hex +
                                " and no unknown token");
}

std::vector<EncodedToken> BpeEncoder::encode(std::string_view text) const {
    std::vector<EncodedToken> tokens;
    for (const TextFragment& fragment : userDefined_.partition(text)) {
        if (fragment.token >= 0) {
            tokens.push_back({fragment.token, fragment.begin, fragment.end});
            continue;
        }
        for (const TextPiece& word : splitter_->split(text, {fragment.begin, fragment.end}))
            encodeWord(text, word.begin, word.end, tokens);
    }
    return tokens;
}

void BpeEncoder::encodeWord(std::string_view text, size_t begin, size_t end,
                            std::vector<EncodedToken>& out) const {
    const std::string_view word = text.substr(begin, end - begin);
    // The word in the alphabet, and where each byte's character starts in it.
    std::string spelt;
    std::vector<size_t> charAt(word.size() + 1);
    for (size_t i = 0; i < word.size(); ++i) {
        charAt[i] = spelt.size();
        spelt += byteLevelCharacter(uint8_t(word[i]));
    }
    charAt[word.size()] = spelt.size();
    const auto spelling = [&](size_t from, size_t count) {
        return std::string_view(spelt).substr(charAt[from], charAt[from + count] - charAt[from]);
    };

    if (ignoreMerges_)
        if (const auto whole = idOf_.find(spelt); whole != idOf_.end()) {
            out.push_back({whole->second, begin, end});
            return;
        }

    std::vector<Symbol> symbols(word.size());
    for (size_t i = 0; i < word.size(); ++i)
        symbols[i] = {int(i) - 1, i + 1 < word.size() ? int(i) + 1 : -1, i, 1};
    std::priority_queue<Candidate> queue;
    std::string key;
    const auto consider = [&](int left, int right) {
        if (left < 0 || right < 0)
            return;
        const Symbol& a = symbols[size_t(left)];
        const Symbol& b = symbols[size_t(right)];
        key.assign(spelling(a.begin, a.count));
        key += ' ';
        key += spelling(b.begin, b.count);
        if (const auto rank = mergeRank_.find(key); rank != mergeRank_.end())
            queue.push({rank->second, left, right, a.count, b.count});
    };
    for (size_t i = 1; i < symbols.size(); ++i)
        consider(int(i) - 1, int(i));
    while (!queue.empty()) {
        const Candidate best = queue.top();
        queue.pop();
        Symbol& left = symbols[size_t(best.left)];
        Symbol& right = symbols[size_t(best.right)];
        if (left.next != best.right || left.count != best.leftCount ||
            right.count != best.rightCount)
            continue;  // one of the two has merged with something else since
        left.count += right.count;
        right.count = 0;
        left.next = right.next;
        if (right.next >= 0)
            symbols[size_t(right.next)].prev = best.left;
        consider(left.prev, best.left);
        consider(best.left, left.next);
    }

    for (int at = symbols.empty() ? -1 : 0; at >= 0; at = symbols[size_t(at)].next) {
        const Symbol& symbol = symbols[size_t(at)];
        if (const auto id = idOf_.find(std::string(spelling(symbol.begin, symbol.count)));
            id != idOf_.end()) {
            out.push_back({id->second, begin + symbol.begin, begin + symbol.begin + symbol.count});
            continue;
        }
        for (size_t i = symbol.begin; i < symbol.begin + symbol.count; ++i)
            out.push_back({byteToken(uint8_t(word[i])), begin + i, begin + i + 1});
    }
}

}  // namespace inferlens
