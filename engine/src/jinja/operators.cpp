#include "jinja/operators.h"

#include <cmath>
#include <cstdio>

#include "jinja/build_limits.h"
#include "jinja/jinja_error.h"

namespace inferlens::jinja {
namespace {

[[noreturn]] void unsupported(const std::string& op, const Value& a, const Value& b) {
    if (a.isUndefined() || b.isUndefined()) {
        const Value& undefined = a.isUndefined() ? a : b;
        throw RuntimeProblem(undefined.undefinedMessage().empty()
                                 ? "an undefined value in '" + op + "'"
                                 : undefined.undefinedMessage());
    }
    throw RuntimeProblem("unsupported operand type(s) for " + op + ": '" + a.typeName() +
                         "' and '" + b.typeName() + "'");
}

// Python's integers do not overflow; ours refuse to.
template <typename Operation>
int64_t checked(int64_t x, int64_t y, Operation operation) {
    int64_t result = 0;
    if (operation(x, y, &result))
        throw RuntimeProblem("integer overflow");
    return result;
}
bool multiply(int64_t x, int64_t y, int64_t* r) {
    return __builtin_mul_overflow(x, y, r);
}
bool add(int64_t x, int64_t y, int64_t* r) {
    return __builtin_add_overflow(x, y, r);
}
bool subtract(int64_t x, int64_t y, int64_t* r) {
    return __builtin_sub_overflow(x, y, r);
}

Value repeat(const Value& sequence, int64_t times, size_t maxTextBytes) {
    const size_t count = times > 0 ? size_t(times) : 0;
    if (sequence.isString()) {
        if (count != 0 && sequence.asText().size() > maxTextBytes / count)
            throw RuntimeProblem("the repeated text would be too long");
        TaggedText result;
        for (size_t i = 0; i < count; ++i)
            result.append(sequence.asText());
        return Value(std::move(result));
    }
    if (count != 0 && sequence.asList().size() > currentBuildLimits.maxListItems / count)
        throw RuntimeProblem("the repeated list would be too long");
    List result;
    for (size_t i = 0; i < count; ++i)
        result.insert(result.end(), sequence.asList().begin(), sequence.asList().end());
    return Value(std::move(result));
}

// "%s and %d" % args: Python's printf-style formatting, for the conversions templates use.
Value percentFormat(const TaggedText& pattern, const Value& args) {
    const List values = args.isList() ? args.asList() : List{args};
    const std::string& p = pattern.text();
    TaggedText result;
    size_t next = 0;
    for (size_t i = 0; i < p.size(); ++i) {
        if (p[i] != '%') {
            result.append(pattern.slice(i, 1));
            continue;
        }
        if (++i >= p.size())
            throw RuntimeProblem("incomplete format");
        const char conversion = p[i];
        if (conversion == '%') {
            result.append("%");
            continue;
        }
        if (next >= values.size())
            throw RuntimeProblem("not enough arguments for format string");
        const Value& value = values[next++];
        if (conversion == 's')
            result.append(value.toText());
        else if (conversion == 'r')
            result.append(TaggedText(value.repr(), value.toText().anyUser()));
        else if ((conversion == 'd' || conversion == 'i') && value.isNumber())
            result.append(
                std::to_string(value.isFloat() ? int64_t(value.asDouble()) : value.asInt()));
        else
            throw RuntimeProblem(std::string("unsupported format character '") + conversion + "'");
        checkTextSize(result.size());
    }
    if (next < values.size())
        throw RuntimeProblem("not all arguments converted during string formatting");
    return Value(std::move(result));
}

Value arithmetic(const std::string& op, const Value& a, const Value& b) {
    const bool floating = a.isFloat() || b.isFloat();
    if (op == "/") {
        if (b.asDouble() == 0)
            throw RuntimeProblem("division by zero");
        return Value(a.asDouble() / b.asDouble());
    }
    if (op == "**") {
        if (!floating && b.asInt() >= 0) {
            // Squaring keeps 0**n, 1**n and (-1)**n fast for any n.
            int64_t result = 1;
            int64_t base = a.asInt();
            for (int64_t e = b.asInt(); e > 0; e >>= 1) {
                if (e & 1)
                    result = checked(result, base, multiply);
                if (e > 1)
                    base = checked(base, base, multiply);
            }
            return Value(result);
        }
        return Value(std::pow(a.asDouble(), b.asDouble()));
    }
    if (floating) {
        const double x = a.asDouble();
        const double y = b.asDouble();
        if (op == "+")
            return Value(x + y);
        if (op == "-")
            return Value(x - y);
        if (op == "*")
            return Value(x * y);
        if (y == 0)
            throw RuntimeProblem("float division by zero");
        if (op == "//")
            return Value(std::floor(x / y));
        const double r = std::fmod(x, y);
        return Value(r != 0 && ((r < 0) != (y < 0)) ? r + y : r);
    }
    const int64_t x = a.asInt();
    const int64_t y = b.asInt();
    if (op == "+")
        return Value(checked(x, y, add));
    if (op == "-")
        return Value(checked(x, y, subtract));
    if (op == "*")
        return Value(checked(x, y, multiply));
    if (y == 0)
        throw RuntimeProblem("integer division or modulo by zero");
    if (y == -1)  // INT64_MIN / -1 overflows; Python's answers are -x and 0
        return op == "//" ? Value(checked(0, x, subtract)) : Value(int64_t(0));
    int64_t quotient = x / y;
    int64_t remainder = x % y;
    if (remainder != 0 && ((remainder < 0) != (y < 0))) {
        --quotient;
        remainder += y;
    }
    return Value(op == "//" ? quotient : remainder);
}

}  // namespace

Value applyOperator(const std::string& op, const Value& a, const Value& b, size_t maxTextBytes) {
    if (op == "~") {
        TaggedText joined = a.toText();
        joined.append(b.toText());
        if (joined.size() > maxTextBytes)
            throw RuntimeProblem("the text would be too long");
        return Value(std::move(joined));
    }
    if (op == "+") {
        if (a.isString() && b.isString()) {
            if (a.asText().size() + b.asText().size() > maxTextBytes)
                throw RuntimeProblem("the text would be too long");
            TaggedText joined = a.asText();
            joined.append(b.asText());
            return Value(std::move(joined));
        }
        if (a.isList() && b.isList()) {
            checkListSize(a.asList().size() + b.asList().size());
            List joined = a.asList();
            joined.insert(joined.end(), b.asList().begin(), b.asList().end());
            return Value(std::move(joined));
        }
    }
    if (op == "*") {
        if ((a.isString() || a.isList()) && (b.isInt() || b.isBool()))
            return repeat(a, b.asInt(), maxTextBytes);
        if ((b.isString() || b.isList()) && (a.isInt() || a.isBool()))
            return repeat(b, a.asInt(), maxTextBytes);
    }
    if (op == "%" && a.isString())
        return percentFormat(a.asText(), b);
    if (a.isNumber() && b.isNumber())
        return arithmetic(op, a, b);
    unsupported(op, a, b);
}

}  // namespace inferlens::jinja
