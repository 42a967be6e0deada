#pragma once
// GPT-2's byte-level alphabet: byte-level BPE vocabularies (GPT-2, Llama 3, Qwen2, SmolLM, ...)
// spell every byte as one printable character, so that a space is "Ġ" (U+0120) and a newline "Ċ"
// (U+010A). Printable Latin-1 bytes stand for themselves; the other 68 bytes take the code points
// from U+0100 upwards, in byte order.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace inferlens {

// The UTF-8 of the character that spells `byte`.
const std::string& byteLevelCharacter(uint8_t byte);

// `bytes` spelt in the alphabet, one character per byte (any bytes, valid UTF-8 or not).
std::string byteLevelEncode(std::string_view bytes);

// The bytes a vocabulary piece spells; nullopt when a character of it is not in the alphabet
// (then the piece is not byte-level text, e.g. an added token like "<|im_start|>").
std::optional<std::string> byteLevelDecode(std::string_view piece);

}  // namespace inferlens
