#include "jinja/lexer.h"

#include <algorithm>
#include <array>
#include <charconv>

namespace inferlens::jinja {
namespace {

bool isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool isNameStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

// jinja2 reads templates line by line: "\r\n" and "\r" become "\n", and without
// keep_trailing_newline one final newline goes.
std::string normalizeNewlines(std::string_view source) {
    std::string text;
    text.reserve(source.size());
    for (size_t i = 0; i < source.size(); ++i) {
        if (source[i] == '\r') {
            text += '\n';
            if (i + 1 < source.size() && source[i + 1] == '\n')
                ++i;
        } else {
            text += source[i];
        }
    }
    if (!text.empty() && text.back() == '\n')
        text.pop_back();
    return text;
}

void appendUtf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += char(0xE0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    } else {
        out += char(0xF0 | (cp >> 18));
        out += char(0x80 | ((cp >> 12) & 0x3F));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
}

class Lexer {
  public:
    Lexer(std::string source, const std::string& name, WhitespaceOptions options)
        : src_(std::move(source)), name_(name), options_(options) {
        lineStarts_.push_back(0);
        for (size_t i = 0; i < src_.size(); ++i)
            if (src_[i] == '\n')
                lineStarts_.push_back(i + 1);
    }

    std::vector<Token> run() {
        size_t pos = 0;
        while (pos < src_.size()) {
            const size_t open = findOpener(pos);
            if (open == std::string::npos) {
                emitText(pos, src_.substr(pos));
                break;
            }
            const char kind = src_[open + 1];  // '{', '%' or '#'
            const char modifier = open + 2 < src_.size() ? src_[open + 2] : '\0';
            emitText(pos, stripBeforeTag(pos, src_.substr(pos, open - pos), kind, modifier));
            pos = open + 2 + (modifier == '-' || modifier == '+' ? 1 : 0);
            pos = kind == '#' ? skipComment(open, pos) : lexTag(open, pos, kind);
        }
        tokens_.push_back(Token{TokenKind::End, {}, 0, 0, positionOf(src_.size())});
        return std::move(tokens_);
    }

  private:
    [[noreturn]] void fail(size_t offset, const std::string& problem) const {
        throw JinjaError(name_, positionOf(offset), problem);
    }

    // Tokens come in source order, so the column is counted on from the previous position on the
    // same line: counting from the line's start each time made a long line quadratic.
    SourcePosition positionOf(size_t offset) const {
        offset = std::min(offset, src_.size());
        const auto line = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset) - 1;
        const int lineNumber = int(line - lineStarts_.begin()) + 1;
        size_t from = *line;
        int column = 1;
        if (lastLine_ == lineNumber && lastOffset_ <= offset) {
            from = lastOffset_;
            column = lastColumn_;
        }
        for (size_t i = from; i < offset; ++i)
            if ((static_cast<unsigned char>(src_[i]) & 0xC0) != 0x80)
                ++column;
        lastLine_ = lineNumber;
        lastOffset_ = offset;
        lastColumn_ = column;
        return {lineNumber, column};
    }

    size_t findOpener(size_t from) const {
        for (size_t i = src_.find('{', from); i != std::string::npos; i = src_.find('{', i + 1))
            if (i + 1 < src_.size() &&
                (src_[i + 1] == '{' || src_[i + 1] == '%' || src_[i + 1] == '#'))
                return i;
        return std::string::npos;
    }

    // The text before a tag loses its trailing whitespace to "-", or, with lstrip_blocks, the
    // spaces between the start of its line and a block or comment tag.
    std::string stripBeforeTag(size_t textStart, std::string text, char kind, char modifier) const {
        if (modifier == '-') {
            size_t end = text.size();
            while (end > 0 && isSpace(text[end - 1]))
                --end;
            text.resize(end);
        } else if (modifier != '+' && options_.lstripBlocks && kind != '{') {
            const size_t newline = text.rfind('\n');
            const size_t lineStart = newline == std::string::npos ? 0 : newline + 1;
            const bool atLineStart = lineStart > 0 || textStart == 0 || src_[textStart - 1] == '\n';
            if (atLineStart && lineStart < text.size() &&
                std::all_of(text.begin() + long(lineStart), text.end(), isSpace))
                text.resize(lineStart);
        }
        return text;
    }

    void emitText(size_t offset, std::string text) {
        if (!text.empty())
            tokens_.push_back(Token{TokenKind::Text, std::move(text), 0, 0, positionOf(offset)});
    }

    // After a tag: "-" strips all following whitespace; trim_blocks drops one newline after a
    // block or comment tag unless "+" keeps it.
    size_t afterTag(size_t pos, char closeModifier, bool isBlockOrComment) const {
        if (closeModifier == '-') {
            while (pos < src_.size() && isSpace(src_[pos]))
                ++pos;
        } else if (closeModifier != '+' && isBlockOrComment && options_.trimBlocks &&
                   pos < src_.size() && src_[pos] == '\n') {
            ++pos;
        }
        return pos;
    }

    size_t skipComment(size_t open, size_t pos) {
        const size_t close = src_.find("#}", pos);
        if (close == std::string::npos)
            fail(open, "the comment is not closed (missing '#}')");
        const char modifier = close > pos && (src_[close - 1] == '-' || src_[close - 1] == '+')
                                  ? src_[close - 1]
                                  : '\0';
        return afterTag(close + 2, modifier, true);
    }

    size_t lexTag(size_t open, size_t pos, char kind) {
        const bool block = kind == '%';
        const char closer = block ? '%' : '}';
        tokens_.push_back(Token{
            block ? TokenKind::BlockBegin : TokenKind::VariableBegin, {}, 0, 0, positionOf(open)});
        int depth = 0;  // open brackets: a "}" inside a dict literal closes nothing
        while (true) {
            while (pos < src_.size() && isSpace(src_[pos]))
                ++pos;
            if (pos >= src_.size())
                fail(open, std::string("the tag is not closed (missing '") + closer + "}')");
            if (depth == 0) {
                for (const char modifier : {'-', '+', '\0'}) {
                    const size_t at = pos + (modifier ? 1 : 0);
                    if ((!modifier || src_[pos] == modifier) && at + 1 < src_.size() &&
                        src_[at] == closer && src_[at + 1] == '}') {
                        tokens_.push_back(
                            Token{block ? TokenKind::BlockEnd : TokenKind::VariableEnd,
                                  {},
                                  0,
                                  0,
                                  positionOf(pos)});
                        return afterTag(at + 2, modifier, block);
                    }
                }
            }
            pos = lexToken(pos, depth);
        }
    }

    size_t lexToken(size_t pos, int& depth) {
        const char c = src_[pos];
        const SourcePosition where = positionOf(pos);
        if (isNameStart(c)) {
            size_t end = pos;
            while (end < src_.size() && (isNameStart(src_[end]) || isDigit(src_[end])))
                ++end;
            tokens_.push_back(Token{TokenKind::Name, src_.substr(pos, end - pos), 0, 0, where});
            return end;
        }
        if (isDigit(c))
            return lexNumber(pos, where);
        if (c == '\'' || c == '"')
            return lexString(pos, where);
        static constexpr std::array<std::string_view, 25> kOperators{
            "**", "//", "==", "!=", "<=", ">=", "+", "-", "*", "/", "%", "~", "<",
            ">",  "=",  "(",  ")",  "[",  "]",  "{", "}", ",", ".", ":", "|"};
        for (const std::string_view op : kOperators)
            if (std::string_view(src_).substr(pos, op.size()) == op) {
                if (op == "(" || op == "[" || op == "{")
                    ++depth;
                else if ((op == ")" || op == "]" || op == "}") && depth > 0)
                    --depth;
                tokens_.push_back(Token{TokenKind::Operator, std::string(op), 0, 0, where});
                return pos + op.size();
            }
        fail(pos, "unexpected character '" + std::string(1, c) + "'");
    }

    size_t lexNumber(size_t pos, SourcePosition where) {
        size_t end = pos;
        std::string digits;
        const auto takeDigits = [&] {
            while (end < src_.size() && (isDigit(src_[end]) || src_[end] == '_')) {
                if (src_[end] != '_')
                    digits += src_[end];
                ++end;
            }
        };
        takeDigits();
        bool isFloat = false;
        if (end + 1 < src_.size() && src_[end] == '.' && isDigit(src_[end + 1])) {
            isFloat = true;
            digits += src_[end++];
            takeDigits();
        }
        if (end < src_.size() && (src_[end] == 'e' || src_[end] == 'E')) {
            size_t exponent = end + 1;
            if (exponent < src_.size() && (src_[exponent] == '+' || src_[exponent] == '-'))
                ++exponent;
            if (exponent < src_.size() && isDigit(src_[exponent])) {
                isFloat = true;
                digits += 'e';
                digits.append(src_, end + 1, exponent - end - 1);
                end = exponent;
                takeDigits();
            }
        }
        Token token{isFloat ? TokenKind::Float : TokenKind::Integer, digits, 0, 0, where};
        if (isFloat) {
            std::from_chars(digits.data(), digits.data() + digits.size(), token.number);
        } else if (std::from_chars(digits.data(), digits.data() + digits.size(), token.integer)
                       .ec != std::errc()) {
            fail(pos, "the integer " + digits + " is too large");
        }
        tokens_.push_back(std::move(token));
        return end;
    }

    size_t lexString(size_t pos, SourcePosition where) {
        const char quote = src_[pos];
        std::string value;
        size_t i = pos + 1;
        for (; i < src_.size() && src_[i] != quote; ++i) {
            if (src_[i] != '\\' || i + 1 >= src_.size()) {
                value += src_[i];
                continue;
            }
            const char e = src_[++i];
            switch (e) {
                case 'n':
                    value += '\n';
                    break;
                case 't':
                    value += '\t';
                    break;
                case 'r':
                    value += '\r';
                    break;
                case '0':
                    value += '\0';
                    break;
                case '\\':
                case '\'':
                case '"':
                    value += e;
                    break;
                case '\n':  // a backslash at the end of a line continues it
                    break;
                case 'x':
                case 'u':
                case 'U': {
                    const size_t width = e == 'x' ? 2 : e == 'u' ? 4 : 8;
                    uint32_t cp = 0;
                    if (i + width >= src_.size() ||
                        std::from_chars(src_.data() + i + 1, src_.data() + i + 1 + width, cp, 16)
                                .ptr != src_.data() + i + 1 + width ||
                        cp > 0x10FFFF)
                        fail(i - 1, "bad \\" + std::string(1, e) + " escape in a string");
                    appendUtf8(value, cp);
                    i += width;
                    break;
                }
                default:  // Python keeps unknown escapes as written
                    value += '\\';
                    value += e;
            }
        }
        if (i >= src_.size())
            fail(pos, "the string is not closed");
        tokens_.push_back(Token{TokenKind::String, std::move(value), 0, 0, where});
        return i + 1;
    }

    std::string src_;
    const std::string& name_;
    WhitespaceOptions options_;
    std::vector<size_t> lineStarts_;
    mutable int lastLine_ = 0;  // positionOf's previous answer, to count on from
    mutable size_t lastOffset_ = 0;
    mutable int lastColumn_ = 1;
    std::vector<Token> tokens_;
};

}  // namespace

std::vector<Token> tokenize(std::string_view source, const std::string& templateName,
                            WhitespaceOptions options) {
    return Lexer(normalizeNewlines(source), templateName, options).run();
}

}  // namespace inferlens::jinja
