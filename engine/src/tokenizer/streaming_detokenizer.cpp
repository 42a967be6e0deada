#include "tokenizer/streaming_detokenizer.h"

#include <string_view>

namespace inferlens {
namespace {

const std::string_view kSpaceSymbol = "\xE2\x96\x81";  // "▁", sentencepiece's visible space

std::string withSpaces(std::string_view piece) {
    std::string text;
    for (size_t at = 0; at < piece.size();) {
        if (piece.substr(at, kSpaceSymbol.size()) == kSpaceSymbol) {
            text += ' ';
            at += kSpaceSymbol.size();
        } else {
            text += piece[at++];
        }
    }
    return text;
}

}  // namespace

StreamingDetokenizer::StreamingDetokenizer(const Tokenizer& tokenizer, SpecialTokens specials)
    : tokenizer_(tokenizer), specials_(specials) {}

void StreamingDetokenizer::reset() {
    bytes_ = {};
    expectPrefixSpace_ = true;
    prefixSpaceSeen_ = false;
    wroteText_ = false;
}

std::string StreamingDetokenizer::push(int32_t id) {
    if (tokenizer_.isByteLevel())
        return pushByteLevel(id);
    if (const auto byte = tokenizer_.byteValue(id)) {
        std::string out = bytes_.push(*byte);
        wroteText_ = wroteText_ || !out.empty();
        return out;
    }
    std::string out = bytes_.flush();  // any other piece ends a run of bytes
    wroteText_ = wroteText_ || !out.empty();

    if (prefixSpaceSeen_ || wroteText_)
        expectPrefixSpace_ = false;
    prefixSpaceSeen_ = false;
    if (tokenizer_.isSpecial(id) && !tokenizer_.isUserDefined(id)) {
        // Like sentencepiece's control pieces: no text of their own, no effect on the prefix
        // space. A name written for them counts as text.
        if (specials_ == SpecialTokens::Render)
            out += tokenizer_.piece(id);
    } else if (tokenizer_.isUnknown(id)) {
        out += tokenizer_.unknownSurface();
    } else {
        const std::string stored = tokenizer_.piece(id);
        std::string_view piece = stored;
        if (expectPrefixSpace_ &&
            (tokenizer_.addsDummyPrefix() || tokenizer_.removesExtraWhitespaces()) &&
            piece.starts_with(kSpaceSymbol)) {
            piece.remove_prefix(kSpaceSymbol.size());
            // With remove_extra_whitespaces the next piece may lose its space too (sentencepiece
            // keeps expecting one until text appears).
            prefixSpaceSeen_ = !tokenizer_.removesExtraWhitespaces();
        }
        out += withSpaces(piece);
    }
    wroteText_ = wroteText_ || !out.empty();
    return out;
}

std::string StreamingDetokenizer::pushByteLevel(int32_t id) {
    const bool control = tokenizer_.isSpecial(id) && !tokenizer_.isUserDefined(id);
    const std::string bytes = !control                             ? tokenizer_.textOf(id)
                              : specials_ == SpecialTokens::Render ? tokenizer_.piece(id)
                                                                   : std::string();
    std::string out;
    for (const char byte : bytes)
        out += bytes_.push(uint8_t(byte));
    return out;
}

std::string StreamingDetokenizer::flush() {
    std::string out = bytes_.flush();
    reset();
    return out;
}

}  // namespace inferlens
