#pragma once
// Template source → tokens, with jinja2's whitespace rules as Hugging Face configures them for chat
// templates: trim_blocks (the first newline after a block or comment tag is dropped),
// lstrip_blocks (spaces and tabs from the start of a line up to a block or comment tag are
// dropped), "-" at a tag's edge strips all whitespace on that side, "+" keeps it; and, as jinja2
// does by default, a single newline at the very end of the template is dropped. Comments are
// dropped here.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "jinja/jinja_error.h"

namespace inferlens::jinja {

enum class TokenKind {
    Text,           // template text between tags (text)
    VariableBegin,  // {{
    VariableEnd,    // }}
    BlockBegin,     // {%
    BlockEnd,       // %}
    Name,           // identifiers and keywords (text)
    String,         // a string literal, escapes resolved (text)
    Integer,        // (integer)
    Float,          // (number)
    Operator,       // + - * / // % ** ~ == != < <= > >= = ( ) [ ] { } , . : | (text)
    End,
};

struct Token {
    TokenKind kind = TokenKind::End;
    std::string text;
    int64_t integer = 0;
    double number = 0;
    SourcePosition where;
};

struct WhitespaceOptions {
    bool trimBlocks = true;
    bool lstripBlocks = true;
};

// Throws JinjaError (naming `templateName`) for an unclosed tag, comment or string, or a character
// that starts no token.
std::vector<Token> tokenize(std::string_view source, const std::string& templateName,
                            WhitespaceOptions options = {});

}  // namespace inferlens::jinja
