#include "tokenizer/utf8_assembler.h"

#include <string_view>

namespace inferlens {
namespace {

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

}  // namespace

std::string Utf8Assembler::push(uint8_t byte) {
    pending_ += char(byte);
    return drain(false);
}

std::string Utf8Assembler::flush() {
    return drain(true);
}

std::string Utf8Assembler::drain(bool final) {
    std::string out;
    size_t start = 0;
    while (start < pending_.size()) {
        size_t length = 0;
        const auto prefix = classifyUtf8(std::string_view(pending_).substr(start), length);
        if (prefix == Utf8Prefix::Complete) {
            out.append(pending_, start, length);
            start += length;
        } else if (prefix == Utf8Prefix::Invalid || final) {
            // As sentencepiece: one U+FFFD for the first byte, then look again from the next.
            out += kReplacement;
            start += 1;
        } else {
            break;  // wait for the rest of the character
        }
    }
    pending_.erase(0, start);
    return out;
}

}  // namespace inferlens
