#include "jinja/build_limits.h"
#include "jinja/builtins.h"
#include "jinja/jinja_error.h"

namespace inferlens::jinja {

Value getAttribute(const Value& object, const std::string& name) {
    if (std::optional<Value> method = boundMethod(object, name))
        return *method;
    if (object.isDict()) {
        if (const Value* found = object.asDict().find(name))
            return *found;
        return Value::undefined("'" + object.typeName() + " object' has no attribute '" + name +
                                "'");
    }
    if (object.isUndefined())
        throw RuntimeProblem(object.undefinedMessage().empty()
                                 ? "undefined value has no attribute '" + name + "'"
                                 : object.undefinedMessage());
    return Value::undefined("'" + object.typeName() + " object' has no attribute '" + name + "'");
}

namespace {

// Python's index into a sequence of `size`: negative counts from the end.
std::optional<size_t> resolveIndex(int64_t index, size_t size) {
    if (index < 0)
        index += int64_t(size);
    if (index < 0 || index >= int64_t(size))
        return std::nullopt;
    return size_t(index);
}

bool startsCharacter(char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
}

// s[index] counted in characters, found by walking from the start (a table of every character's
// offset cost a long string's size in memory on each access): s[0] of a long string is quick.
std::optional<Value> characterAt(const TaggedText& text, int64_t index) {
    const std::string& s = text.text();
    if (index < 0)
        for (const char c : s)
            index += startsCharacter(c);
    if (index < 0)
        return std::nullopt;
    int64_t seen = -1;
    for (size_t begin = 0; begin < s.size(); ++begin)
        if (startsCharacter(s[begin]) && ++seen == index) {
            size_t end = begin + 1;
            while (end < s.size() && !startsCharacter(s[end]))
                ++end;
            return Value(text.slice(begin, end - begin));
        }
    return std::nullopt;
}

}  // namespace

Value getItem(const Value& object, const Value& key) {
    if (object.isUndefined())
        throw RuntimeProblem(object.undefinedMessage().empty()
                                 ? "undefined value is not subscriptable"
                                 : object.undefinedMessage());
    if (object.isDict()) {
        if (const Value* found = object.asDict().find(key))
            return *found;
        if (key.isString())
            if (std::optional<Value> method = boundMethod(object, key.asString()))
                return *method;
        return Value::undefined("'" + object.typeName() + " object' has no attribute " +
                                key.repr());
    }
    if ((object.isList() || object.isString()) && (key.isInt() || key.isBool())) {
        if (object.isList()) {
            if (const auto at = resolveIndex(key.asInt(), object.asList().size()))
                return object.asList()[*at];
        } else if (std::optional<Value> character = characterAt(object.asText(), key.asInt())) {
            return *character;
        }
        return Value::undefined(object.typeName() + " index out of range");
    }
    if (key.isString())
        return getAttribute(object, key.asString());
    return Value::undefined("'" + object.typeName() + " object' has no attribute " + key.repr());
}

Value sliceOf(const Value& object, const Value& start, const Value& stop, const Value& step) {
    const auto bound = [](const Value& v, const char* what) -> std::optional<int64_t> {
        if (v.isNone() || v.isUndefined())
            return std::nullopt;
        if (!v.isInt() && !v.isBool())
            throw RuntimeProblem(std::string("slice ") + what + " must be an integer or None");
        return v.asInt();
    };
    const int64_t stride = bound(step, "step").value_or(1);
    if (stride == 0)
        throw RuntimeProblem("slice step cannot be zero");
    std::vector<size_t> starts;
    int64_t size = 0;
    if (object.isString()) {
        starts = characterStarts(object.asString());
        size = int64_t(starts.size());
    } else if (object.isList()) {
        size = int64_t(object.asList().size());
    } else {
        throw RuntimeProblem("'" + object.typeName() + "' object is not subscriptable");
    }
    // Python's slice.indices().
    const auto clamp = [&](std::optional<int64_t> v, int64_t fallback) {
        if (!v)
            return fallback;
        int64_t i = *v < 0 ? *v + size : *v;
        if (stride > 0)
            return std::clamp<int64_t>(i, 0, size);
        return std::clamp<int64_t>(i, -1, size - 1);
    };
    const int64_t first = clamp(bound(start, "start"), stride > 0 ? 0 : size - 1);
    const int64_t last = clamp(bound(stop, "stop"), stride > 0 ? size : -1);
    std::vector<int64_t> picked;
    for (int64_t i = first; stride > 0 ? i < last : i > last; i += stride)
        picked.push_back(i);
    if (object.isList()) {
        List result;
        for (const int64_t i : picked)
            result.push_back(object.asList()[size_t(i)]);
        return Value(std::move(result));
    }
    TaggedText result;
    const std::string& text = object.asString();
    for (const int64_t i : picked) {
        const size_t begin = starts[size_t(i)];
        const size_t end = size_t(i) + 1 < starts.size() ? starts[size_t(i) + 1] : text.size();
        result.append(object.asText().slice(begin, end - begin));
    }
    return Value(std::move(result));
}

List iterate(const Value& value) {
    switch (value.kind()) {
        case Value::Kind::Undefined:
            return {};
        case Value::Kind::List:
            return value.asList();
        case Value::Kind::Dict: {
            List keys;
            for (const auto& [key, item] : value.asDict().entries)
                keys.push_back(key);
            return keys;
        }
        case Value::Kind::String: {
            List characters;
            const std::vector<size_t> starts = characterStarts(value.asString());
            checkListSize(starts.size());
            for (size_t i = 0; i < starts.size(); ++i) {
                const size_t end = i + 1 < starts.size() ? starts[i + 1] : value.asString().size();
                characters.emplace_back(value.asText().slice(starts[i], end - starts[i]));
            }
            return characters;
        }
        default:
            throw RuntimeProblem("'" + value.typeName() + "' object is not iterable");
    }
}

int64_t lengthOf(const Value& value) {
    switch (value.kind()) {
        case Value::Kind::Undefined:
            return 0;
        case Value::Kind::String: {
            int64_t characters = 0;
            for (const char c : value.asString())
                characters += startsCharacter(c);
            return characters;
        }
        case Value::Kind::List:
            return int64_t(value.asList().size());
        case Value::Kind::Dict:
            return int64_t(value.asDict().entries.size());
        default:
            throw RuntimeProblem("object of type '" + value.typeName() + "' has no len()");
    }
}

bool contains(const Value& container, const Value& item) {
    if (container.isString()) {
        if (!item.isString())
            throw RuntimeProblem("'in <string>' requires string as left operand, not " +
                                 item.typeName());
        return container.asString().find(item.asString()) != std::string::npos;
    }
    if (container.isDict())
        return container.asDict().find(item) != nullptr;
    if (container.isList() || container.isUndefined()) {
        for (const Value& element : iterate(container))
            if (element == item)
                return true;
        return false;
    }
    throw RuntimeProblem("argument of type '" + container.typeName() + "' is not iterable");
}

std::string stringArgument(const Value* value, const std::string& what) {
    if (value == nullptr || !value->isString())
        throw RuntimeProblem(what + " must be a string" +
                             (value != nullptr ? ", not " + value->typeName() : std::string()));
    return value->asString();
}

int64_t integerArgument(const Value* value, const std::string& what) {
    if (value == nullptr || !(value->isInt() || value->isBool()))
        throw RuntimeProblem(what + " must be an integer" +
                             (value != nullptr ? ", not " + value->typeName() : std::string()));
    return value->asInt();
}

}  // namespace inferlens::jinja
