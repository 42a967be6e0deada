#pragma once
// Python's arithmetic on template values: + - * / // % ** and Jinja's ~ (concatenate as text).
// "text" * n and "%s" % args included; results longer than `maxTextBytes` are refused.

#include <string>

#include "jinja/value.h"

namespace inferlens::jinja {

// Throws RuntimeProblem for operands Python refuses ("str" + "int", division by zero, undefined).
Value applyOperator(const std::string& op, const Value& left, const Value& right,
                    size_t maxTextBytes);

}  // namespace inferlens::jinja
