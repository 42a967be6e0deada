#pragma once
// The values a Jinja template computes with, and their Python semantics (templates are written
// against jinja2 on Python: str(True) is "True", 1 == 1.0, "abc"[-1] is "c", lengths count
// characters, not bytes).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "jinja/tagged_text.h"

namespace inferlens::jinja {

class Value;
using List = std::vector<Value>;

struct Dict {
    // In insertion order, as Python's. Keys are strings mostly, numbers sometimes ({1024: 256}).
    std::vector<std::pair<Value, Value>> entries;
    bool isNamespace = false;  // namespace(): the one kind of object `set a.b = ...` may change

    const Value* find(const Value& key) const;
    const Value* find(const std::string& key) const;
    void set(Value key, Value value);
    void set(const std::string& key, Value value);
    void set(const char* key, Value value);
};

struct CallArguments {
    std::vector<Value> positional;
    std::vector<std::pair<std::string, Value>> keywords;

    // The argument at `index` or named `name`, else nullptr.
    const Value* get(size_t index, const std::string& name) const;
};

// Macros, caller(), builtins (range, namespace ...) and bound methods ("abc".upper).
struct Callable {
    std::string name;
    std::function<Value(const CallArguments&)> call;
};

class Value {
  public:
    enum class Kind { Undefined, None, Bool, Int, Float, String, List, Dict, Callable };

    Value() = default;                         // undefined
    static Value undefined(std::string what);  // what: "'tools' is undefined", for errors
    static Value none();
    static Value tuple(List items);  // a list that Python writes as "(a, b)": pairs from items()
    Value(bool b);
    Value(int64_t i);
    Value(int i) : Value(int64_t(i)) {}
    Value(double d);
    Value(TaggedText s);
    Value(const char* s) : Value(TaggedText(s)) {}
    Value(List list);
    Value(std::shared_ptr<Dict> dict);
    Value(std::shared_ptr<const Callable> callable);

    Kind kind() const { return kind_; }
    bool isUndefined() const { return kind_ == Kind::Undefined; }
    bool isNone() const { return kind_ == Kind::None; }
    bool isBool() const { return kind_ == Kind::Bool; }
    bool isInt() const { return kind_ == Kind::Int; }
    bool isFloat() const { return kind_ == Kind::Float; }
    bool isNumber() const { return isInt() || isFloat() || isBool(); }
    bool isString() const { return kind_ == Kind::String; }
    bool isList() const { return kind_ == Kind::List; }
    bool isDict() const { return kind_ == Kind::Dict; }
    bool isCallable() const { return kind_ == Kind::Callable; }

    bool asBool() const { return bool_; }
    int64_t asInt() const;  // bools and ints
    double asDouble() const;
    const TaggedText& asText() const { return text_ ? *text_ : emptyText(); }
    const std::string& asString() const { return asText().text(); }
    const List& asList() const { return *list_; }
    const Dict& asDict() const { return *dict_; }
    Dict& mutableDict() const { return *dict_; }
    const Callable& asCallable() const { return *callable_; }
    const std::string& undefinedMessage() const { return asText().text(); }

    // Python's bool(), str(), repr() and the type name of its errors ("str", "dict", "NoneType").
    bool truthy() const;
    TaggedText toText() const;
    std::string repr() const;
    std::string typeName() const;

  private:
    Kind kind_ = Kind::Undefined;
    bool bool_ = false;
    bool tuple_ = false;
    int nesting_ = 0;  // lists and dicts inside each other, this one included
    int64_t int_ = 0;
    double double_ = 0;
    static const TaggedText& emptyText();

    // A string's text, an undefined value's message; shared, so that copies of a long string
    // ([s] * 1000, a list of it, a loop over it) cost a pointer, not the text.
    std::shared_ptr<const TaggedText> text_;
    std::shared_ptr<const List> list_;
    std::shared_ptr<Dict> dict_;
    std::shared_ptr<const Callable> callable_;
};

bool operator==(const Value& a, const Value& b);  // Python ==
// Python <; throws RuntimeProblem for types that do not compare ("str" < "int").
bool lessThan(const Value& a, const Value& b);

// Python repr() of a float: the shortest text that reads back the same ("0.1", "1.0", "1e+16").
std::string formatPythonFloat(double d);

// Characters (code points) of UTF-8 text, for lengths, indexing and slicing as Python counts them.
std::vector<size_t> characterStarts(const std::string& text);

}  // namespace inferlens::jinja
