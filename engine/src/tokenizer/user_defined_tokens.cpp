#include "tokenizer/user_defined_tokens.h"

#include <algorithm>
#include <cstdint>

namespace inferlens {

bool isTextPiece(std::string_view piece) {
    if (piece.empty())
        return false;
    if (piece.find_first_not_of(" \t\r\n") == std::string_view::npos)
        return true;
    // One UTF-8 character: a lead byte and the continuation bytes after it.
    return std::all_of(piece.begin() + 1, piece.end(),
                       [](char byte) { return (uint8_t(byte) & 0xC0) == 0x80; });
}

UserDefinedTokens::UserDefinedTokens(const std::vector<VocabEntry>& entries) {
    for (size_t id = 0; id < entries.size(); ++id)
        if (entries[id].type == PieceType::UserDefined && isTextPiece(entries[id].piece))
            tokens_.emplace_back(entries[id].piece, int32_t(id));
    std::stable_sort(tokens_.begin(), tokens_.end(),
                     [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
}

std::vector<TextFragment> UserDefinedTokens::partition(std::string_view text) const {
    std::vector<TextFragment> fragments{{0, text.size(), -1}};
    // One token at a time over all fragments, as llama.cpp does: a longer token claims its
    // occurrences before a shorter one that overlaps them is looked for.
    for (const auto& [piece, id] : tokens_) {
        std::vector<TextFragment> next;
        for (const TextFragment& fragment : fragments) {
            if (fragment.token >= 0) {
                next.push_back(fragment);
                continue;
            }
            size_t at = fragment.begin;
            for (;;) {
                const size_t found = text.substr(0, fragment.end).find(piece, at);
                if (found == std::string_view::npos)
                    break;
                if (found > at)
                    next.push_back({at, found, -1});
                next.push_back({found, found + piece.size(), id});
                at = found + piece.size();
            }
            if (at < fragment.end)
                next.push_back({at, fragment.end, -1});
        }
        fragments = std::move(next);
    }
    return fragments;
}

}  // namespace inferlens
