#include "tokenizer/byte_level_alphabet.h"

#include <array>

namespace inferlens {
namespace {

bool isPrintableLatin1(unsigned byte) {
    return (byte >= '!' && byte <= '~') || (byte >= 0xA1 && byte <= 0xAC) ||
           (byte >= 0xAE && byte <= 0xFF);
}

std::string utf8Of(unsigned codePoint) {  // code points below U+0800 are all this needs
    if (codePoint < 0x80)
        return std::string(1, char(codePoint));
    return {char(0xC0 | (codePoint >> 6)), char(0x80 | (codePoint & 0x3F))};
}

struct Alphabet {
    std::array<std::string, 256> characterOf;
    std::array<int16_t, 0x180> byteOf;  // by code point; -1 for characters outside the alphabet

    Alphabet() {
        byteOf.fill(-1);
        unsigned next = 0x100;
        for (unsigned byte = 0; byte < 256; ++byte) {
            const unsigned codePoint = isPrintableLatin1(byte) ? byte : next++;
            characterOf[byte] = utf8Of(codePoint);
            byteOf[codePoint] = int16_t(byte);
        }
    }
};

const Alphabet& alphabet() {
    static const Alphabet instance;
    return instance;
}

}  // namespace

const std::string& byteLevelCharacter(uint8_t byte) {
    return alphabet().characterOf[byte];
}

std::string byteLevelEncode(std::string_view bytes) {
    std::string text;
    text.reserve(bytes.size() * 2);
    for (const char byte : bytes)
        text += byteLevelCharacter(uint8_t(byte));
    return text;
}

std::optional<std::string> byteLevelDecode(std::string_view piece) {
    const Alphabet& table = alphabet();
    std::string bytes;
    for (size_t at = 0; at < piece.size();) {
        const auto lead = uint8_t(piece[at]);
        unsigned codePoint = 0;
        if (lead < 0x80) {
            codePoint = lead;
            at += 1;
        } else if ((lead & 0xE0) == 0xC0 && at + 1 < piece.size() &&
                   (uint8_t(piece[at + 1]) & 0xC0) == 0x80) {
            codePoint = ((lead & 0x1Fu) << 6) | (uint8_t(piece[at + 1]) & 0x3Fu);
            at += 2;
        } else {
            return std::nullopt;  // three- and four-byte characters are never in the alphabet
        }
        if (codePoint >= table.byteOf.size() || table.byteOf[codePoint] < 0)
            return std::nullopt;
        bytes += char(table.byteOf[codePoint]);
    }
    return bytes;
}

}  // namespace inferlens
