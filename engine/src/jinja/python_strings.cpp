#include "jinja/python_strings.h"

#include "jinja/build_limits.h"
#include "jinja/jinja_error.h"
#include "jinja/value.h"

namespace inferlens::jinja {

namespace {

bool isPythonSpace(const std::string& text, size_t at, size_t* length) {
    const unsigned char c = static_cast<unsigned char>(text[at]);
    *length = 1;
    if (c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f))
        return true;
    // U+00A0, U+3000 and U+2000..U+200A: the non-ASCII spaces Python strips that text may hold.
    const std::string_view rest = std::string_view(text).substr(at);
    for (const std::string_view space : {"\u00a0", "\u3000", "\u2028", "\u2029", "\u0085"})
        if (rest.substr(0, space.size()) == space) {
            *length = space.size();
            return true;
        }
    if (rest.size() >= 3 && rest.substr(0, 2) == "\xe2\x80" &&
        static_cast<unsigned char>(rest[2]) >= 0x80 &&
        static_cast<unsigned char>(rest[2]) <= 0x8a) {
        *length = 3;
        return true;
    }
    return false;
}

// The length of the strippable character at `at`, or 0.
size_t strippable(const std::string& text, size_t at, const std::optional<std::string>& chars) {
    if (!chars) {
        size_t length = 0;
        return isPythonSpace(text, at, &length) ? length : 0;
    }
    size_t length = 1;
    while (at + length < text.size() &&
           (static_cast<unsigned char>(text[at + length]) & 0xC0) == 0x80)
        ++length;
    const std::string character = text.substr(at, length);
    for (const size_t start : characterStarts(*chars)) {
        if (chars->compare(start, length, character) == 0 &&
            (start + length == chars->size() ||
             (static_cast<unsigned char>((*chars)[start + length]) & 0xC0) != 0x80))
            return length;
    }
    return 0;
}

}  // namespace

TaggedText pythonStrip(const TaggedText& text, const std::optional<std::string>& chars,
                       StripSide side) {
    const std::string& s = text.text();
    size_t begin = 0;
    size_t end = s.size();
    if (side != StripSide::Right)
        while (begin < end) {
            const size_t n = strippable(s, begin, chars);
            if (n == 0)
                break;
            begin += n;
        }
    if (side != StripSide::Left)
        while (end > begin) {
            size_t start = end - 1;
            while (start > begin && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80)
                --start;
            if (strippable(s, start, chars) != end - start)
                break;
            end = start;
        }
    return text.slice(begin, end - begin);
}

std::vector<TaggedText> pythonSplit(const TaggedText& text, const std::optional<std::string>& sep,
                                    int64_t maxSplit) {
    const std::string& s = text.text();
    std::vector<TaggedText> parts;
    if (sep && sep->empty())  // would find itself everywhere: Python refuses it too
        throw RuntimeProblem("empty separator");
    if (sep) {
        size_t start = 0;
        while (maxSplit < 0 || int64_t(parts.size()) < maxSplit) {
            const size_t found = s.find(*sep, start);
            if (found == std::string::npos)
                break;
            checkListSize(parts.size() + 1);
            parts.push_back(text.slice(start, found - start));
            start = found + sep->size();
        }
        parts.push_back(text.slice(start, s.size() - start));
        return parts;
    }
    size_t i = 0;
    size_t length = 0;
    while (i < s.size()) {
        while (i < s.size() && isPythonSpace(s, i, &length))
            i += length;
        if (i >= s.size())
            break;
        if (maxSplit >= 0 && int64_t(parts.size()) == maxSplit) {
            // The rest, with its trailing whitespace stripped, is the last part.
            parts.push_back(
                pythonStrip(text.slice(i, s.size() - i), std::nullopt, StripSide::Right));
            break;
        }
        const size_t start = i;
        while (i < s.size() && !isPythonSpace(s, i, &length))
            ++i;
        checkListSize(parts.size() + 1);
        parts.push_back(text.slice(start, i - start));
    }
    return parts;
}

TaggedText pythonReplace(const TaggedText& text, const std::string& from, const TaggedText& to,
                         int64_t count) {
    const std::string& s = text.text();
    TaggedText result;
    if (from.empty()) {
        // Python inserts `to` before every character and at the end.
        const std::vector<size_t> starts = characterStarts(s);
        int64_t done = 0;
        for (size_t i = 0; i <= starts.size(); ++i) {
            if (count < 0 || done < count) {
                checkTextSize(result.size() + to.size());
                result.append(to);
                ++done;
            }
            if (i < starts.size()) {
                const size_t end = i + 1 < starts.size() ? starts[i + 1] : s.size();
                result.append(text.slice(starts[i], end - starts[i]));
            }
        }
        return result;
    }
    size_t start = 0;
    int64_t done = 0;
    while (count < 0 || done < count) {
        const size_t found = s.find(from, start);
        if (found == std::string::npos)
            break;
        checkTextSize(result.size() + (found - start) + to.size());
        result.append(text.slice(start, found - start));
        result.append(to);
        start = found + from.size();
        ++done;
    }
    result.append(text.slice(start, s.size() - start));
    return result;
}

std::string asciiUpper(std::string text) {
    for (char& c : text)
        if (c >= 'a' && c <= 'z')
            c = char(c - 'a' + 'A');
    return text;
}

std::string asciiLower(std::string text) {
    for (char& c : text)
        if (c >= 'A' && c <= 'Z')
            c = char(c - 'A' + 'a');
    return text;
}

std::string pythonCapitalize(const std::string& text) {
    std::string result = asciiLower(text);
    if (!result.empty())
        result[0] = asciiUpper(result.substr(0, 1))[0];
    return result;
}

namespace {
bool isAsciiLetter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
}  // namespace

std::string pythonTitle(const std::string& text) {
    std::string result = text;
    bool previousCased = false;
    for (char& c : result) {
        if (isAsciiLetter(c)) {
            c = previousCased ? asciiLower(std::string(1, c))[0] : asciiUpper(std::string(1, c))[0];
            previousCased = true;
        } else {
            previousCased = static_cast<unsigned char>(c) >= 0x80 && previousCased;
        }
    }
    return result;
}

std::string jinjaTitle(const std::string& text) {
    // jinja2 splits before runs of whitespace, "-", and opening brackets, then capitalizes
    // each part.
    std::string result;
    bool wordStart = true;
    for (const char c : text) {
        const bool separator = c == ' ' || (c >= '\t' && c <= '\r') || c == '-' || c == '(' ||
                               c == '{' || c == '[' || c == '<';
        if (separator) {
            result += c;
            wordStart = true;
        } else {
            result +=
                wordStart ? asciiUpper(std::string(1, c))[0] : asciiLower(std::string(1, c))[0];
            wordStart = false;
        }
    }
    return result;
}

}  // namespace inferlens::jinja
