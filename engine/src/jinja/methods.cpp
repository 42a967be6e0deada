// Python methods of str, dict and list that chat templates call. Methods that would change a list
// or dict fail when called, as in transformers' ImmutableSandboxedEnvironment.

#include <charconv>
#include <memory>

#include "jinja/build_limits.h"
#include "jinja/builtins.h"
#include "jinja/jinja_error.h"
#include "jinja/python_strings.h"

namespace inferlens::jinja {
namespace {

using Method = Value (*)(const Value& self, const CallArguments& args);

std::optional<std::string> optionalString(const CallArguments& args, size_t index,
                                          const std::string& name) {
    const Value* v = args.get(index, name);
    if (v == nullptr || v->isNone())
        return std::nullopt;
    return stringArgument(v, name);
}

// startswith/endswith take a string or a tuple of strings.
bool matchesAffix(const std::string& text, const Value* affix, bool atStart) {
    if (affix == nullptr)
        throw RuntimeProblem("startswith/endswith need an argument");
    const auto matches = [&](const Value& candidate) {
        const std::string& a = stringArgument(&candidate, "the prefix or suffix");
        if (a.size() > text.size())
            return false;
        return atStart ? text.compare(0, a.size(), a) == 0
                       : text.compare(text.size() - a.size(), a.size(), a) == 0;
    };
    if (affix->isList()) {
        for (const Value& candidate : affix->asList())
            if (matches(candidate))
                return true;
        return false;
    }
    return matches(*affix);
}

Value stripMethod(const Value& self, const CallArguments& args, StripSide side) {
    return Value(pythonStrip(self.asText(), optionalString(args, 0, "chars"), side));
}

Value splitMethod(const Value& self, const CallArguments& args) {
    const Value* maxSplit = args.get(1, "maxsplit");
    List parts;
    for (TaggedText& part :
         pythonSplit(self.asText(), optionalString(args, 0, "sep"),
                     maxSplit != nullptr ? integerArgument(maxSplit, "maxsplit") : -1))
        parts.emplace_back(std::move(part));
    return Value(std::move(parts));
}

// str.format with "{}", "{0}" and "{name}" fields (no format specs), "{{" and "}}" escapes.
Value formatMethod(const Value& self, const CallArguments& args) {
    const std::string& pattern = self.asString();
    TaggedText result;
    size_t automatic = 0;
    for (size_t i = 0; i < pattern.size(); ++i) {
        const char c = pattern[i];
        if ((c == '{' || c == '}') && i + 1 < pattern.size() && pattern[i + 1] == c) {
            result.append(std::string_view(&pattern[i], 1));
            ++i;
            continue;
        }
        if (c != '{') {
            result.append(self.asText().slice(i, 1));
            continue;
        }
        const size_t close = pattern.find('}', i);
        if (close == std::string::npos)
            throw RuntimeProblem("single '{' encountered in format string");
        const std::string field = pattern.substr(i + 1, close - i - 1);
        const Value* value = nullptr;
        if (field.empty())
            value = args.get(automatic++, "");
        else if (size_t index = 0;
                 std::from_chars(field.data(), field.data() + field.size(), index).ptr ==
                 field.data() + field.size())
            value = args.get(index, "");
        else
            value = args.get(size_t(-1), field);
        if (value == nullptr)
            throw RuntimeProblem("format: no argument for '{" + field + "}'");
        result.append(value->toText());
        checkTextSize(result.size());
        i = close;
    }
    return Value(std::move(result));
}

Value findMethod(const Value& self, const CallArguments& args, bool fromRight) {
    const std::string needle = stringArgument(args.get(0, "sub"), "the substring");
    const std::string& s = self.asString();
    const size_t at = fromRight ? s.rfind(needle) : s.find(needle);
    if (at == std::string::npos)
        return Value(int64_t(-1));
    return Value(int64_t(characterStarts(s.substr(0, at)).size()));
}

bool allCharacters(const std::string& s, bool (*accept)(char)) {
    if (s.empty())
        return false;
    for (const char c : s)
        if (!accept(c))
            return false;
    return true;
}

Value stringMethod(const std::string& name, const Value& self, const CallArguments& args) {
    const TaggedText& text = self.asText();
    const std::string& s = text.text();
    if (name == "startswith" || name == "endswith")
        return Value(matchesAffix(s, args.get(0, "prefix"), name == "startswith"));
    if (name == "strip")
        return stripMethod(self, args, StripSide::Both);
    if (name == "lstrip")
        return stripMethod(self, args, StripSide::Left);
    if (name == "rstrip")
        return stripMethod(self, args, StripSide::Right);
    if (name == "split")
        return splitMethod(self, args);
    if (name == "replace") {
        const Value* count = args.get(2, "count");
        const Value* to = args.get(1, "new");
        stringArgument(to, "the replacement");
        return Value(pythonReplace(text, stringArgument(args.get(0, "old"), "the text to replace"),
                                   to->asText(),
                                   count != nullptr ? integerArgument(count, "count") : -1));
    }
    if (name == "upper")
        return Value(TaggedText::derived(asciiUpper(s), text));
    if (name == "lower")
        return Value(TaggedText::derived(asciiLower(s), text));
    if (name == "title")
        return Value(TaggedText::derived(pythonTitle(s), text));
    if (name == "capitalize")
        return Value(TaggedText::derived(pythonCapitalize(s), text));
    if (name == "format")
        return formatMethod(self, args);
    if (name == "find")
        return findMethod(self, args, false);
    if (name == "rfind")
        return findMethod(self, args, true);
    if (name == "count") {
        const std::string needle = stringArgument(args.get(0, "sub"), "the substring");
        if (needle.empty())
            return Value(int64_t(characterStarts(s).size() + 1));
        int64_t n = 0;
        for (size_t at = s.find(needle); at != std::string::npos;
             at = s.find(needle, at + needle.size()))
            ++n;
        return Value(n);
    }
    if (name == "join") {
        const Value* items = args.get(0, "iterable");
        if (items == nullptr)
            throw RuntimeProblem("join needs an iterable");
        TaggedText joined;
        bool first = true;
        for (const Value& item : iterate(*items)) {
            if (!item.isString())
                throw RuntimeProblem("join: expected str instance, " + item.typeName() + " found");
            if (!first)
                joined.append(text);
            joined.append(item.asText());
            checkTextSize(joined.size());
            first = false;
        }
        return Value(std::move(joined));
    }
    if (name == "splitlines") {
        // Python's line boundaries: \n, \r, \r\n, \v, \f, \x1c-\x1e, U+0085, U+2028, U+2029.
        List lines;
        size_t start = 0;
        for (size_t i = 0; i < s.size(); ++i) {
            size_t length = 0;
            if (s[i] == '\r')
                length = i + 1 < s.size() && s[i + 1] == '\n' ? 2 : 1;
            else if (std::string_view("\n\v\f\x1c\x1d\x1e").find(s[i]) != std::string_view::npos)
                length = 1;
            else if (s.compare(i, 2, "\xC2\x85") == 0)
                length = 2;
            else if (s.compare(i, 3, "\xE2\x80\xA8") == 0 || s.compare(i, 3, "\xE2\x80\xA9") == 0)
                length = 3;
            if (length == 0)
                continue;
            checkListSize(lines.size() + 1);
            lines.emplace_back(text.slice(start, i - start));
            i += length - 1;
            start = i + 1;
        }
        if (start < s.size())
            lines.emplace_back(text.slice(start, s.size() - start));
        return Value(std::move(lines));
    }
    if (name == "isdigit")
        return Value(allCharacters(s, [](char c) { return c >= '0' && c <= '9'; }));
    if (name == "isalpha")
        return Value(allCharacters(
            s, [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }));
    if (name == "isspace")
        return Value(allCharacters(s, [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }));
    if (name == "islower")
        return Value(asciiLower(s) == s && asciiUpper(s) != s);
    if (name == "isupper")
        return Value(asciiUpper(s) == s && asciiLower(s) != s);
    throw RuntimeProblem("'str' object has no attribute '" + name + "'");
}

Value dictMethod(const std::string& name, const Value& self, const CallArguments& args) {
    const Dict& dict = self.asDict();
    if (name == "get") {
        const Value* key = args.get(0, "key");
        if (key == nullptr)
            throw RuntimeProblem("get needs a key");
        if (const Value* found = dict.find(*key))
            return *found;
        const Value* fallback = args.get(1, "default");
        return fallback != nullptr ? *fallback : Value::none();
    }
    List result;
    for (const auto& [key, value] : dict.entries) {
        if (name == "keys")
            result.push_back(key);
        else if (name == "values")
            result.push_back(value);
        else
            result.push_back(Value::tuple(List{key, value}));
    }
    return Value(std::move(result));
}

Value listMethod(const std::string& name, const Value& self, const CallArguments& args) {
    const List& list = self.asList();
    const Value* item = args.get(0, "value");
    if (item == nullptr)
        throw RuntimeProblem(name + " needs an argument");
    int64_t count = 0;
    for (size_t i = 0; i < list.size(); ++i)
        if (list[i] == *item) {
            if (name == "index")
                return Value(int64_t(i));
            ++count;
        }
    if (name == "index")
        throw RuntimeProblem(item->repr() + " is not in list");
    return Value(count);
}

bool isOneOf(const std::string& name, std::initializer_list<std::string_view> names) {
    for (const std::string_view candidate : names)
        if (name == candidate)
            return true;
    return false;
}

}  // namespace

std::optional<Value> boundMethod(const Value& object, const std::string& name) {
    Value (*dispatch)(const std::string&, const Value&, const CallArguments&) = nullptr;
    if (object.isString() &&
        isOneOf(name, {"startswith", "endswith", "strip",   "lstrip", "rstrip",     "split",
                       "replace",    "upper",    "lower",   "title",  "capitalize", "format",
                       "find",       "rfind",    "count",   "join",   "splitlines", "isdigit",
                       "isalpha",    "isspace",  "islower", "isupper"}))
        dispatch = stringMethod;
    else if (object.isDict() && !object.asDict().isNamespace &&
             isOneOf(name, {"get", "items", "keys", "values"}))
        dispatch = dictMethod;
    else if (object.isList() && isOneOf(name, {"index", "count"}))
        dispatch = listMethod;
    const bool mutating =
        (object.isList() && isOneOf(name, {"append", "pop", "insert", "extend", "remove", "clear",
                                           "sort", "reverse"})) ||
        (object.isDict() && !object.asDict().isNamespace &&
         isOneOf(name, {"pop", "update", "setdefault", "clear", "popitem"}));
    if (dispatch == nullptr && !mutating)
        return std::nullopt;
    auto callable = std::make_shared<Callable>();
    callable->name = object.typeName() + "." + name;
    if (mutating) {
        const std::string message = "access to attribute '" + name + "' of '" + object.typeName() +
                                    "' object is unsafe (templates may not change lists or dicts)";
        callable->call = [message](const CallArguments&) -> Value {
            throw RuntimeProblem(message);
        };
    } else {
        callable->call = [dispatch, name, object](const CallArguments& args) {
            return dispatch(name, object, args);
        };
    }
    return Value(std::shared_ptr<const Callable>(std::move(callable)));
}

}  // namespace inferlens::jinja
