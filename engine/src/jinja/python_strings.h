#pragma once
// Python's str operations that chat templates use, on UTF-8 with user-text marks kept where the
// result is a piece of the input (strip, split) and spread over the result otherwise (upper,
// replace). Case mapping is ASCII-only: the scripts templates write in (English keywords, CJK
// content) need nothing more.

#include <optional>
#include <string>
#include <vector>

#include "jinja/tagged_text.h"

namespace inferlens::jinja {

enum class StripSide { Both, Left, Right };
// `chars` absent: whitespace, as str.strip(); else any of its characters.
TaggedText pythonStrip(const TaggedText& text, const std::optional<std::string>& chars,
                       StripSide side = StripSide::Both);
// str.split(sep, maxsplit): `sep` absent splits on runs of whitespace and drops empty parts; an
// empty `sep` throws RuntimeProblem.
std::vector<TaggedText> pythonSplit(const TaggedText& text, const std::optional<std::string>& sep,
                                    int64_t maxSplit = -1);
TaggedText pythonReplace(const TaggedText& text, const std::string& from, const TaggedText& to,
                         int64_t count = -1);
std::string asciiUpper(std::string text);
std::string asciiLower(std::string text);
std::string pythonCapitalize(const std::string& text);  // "hELLO" → "Hello"
std::string pythonTitle(const std::string& text);       // str.title(): "it's" → "It'S"
std::string jinjaTitle(const std::string& text);        // the title filter: "it's" → "It's"

}  // namespace inferlens::jinja
