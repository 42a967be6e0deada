#pragma once
// Tokens → the template's statements, with jinja2's grammar and operator precedence (lowest
// first): inline if/else, or, and, not, comparisons and `in`, + -, ~, * / // %, **, unary - +,
// then postfix (.attr, [index], [a:b:c], calls) and filters / tests (| f, is t).

#include <string>
#include <vector>

#include "jinja/ast.h"
#include "jinja/lexer.h"

namespace inferlens::jinja {

// Throws JinjaError naming `templateName`, the line and the column of what it cannot parse.
Body parseTemplate(const std::vector<Token>& tokens, const std::string& templateName);

}  // namespace inferlens::jinja
