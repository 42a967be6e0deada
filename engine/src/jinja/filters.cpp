// Jinja filters: `value | name(args)`, as jinja2 (and transformers, for tojson) define them.

#include <algorithm>
#include <charconv>
#include <cmath>
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

Value toInteger(const Value& value, const CallArguments& args) {
    const Value* fallback = args.get(0, "default");
    const Value otherwise = fallback != nullptr ? *fallback : Value(int64_t(0));
    if (value.isInt() || value.isBool())
        return Value(value.asInt());
    if (value.isFloat())
        return std::isfinite(value.asDouble()) ? Value(int64_t(value.asDouble())) : otherwise;
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
                return Value(int64_t(d));
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

Value roundNumber(const Value& value, const CallArguments& args) {
    if (!value.isNumber())
        throw RuntimeProblem("round needs a number, not " + value.typeName());
    const int64_t precision =
        args.get(0, "precision") ? integerArgument(args.get(0, "precision"), "precision") : 0;
    const std::string method =
        args.get(1, "method") ? stringArgument(args.get(1, "method"), "method") : "common";
    const double scale = std::pow(10.0, double(precision));
    const double x = value.asDouble() * scale;
    // Python's round(): halves to even (round(2.5) is 2), which nearbyint does by default.
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
            int64_t words = 0;
            bool inWord = false;
            const TaggedText text = v.toText();
            for (const char c : text.text()) {
                const bool wordChar = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                                      (c >= 'A' && c <= 'Z') || c == '_' ||
                                      static_cast<unsigned char>(c) >= 0x80;
                if (wordChar && !inWord)
                    ++words;
                inWord = wordChar;
            }
            return Value(words);
        };
        f["round"] = roundNumber;
        f["abs"] = [](const Value& v, const CallArguments&) {
            if (v.isFloat())
                return Value(std::fabs(v.asDouble()));
            if (v.isInt() || v.isBool())
                return Value(v.asInt() < 0 ? -v.asInt() : v.asInt());
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
                total = x.isFloat() || total.isFloat() ? Value(total.asDouble() + x.asDouble())
                                                       : Value(total.asInt() + x.asInt());
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
