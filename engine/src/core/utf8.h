#pragma once

#include <string>
#include <string_view>

namespace inferlens {

// True when `text` is well-formed UTF-8 (no overlong forms, surrogates or values past U+10FFFF).
bool isValidUtf8(std::string_view text);

// `text` with every byte that is not part of a well-formed UTF-8 sequence written as \xNN.
std::string escapeInvalidUtf8(std::string_view text);

}  // namespace inferlens
