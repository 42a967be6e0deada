#include "jinja/value.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "jinja/build_limits.h"
#include "jinja/jinja_error.h"

namespace inferlens::jinja {

const Value* Dict::find(const Value& key) const {
    for (const auto& [name, value] : entries)
        if (name == key)
            return &value;
    return nullptr;
}

const Value* Dict::find(const std::string& key) const {
    for (const auto& [name, value] : entries)
        if (name.isString() && name.asString() == key)
            return &value;
    return nullptr;
}

void Dict::set(Value key, Value value) {
    for (auto& [name, existing] : entries)
        if (name == key) {
            existing = std::move(value);
            return;
        }
    entries.emplace_back(std::move(key), std::move(value));
}

void Dict::set(const char* key, Value value) {
    set(std::string(key), std::move(value));
}

void Dict::set(const std::string& key, Value value) {
    set(Value(TaggedText(key)), std::move(value));
}

const Value* CallArguments::get(size_t index, const std::string& name) const {
    if (index < positional.size())
        return &positional[index];
    for (const auto& [key, value] : keywords)
        if (key == name)
            return &value;
    return nullptr;
}

Value Value::undefined(std::string what) {
    Value v;
    v.text_ = std::make_shared<const TaggedText>(std::move(what));
    return v;
}

Value Value::none() {
    Value v;
    v.kind_ = Kind::None;
    return v;
}

Value Value::tuple(List items) {
    Value v(std::move(items));
    v.tuple_ = true;
    return v;
}

Value::Value(bool b) : kind_(Kind::Bool), bool_(b) {}
Value::Value(int64_t i) : kind_(Kind::Int), int_(i) {}
Value::Value(double d) : kind_(Kind::Float), double_(d) {}
Value::Value(TaggedText s) : kind_(Kind::String) {
    chargeBytesMade(s.size());
    text_ = std::make_shared<const TaggedText>(std::move(s));
}

const TaggedText& Value::emptyText() {
    static const TaggedText empty;
    return empty;
}
namespace {

// Lists and dicts inside each other: repr, ==, tojson and destruction recurse over them, so a
// template that wraps a value in a list in a loop (`set ns.l = [ns.l]`) is stopped here.
constexpr int kMaxValueNesting = 1000;

int nestingAbove(int deepestChild) {
    if (deepestChild + 1 > kMaxValueNesting)
        throw RuntimeProblem("lists and dicts nest too deeply (more than " +
                             std::to_string(kMaxValueNesting) + " levels)");
    return deepestChild + 1;
}

}  // namespace

Value::Value(List list) : kind_(Kind::List) {
    int deepest = 0;
    for (const Value& item : list)
        deepest = std::max(deepest, item.nesting_);
    nesting_ = nestingAbove(deepest);
    chargeBytesMade(list.size() * sizeof(Value));
    list_ = std::make_shared<const List>(std::move(list));
}

// A namespace counts as one level whatever it holds: it may hold itself, so nothing that walks
// values goes into one (its repr is "<Namespace>", == compares identity, tojson refuses it).
Value::Value(std::shared_ptr<Dict> dict) : kind_(Kind::Dict), dict_(std::move(dict)) {
    int deepest = 0;
    if (!dict_->isNamespace)
        for (const auto& [key, value] : dict_->entries)
            deepest = std::max(deepest, value.nesting_);
    nesting_ = nestingAbove(deepest);
}
Value::Value(std::shared_ptr<const Callable> callable)
    : kind_(Kind::Callable), callable_(std::move(callable)) {}

int64_t Value::asInt() const {
    return kind_ == Kind::Bool ? int64_t(bool_) : kind_ == Kind::Float ? int64_t(double_) : int_;
}

double Value::asDouble() const {
    return kind_ == Kind::Float ? double_ : double(asInt());
}

bool Value::truthy() const {
    switch (kind_) {
        case Kind::Undefined:
        case Kind::None:
            return false;
        case Kind::Bool:
            return bool_;
        case Kind::Int:
            return int_ != 0;
        case Kind::Float:
            return double_ != 0;
        case Kind::String:
            return !asText().empty();
        case Kind::List:
            return !list_->empty();
        case Kind::Dict:
            return !dict_->entries.empty();
        case Kind::Callable:
            return true;
    }
    return false;
}

std::string formatPythonFloat(double d) {
    if (std::isnan(d))
        return "nan";
    if (std::isinf(d))
        return d < 0 ? "-inf" : "inf";
    // Shortest round-trip digits, then Python's layout: positional for exponents in [-4, 16).
    char buffer[64];
    const auto end =
        std::to_chars(buffer, buffer + sizeof buffer, d, std::chars_format::scientific);
    const std::string scientific(buffer, end.ptr);
    const size_t e = scientific.find('e');
    std::string mantissa = scientific.substr(0, e);
    const int exponent = std::stoi(scientific.substr(e + 1));
    const bool negative = mantissa[0] == '-';
    if (negative)
        mantissa.erase(0, 1);
    std::string digits;
    for (const char c : mantissa)
        if (c != '.')
            digits += c;
    std::string result;
    if (exponent >= -4 && exponent < 16) {
        if (exponent < 0) {
            result = "0." + std::string(size_t(-exponent - 1), '0') + digits;
        } else if (size_t(exponent + 1) >= digits.size()) {
            result = digits + std::string(size_t(exponent + 1) - digits.size(), '0') + ".0";
        } else {
            result =
                digits.substr(0, size_t(exponent + 1)) + "." + digits.substr(size_t(exponent + 1));
        }
    } else {
        result = digits.substr(0, 1);
        if (digits.size() > 1)
            result += "." + digits.substr(1);
        char exp[16];
        std::snprintf(exp, sizeof exp, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
        result += exp;
    }
    return negative ? "-" + result : result;
}

namespace {

std::string reprString(const std::string& s) {
    const bool useDouble = s.find('\'') != std::string::npos && s.find('"') == std::string::npos;
    const char quote = useDouble ? '"' : '\'';
    std::string out(1, quote);
    for (const char c : s) {
        switch (c) {
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                if (c == quote) {
                    out += '\\';
                    out += c;
                } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
                    char hex[8];
                    std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(c));
                    out += hex;
                } else {
                    out += c;
                }
        }
    }
    return out + quote;
}

}  // namespace

TaggedText Value::toText() const {
    switch (kind_) {
        case Kind::Undefined:
            return {};
        case Kind::String:
            return asText();
        case Kind::List:
        case Kind::Dict: {
            bool fromUser = false;
            const auto visit = [&](const Value& v) { fromUser = fromUser || v.toText().anyUser(); };
            if (kind_ == Kind::List)
                for (const Value& item : *list_)
                    visit(item);
            else if (!dict_->isNamespace)
                for (const auto& [key, value] : dict_->entries) {
                    visit(key);
                    visit(value);
                }
            return TaggedText(repr(), fromUser);
        }
        default:
            return TaggedText(repr());
    }
}

std::string Value::repr() const {
    switch (kind_) {
        case Kind::Undefined:
            return "";
        case Kind::None:
            return "None";
        case Kind::Bool:
            return bool_ ? "True" : "False";
        case Kind::Int:
            return std::to_string(int_);
        case Kind::Float:
            return formatPythonFloat(double_);
        case Kind::String:
            return reprString(asString());
        case Kind::List: {
            std::string out = tuple_ ? "(" : "[";
            for (size_t i = 0; i < list_->size(); ++i) {
                out += (i ? ", " : "") + (*list_)[i].repr();
                checkTextSize(out.size());
            }
            if (tuple_)
                return out + (list_->size() == 1 ? ",)" : ")");
            return out + "]";
        }
        case Kind::Dict: {
            if (dict_->isNamespace)
                return "<Namespace>";
            std::string out = "{";
            for (size_t i = 0; i < dict_->entries.size(); ++i) {
                out += (i ? ", " : "") + dict_->entries[i].first.repr() + ": " +
                       dict_->entries[i].second.repr();
                checkTextSize(out.size());
            }
            return out + "}";
        }
        case Kind::Callable:
            return "<function " + callable_->name + ">";
    }
    return "";
}

std::string Value::typeName() const {
    switch (kind_) {
        case Kind::Undefined:
            return "Undefined";
        case Kind::None:
            return "NoneType";
        case Kind::Bool:
            return "bool";
        case Kind::Int:
            return "int";
        case Kind::Float:
            return "float";
        case Kind::String:
            return "str";
        case Kind::List:
            return "list";
        case Kind::Dict:
            return dict_->isNamespace ? "Namespace" : "dict";
        case Kind::Callable:
            return "function";
    }
    return "";
}

bool operator==(const Value& a, const Value& b) {
    if (a.isNumber() && b.isNumber()) {
        if (a.isFloat() || b.isFloat())
            return a.asDouble() == b.asDouble();
        return a.asInt() == b.asInt();
    }
    if (a.kind() != b.kind())
        return false;
    switch (a.kind()) {
        case Value::Kind::Undefined:
        case Value::Kind::None:
            return true;
        case Value::Kind::String:
            return a.asString() == b.asString();
        case Value::Kind::List:
            return a.asList() == b.asList();
        case Value::Kind::Dict: {
            const Dict& x = a.asDict();
            const Dict& y = b.asDict();
            if (x.isNamespace || y.isNamespace)  // Python compares namespaces by identity
                return &x == &y;
            if (x.entries.size() != y.entries.size())
                return false;
            for (const auto& [key, value] : x.entries) {
                const Value* other = y.find(key);
                if (other == nullptr || !(*other == value))
                    return false;
            }
            return true;
        }
        case Value::Kind::Callable:
            return &a.asCallable() == &b.asCallable();
        default:
            return false;
    }
}

bool lessThan(const Value& a, const Value& b) {
    if (a.isNumber() && b.isNumber())
        return a.isFloat() || b.isFloat() ? a.asDouble() < b.asDouble() : a.asInt() < b.asInt();
    if (a.isString() && b.isString())
        return a.asString() < b.asString();  // UTF-8 byte order is code point order
    if (a.isList() && b.isList()) {
        const List& x = a.asList();
        const List& y = b.asList();
        for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
            if (lessThan(x[i], y[i]))
                return true;
            if (lessThan(y[i], x[i]))
                return false;
        }
        return x.size() < y.size();
    }
    throw RuntimeProblem("'<' not supported between instances of '" + a.typeName() + "' and '" +
                         b.typeName() + "'");
}

std::vector<size_t> characterStarts(const std::string& text) {
    std::vector<size_t> starts;
    starts.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i)
        if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80)
            starts.push_back(i);
    return starts;
}

}  // namespace inferlens::jinja
