#include "tokenizer/streaming_detokenizer.h"

#include <string_view>

namespace inferlens {
namespace {

const std::string_view kSpaceSymbol = "\xE2\x96\x81";  // "▁", sentencepiece's visible space
const std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

enum class Utf8Prefix { Complete, Invalid, Incomplete };

// Classifies the UTF-8 sequence at the start of `bytes` (not empty) exactly as sentencepiece's
// DecodeUTF8 does, except that a sequence that may still be completed by bytes not yet seen is
// Incomplete rather than Invalid. `length` is set for Complete.
Utf8Prefix classifyUtf8(std::string_view bytes, size_t& length) {
    const auto lead = uint8_t(bytes[0]);
    if (lead < 0x80) {
        length = 1;
        return Utf8Prefix::Complete;
    }
    size_t needed;
    uint32_t smallest;
    uint32_t codePoint;
    if ((lead & 0xe0) == 0xc0) {
        needed = 2, smallest = 0x80, codePoint = lead & 0x1f;
    } else if ((lead & 0xf0) == 0xe0) {
        needed = 3, smallest = 0x800, codePoint = lead & 0x0f;
    } else if ((lead & 0xf8) == 0xf0) {
        needed = 4, smallest = 0x10000, codePoint = lead & 0x07;
    } else {
        return Utf8Prefix::Invalid;  // a continuation byte, or a lead byte no character has
    }
    for (size_t k = 1; k < needed && k < bytes.size(); ++k) {
        const auto next = uint8_t(bytes[k]);
        if ((next & 0xc0) != 0x80)
            return Utf8Prefix::Invalid;
        codePoint = (codePoint << 6) | (next & 0x3f);
    }
    if (bytes.size() < needed)
        return Utf8Prefix::Incomplete;
    // Overlong forms, surrogates and values past U+10FFFF.
    if (codePoint < smallest || codePoint > 0x10ffff ||
        (codePoint >= 0xd800 && codePoint <= 0xdfff))
        return Utf8Prefix::Invalid;
    length = needed;
    return Utf8Prefix::Complete;
}

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
    pendingBytes_.clear();
    expectPrefixSpace_ = true;
    prefixSpaceSeen_ = false;
    wroteText_ = false;
}

void StreamingDetokenizer::drainBytes(std::string& out, bool final) {
    size_t start = 0;
    while (start < pendingBytes_.size()) {
        size_t length = 0;
        const auto prefix = classifyUtf8(std::string_view(pendingBytes_).substr(start), length);
        if (prefix == Utf8Prefix::Complete) {
            out.append(pendingBytes_, start, length);
            start += length;
        } else if (prefix == Utf8Prefix::Invalid || final) {
            // As sentencepiece: one U+FFFD for the first byte, then look again from the next.
            out += kReplacement;
            start += 1;
        } else {
            break;  // wait for the rest of the character
        }
    }
    pendingBytes_.erase(0, start);
    wroteText_ = wroteText_ || !out.empty();
}

std::string StreamingDetokenizer::push(int32_t id) {
    std::string out;
    if (const auto byte = tokenizer_.byteValue(id)) {
        pendingBytes_ += char(*byte);
        drainBytes(out, false);
        return out;
    }
    drainBytes(out, true);  // any other piece ends a run of bytes

    if (prefixSpaceSeen_ || wroteText_)
        expectPrefixSpace_ = false;
    prefixSpaceSeen_ = false;
    if (tokenizer_.isSpecial(id)) {
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

std::string StreamingDetokenizer::flush() {
    std::string out;
    drainBytes(out, true);
    reset();
    return out;
}

}  // namespace inferlens
