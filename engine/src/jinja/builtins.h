#pragma once
// What templates may call on values: Jinja filters (x | trim), tests (x is string), Python methods
// of strings, dicts and lists (x.startswith("a"), d.get("k")), attribute and item access, and
// JSON output. Failures throw RuntimeProblem; the evaluator adds the template position.

#include <optional>
#include <string>

#include "jinja/value.h"

namespace inferlens::jinja {

// filters.cpp
Value applyFilter(const std::string& name, const Value& value, const CallArguments& args);

// tests.cpp
bool applyTest(const std::string& name, const Value& value, const CallArguments& args);

// methods.cpp: "abc".upper, d.items ... as callables; nullopt when the type has no such method.
std::optional<Value> boundMethod(const Value& object, const std::string& name);

// access.cpp
Value getAttribute(const Value& object, const std::string& name);  // jinja2: attribute, then item
Value getItem(const Value& object, const Value& key);              // jinja2: item, then attribute
Value sliceOf(const Value& object, const Value& start, const Value& stop, const Value& step);
List iterate(const Value& value);  // a string's characters, a dict's keys, undefined: nothing
int64_t lengthOf(const Value& value);
bool contains(const Value& container, const Value& item);  // Python `in`
// The argument as a str / int, or a RuntimeProblem naming `what`.
std::string stringArgument(const Value* value, const std::string& what);
int64_t integerArgument(const Value* value, const std::string& what);

// json_output.cpp: Python's json.dumps(value, ensure_ascii=False, indent=indent) as transformers'
// tojson filter calls it; indent < 0 means none.
std::string toJson(const Value& value, int indent, bool sortKeys);

}  // namespace inferlens::jinja
