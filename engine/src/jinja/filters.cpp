// Jinja filters: `value | name(args)`, as jinja2 (and transformers, for tojson) define them.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>

#include "jinja/build_limits.h"
#include "jinja/builtins.h"
#include "jinja/jinja_error.h"
#include "jinja/python_strings.h"

namespace inferlens::jinja {
namespace {

using Filter = std::function<Value(const Value&, const CallArguments&)>;

bool fromUser(const Value& value) {
    return value.toText().anyUser();
}

Value derivedText(std::string text, const Value& source) {
    return Value(TaggedText(std::move(text), fromUser(source)));
}

bool flag(const CallArguments& args, size_t index, const std::string& name, bool fallback) {
    const Value* v = args.get(index, name);
    return v != nullptr ? v->truthy() : fallback;
}

// jinja2's attribute paths: "a.b.0" → value.a.b[0].
Value attributePath(const Value& value, const std::string& path) {
    Value current = value;
    size_t start = 0;
    while (start <= path.size()) {
        const size_t dot = std::min(path.find('.', start), path.size());
        const std::string part = path.substr(start, dot - start);
        int64_t index = 0;
        if (!part.empty() && std::from_chars(part.data(), part.data() + part.size(), index).ptr ==
                                 part.data() + part.size())
            current = getItem(current, Value(index));
        else
            current = getItem(current, Value(TaggedText(part)));
        start = dot + 1;
    }
    return current;
}

// sort/unique/dictsort compare strings case-insensitively unless asked otherwise.
Value sortKey(const Value& value, bool caseSensitive) {
    if (!caseSensitive && value.isString())
        return Value(TaggedText(asciiLower(value.asString())));
    return value;
}

Value itemsOf(const Value& value) {
    if (value.isUndefined())
        return Value(List{});
    if (!value.isDict())
        throw RuntimeProblem("items: can only get item pairs from a mapping, not " +
                             value.typeName());
    return boundMethod(value, "items")->asCallable().call({});
}

// select/reject/selectattr/rejectattr: keep the items for which the test (or truthiness) is
// `keep`.
Value filterItems(const Value& sequence, const CallArguments& args, bool byAttribute, bool keep) {
    size_t next = 0;
    std::string attribute;
    if (byAttribute)
        attribute = stringArgument(args.get(next++, "attribute"), "the attribute name");
    const Value* testName = args.get(next++, "test");
    CallArguments testArgs;
    for (size_t i = next; i < args.positional.size(); ++i)
        testArgs.positional.push_back(args.positional[i]);
    List kept;
    if (!sequence.truthy())  // jinja2 yields nothing for a false sequence (None included)
        return Value(std::move(kept));
    for (const Value& item : iterate(sequence)) {
        const Value subject = byAttribute ? attributePath(item, attribute) : item;
        const bool passes =
            testName != nullptr
                ? applyTest(stringArgument(testName, "the test name"), subject, testArgs)
                : subject.truthy();
        if (passes == keep)
            kept.push_back(item);
    }
    return Value(std::move(kept));
}

Value mapItems(const Value& sequence, const CallArguments& args) {
    List mapped;
    if (!sequence.truthy())  // as jinja2: nothing for a false sequence (None included)
        return Value(std::move(mapped));
    for (const auto& [key, value] : args.keywords)
        if (key == "attribute") {
            const Value* fallback = nullptr;
            for (const auto& [k, v] : args.keywords)
                if (k == "default")
                    fallback = &v;
            const std::string path = stringArgument(&value, "attribute");
            for (const Value& item : iterate(sequence)) {
                Value found = attributePath(item, path);
                mapped.push_back(found.isUndefined() && fallback != nullptr ? *fallback : found);
            }
            return Value(std::move(mapped));
        }
    const std::string filter = stringArgument(args.get(0, "filter"), "the filter name");
    CallArguments rest;
    rest.positional.assign(args.positional.begin() + 1, args.positional.end());
    rest.keywords = args.keywords;
    for (const Value& item : iterate(sequence))
        mapped.push_back(applyFilter(filter, item, rest));
    return Value(std::move(mapped));
}

Value sortItems(const Value& sequence, const CallArguments& args) {
    const bool reverse = flag(args, 0, "reverse", false);
    const bool caseSensitive = flag(args, 1, "case_sensitive", false);
    const Value* attribute = args.get(2, "attribute");
    List items = iterate(sequence);
    const auto key = [&](const Value& item) {
        return sortKey(attribute != nullptr
                           ? attributePath(item, stringArgument(attribute, "attribute"))
                           : item,
                       caseSensitive);
    };
    std::stable_sort(items.begin(), items.end(), [&](const Value& a, const Value& b) {
        return reverse ? lessThan(key(b), key(a)) : lessThan(key(a), key(b));
    });
    return Value(std::move(items));
}

Value uniqueItems(const Value& sequence, const CallArguments& args) {
    const bool caseSensitive = flag(args, 0, "case_sensitive", false);
    const Value* attribute = args.get(1, "attribute");
    List seen;
    List result;
    for (const Value& item : iterate(sequence)) {
        const Value key = sortKey(attribute != nullptr
                                      ? attributePath(item, stringArgument(attribute, "attribute"))
                                      : item,
                                  caseSensitive);
        if (std::find(seen.begin(), seen.end(), key) == seen.end()) {
            seen.push_back(key);
            result.push_back(item);
        }
    }
    return Value(std::move(result));
}

Value indentText(const Value& value, const CallArguments& args) {
    const Value* width = args.get(0, "width");
    const std::string indentation =
        width == nullptr ? "    "
        : width->isString()
            ? width->asString()
            : std::string(size_t(std::max<int64_t>(0, integerArgument(width, "width"))), ' ');
    checkTextSize(indentation.size());
    const bool first = flag(args, 1, "first", false);
    const bool blank = flag(args, 2, "blank", false);
    const TaggedText text = value.toText();
    TaggedText with = text;
    with.append("\n");
    // str.splitlines() on text ending in "\n": the lines without their terminators.
    std::vector<TaggedText> lines;
    size_t start = 0;
    for (size_t i = 0; i < with.size(); ++i)
        if (with.text()[i] == '\n') {
            lines.push_back(with.slice(start, i - start));
            start = i + 1;
        }
    TaggedText result;
    for (size_t i = 0; i < lines.size(); ++i) {
        if (i > 0) {
            result.append("\n");
            if (blank || !lines[i].empty())
                result.append(indentation);
        }
        result.append(lines[i]);
        checkTextSize(result.size() + (first ? indentation.size() : 0));
    }
    if (first) {
        TaggedText prefixed(indentation);
        prefixed.append(result);
        return Value(std::move(prefixed));
    }
    return Value(std::move(result));
}

// int(d): Python's integers have no bounds, ours refuse what int64 cannot hold (the cast would
// be undefined).
int64_t truncatedInteger(double d) {
    if (!(d > -9223372036854775808.0 && d < 9223372036854775808.0))
        throw RuntimeProblem("int: " + formatPythonFloat(d) + " is too large");
    return int64_t(d);
}

Value toInteger(const Value& value, const CallArguments& args) {
    const Value* fallback = args.get(0, "default");
    const Value otherwise = fallback != nullptr ? *fallback : Value(int64_t(0));
    if (value.isInt() || value.isBool())
        return Value(value.asInt());
    if (value.isFloat())
        return std::isfinite(value.asDouble()) ? Value(truncatedInteger(value.asDouble()))
                                               : otherwise;
    if (value.isString()) {
        std::string s = pythonStrip(value.asText(), std::nullopt).text();
        s.erase(std::remove(s.begin(), s.end(), '_'), s.end());
        try {
            size_t used = 0;
            const long long parsed = std::stoll(s, &used, 10);
            if (used == s.size())
                return Value(int64_t(parsed));
            const double d = std::stod(s, &used);
            if (used == s.size() && std::isfinite(d))
                return Value(truncatedInteger(d));
        } catch (const std::exception&) {
        }
    }
    return otherwise;
}

Value toFloat(const Value& value, const CallArguments& args) {
    const Value* fallback = args.get(0, "default");
    const Value otherwise = fallback != nullptr ? *fallback : Value(0.0);
    if (value.isNumber())
        return Value(value.asDouble());
    if (value.isString()) {
        const std::string s = pythonStrip(value.asText(), std::nullopt).text();
        try {
            size_t used = 0;
            const double d = std::stod(s, &used);
            if (used == s.size())
                return Value(d);
        } catch (const std::exception&) {
        }
    }
    return otherwise;
}

// Python's round(int, precision): unchanged for precision >= 0, else to a multiple of
// 10 ** -precision, halves to even (round(1250, -2) is 1200).
int64_t roundInteger(int64_t value, int64_t precision) {
    if (precision >= 0)
        return value;
    if (precision < -18)
        return 0;
    int64_t unit = 1;
    for (int64_t i = 0; i < -precision; ++i)
        unit *= 10;
    int64_t quotient = value / unit;
    const int64_t remainder = value % unit;
    const int64_t twice = remainder < 0 ? -2 * remainder : 2 * remainder;  // < 2e18: no overflow
    if (twice > unit || (twice == unit && quotient % 2 != 0))
        quotient += remainder < 0 ? -1 : 1;
    int64_t result = 0;
    if (__builtin_mul_overflow(quotient, unit, &result))
        throw RuntimeProblem("integer overflow");
    return result;
}

// One UTF-8 character at `at`: its code point and length in bytes (a stray byte reads as itself).
std::pair<uint32_t, size_t> decodeCharacter(const std::string& s, size_t at) {
    const auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
    const unsigned char lead = byte(at);
    const size_t length = lead < 0xC0 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    if (length == 1 || at + length > s.size())
        return {lead, 1};
    uint32_t codePoint = lead & (0x7F >> length);
    for (size_t i = 1; i < length; ++i)
        codePoint = (codePoint << 6) | (byte(at + i) & 0x3F);
    return {codePoint, length};
}

// Python's \w: letters, digits and '_' of every script. Without Unicode's tables this treats
// every non-ASCII character as a letter except the punctuation and symbol blocks chat text
// uses: Latin-1's, General Punctuation (—, “ ”, …), CJK punctuation (、。「」) and the fullwidth
// forms (，！？：).
bool isWordCharacter(uint32_t c) {
    if (c < 0x80)
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
               c == '_';
    if (c <= 0xBF)
        return c == 0xAA || c == 0xB2 || c == 0xB3 || c == 0xB5 || c == 0xB9 || c == 0xBA ||
               (c >= 0xBC && c <= 0xBE);
    if (c == 0xD7 || c == 0xF7 || (c >= 0x2000 && c <= 0x206F) || (c >= 0x3000 && c <= 0x3004) ||
        (c >= 0x3008 && c <= 0x3020) || c == 0x3030 || (c >= 0xFF00 && c <= 0xFF0F) ||
        (c >= 0xFF1A && c <= 0xFF20) || (c >= 0xFF3B && c <= 0xFF40) ||
        (c >= 0xFF5B && c <= 0xFF65))
        return false;
    return true;
}

Value roundNumber(const Value& value, const CallArguments& args) {
    if (!value.isNumber())
        throw RuntimeProblem("round needs a number, not " + value.typeName());
    const int64_t precision =
        args.get(0, "precision") ? integerArgument(args.get(0, "precision"), "precision") : 0;
    const std::string method =
        args.get(1, "method") ? stringArgument(args.get(1, "method"), "method") : "common";
    if (method == "common" && !value.isFloat())
        return Value(roundInteger(value.asInt(), precision));  // round(5) is 5, an int
    if (method == "common" && precision >= 0) {
        // Python rounds the double's exact decimal value, halves to even: round(2.675, 2) is
        // 2.67 (2.675 is 2.67499999...). printf rounds the exact value the same way.
        if (precision > 400 || !std::isfinite(value.asDouble()))
            return Value(value.asDouble());
        char digits[512];
        std::snprintf(digits, sizeof digits, "%.*f", int(precision), value.asDouble());
        return Value(std::strtod(digits, nullptr));
    }
    // jinja2 itself scales for floor and ceil: math.floor(value * 10 ** precision) / 10 ** ...
    const double scale = std::pow(10.0, double(precision));
    const double x = value.asDouble() * scale;
    const double rounded = method == "floor"  ? std::floor(x)
                           : method == "ceil" ? std::ceil(x)
                                              : std::nearbyint(x);
    return Value(rounded / scale);
}

Value minOrMax(const Value& value, const CallArguments& args, bool wantMax) {
    const bool caseSensitive = flag(args, 0, "case_sensitive", false);
    const Value* attribute = args.get(1, "attribute");
    const List items = iterate(value);
    if (items.empty())
        return Value::undefined("no items for min/max");
    const auto key = [&](const Value& item) {
        return sortKey(attribute != nullptr
                           ? attributePath(item, stringArgument(attribute, "attribute"))
                           : item,
                       caseSensitive);
    };
    size_t best = 0;
    for (size_t i = 1; i < items.size(); ++i)
        if (wantMax ? lessThan(key(items[best]), key(items[i]))
                    : lessThan(key(items[i]), key(items[best])))
            best = i;
    return items[best];
}

const std::map<std::string, Filter>& filters() {
    static const std::map<std::string, Filter> table = [] {
        std::map<std::string, Filter> f;
        f["trim"] = [](const Value& v, const CallArguments& a) {
            const Value* chars = a.get(0, "chars");
            return Value(pythonStrip(v.toText(), chars && !chars->isNone()
                                                     ? std::optional(stringArgument(chars, "chars"))
                                                     : std::nullopt));
        };
        f["length"] =
            f["count"] = [](const Value& v, const CallArguments&) { return Value(lengthOf(v)); };
        f["upper"] = [](const Value& v, const CallArguments&) {
            return derivedText(asciiUpper(v.toText().text()), v);
        };
        f["lower"] = [](const Value& v, const CallArguments&) {
            return derivedText(asciiLower(v.toText().text()), v);
        };
        f["title"] = [](const Value& v, const CallArguments&) {
            return derivedText(jinjaTitle(v.toText().text()), v);
        };
        f["capitalize"] = [](const Value& v, const CallArguments&) {
            return derivedText(pythonCapitalize(v.toText().text()), v);
        };
        f["replace"] = [](const Value& v, const CallArguments& a) {
            const Value* from = a.get(0, "old");
            const Value* to = a.get(1, "new");
            const Value* count = a.get(2, "count");
            if (from == nullptr || to == nullptr)
                throw RuntimeProblem("replace needs the old and the new text");
            const std::string old = from->toText().text();
            return Value(pythonReplace(v.toText(), old, to->toText(),
                                       count ? integerArgument(count, "count") : -1));
        };
        f["default"] = f["d"] = [](const Value& v, const CallArguments& a) {
            const Value* fallback = a.get(0, "default_value");
            const bool boolean = flag(a, 1, "boolean", false);
            if (v.isUndefined() || (boolean && !v.truthy()))
                return fallback != nullptr ? *fallback : Value(TaggedText());
            return v;
        };
        f["tojson"] = [](const Value& v, const CallArguments& a) {
            // transformers' tojson(x, ensure_ascii=False, indent=None, separators=None,
            // sort_keys=False)
            const Value* indent = a.get(1, "indent");
            if (flag(a, 0, "ensure_ascii", false))
                throw RuntimeProblem("tojson: ensure_ascii=True is not supported");
            if (a.get(2, "separators") != nullptr && !a.get(2, "separators")->isNone())
                throw RuntimeProblem("tojson: separators are not supported");
            // Python indents by max(indent, 0) spaces; more than the text limit fails as it grows.
            const int width = indent == nullptr || indent->isNone()
                                  ? -1
                                  : int(std::clamp<int64_t>(integerArgument(indent, "indent"), 0,
                                                            std::numeric_limits<int>::max()));
            return derivedText(toJson(v, width, flag(a, 3, "sort_keys", false)), v);
        };
        f["string"] = [](const Value& v, const CallArguments&) { return Value(v.toText()); };
        f["safe"] = [](const Value& v, const CallArguments&) { return v; };
        f["int"] = toInteger;
        f["float"] = toFloat;
        f["join"] = [](const Value& v, const CallArguments& a) {
            const Value* separator = a.get(0, "d");
            const Value* attribute = a.get(1, "attribute");
            TaggedText joined;
            bool first = true;
            for (const Value& item : iterate(v)) {
                if (!first && separator != nullptr)
                    joined.append(separator->toText());
                joined.append(
                    (attribute ? attributePath(item, stringArgument(attribute, "attribute")) : item)
                        .toText());
                checkTextSize(joined.size());
                first = false;
            }
            return Value(std::move(joined));
        };
        f["first"] = [](const Value& v, const CallArguments&) {
            const List items = iterate(v);
            return items.empty() ? Value::undefined("no first item") : items.front();
        };
        f["last"] = [](const Value& v, const CallArguments&) {
            const List items = iterate(v);
            return items.empty() ? Value::undefined("no last item") : items.back();
        };
        f["list"] = [](const Value& v, const CallArguments&) { return Value(iterate(v)); };
        f["items"] = [](const Value& v, const CallArguments&) { return itemsOf(v); };
        f["dictsort"] = [](const Value& v, const CallArguments& a) {
            const bool caseSensitive = flag(a, 0, "case_sensitive", false);
            const bool byValue = a.get(1, "by") && stringArgument(a.get(1, "by"), "by") == "value";
            const bool reverse = flag(a, 2, "reverse", false);
            List pairs = itemsOf(v).asList();
            std::stable_sort(pairs.begin(), pairs.end(), [&](const Value& x, const Value& y) {
                const Value& kx = sortKey(x.asList()[byValue ? 1 : 0], caseSensitive);
                const Value& ky = sortKey(y.asList()[byValue ? 1 : 0], caseSensitive);
                return reverse ? lessThan(ky, kx) : lessThan(kx, ky);
            });
            return Value(std::move(pairs));
        };
        f["select"] = [](const Value& v, const CallArguments& a) {
            return filterItems(v, a, false, true);
        };
        f["reject"] = [](const Value& v, const CallArguments& a) {
            return filterItems(v, a, false, false);
        };
        f["selectattr"] = [](const Value& v, const CallArguments& a) {
            return filterItems(v, a, true, true);
        };
        f["rejectattr"] = [](const Value& v, const CallArguments& a) {
            return filterItems(v, a, true, false);
        };
        f["map"] = mapItems;
        f["sort"] = sortItems;
        f["unique"] = uniqueItems;
        f["reverse"] = [](const Value& v, const CallArguments&) {
            List items = iterate(v);
            std::reverse(items.begin(), items.end());
            if (!v.isString())
                return Value(std::move(items));
            TaggedText reversed;
            for (const Value& c : items)
                reversed.append(c.asText());
            return Value(std::move(reversed));
        };
        f["indent"] = indentText;
        f["wordcount"] = [](const Value& v, const CallArguments&) {
            // jinja2 counts matches of \\w+.
            int64_t words = 0;
            bool inWord = false;
            const TaggedText text = v.toText();
            const std::string& s = text.text();
            for (size_t i = 0; i < s.size();) {
                const auto [codePoint, length] = decodeCharacter(s, i);
                const bool wordChar = isWordCharacter(codePoint);
                if (wordChar && !inWord)
                    ++words;
                inWord = wordChar;
                i += length;
            }
            return Value(words);
        };
        f["round"] = roundNumber;
        f["abs"] = [](const Value& v, const CallArguments&) {
            if (v.isFloat())
                return Value(std::fabs(v.asDouble()));
            if (v.isInt() || v.isBool()) {
                if (v.asInt() == std::numeric_limits<int64_t>::min())
                    throw RuntimeProblem("integer overflow");
                return Value(v.asInt() < 0 ? -v.asInt() : v.asInt());
            }
            throw RuntimeProblem("bad operand type for abs(): '" + v.typeName() + "'");
        };
        f["min"] = [](const Value& v, const CallArguments& a) { return minOrMax(v, a, false); };
        f["max"] = [](const Value& v, const CallArguments& a) { return minOrMax(v, a, true); };
        f["sum"] = [](const Value& v, const CallArguments& a) {
            const Value* attribute = a.get(0, "attribute");
            const Value* start = a.get(1, "start");
            Value total = start != nullptr ? *start : Value(int64_t(0));
            for (const Value& item : iterate(v)) {
                const Value x =
                    attribute ? attributePath(item, stringArgument(attribute, "attribute")) : item;
                if (!x.isNumber() || !total.isNumber())
                    throw RuntimeProblem("sum needs numbers");
                int64_t sum = 0;
                if (x.isFloat() || total.isFloat())
                    total = Value(total.asDouble() + x.asDouble());
                else if (__builtin_add_overflow(total.asInt(), x.asInt(), &sum))
                    throw RuntimeProblem("integer overflow");
                else
                    total = Value(sum);
            }
            return total;
        };
        return f;
    }();
    return table;
}

}  // namespace

Value applyFilter(const std::string& name, const Value& value, const CallArguments& args) {
    const auto found = filters().find(name);
    if (found == filters().end())
        throw RuntimeProblem("no filter named '" + name + "'");
    return found->second(value, args);
}

}  // namespace inferlens::jinja
