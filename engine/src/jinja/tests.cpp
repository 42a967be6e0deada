// Jinja tests: `value is name(args)`, as jinja2 defines them.

#include <functional>
#include <map>

#include "jinja/builtins.h"
#include "jinja/jinja_error.h"
#include "jinja/python_strings.h"

namespace inferlens::jinja {
namespace {

using Test = std::function<bool(const Value&, const CallArguments&)>;

const Value& argument(const CallArguments& args, const char* test) {
    const Value* v = args.get(0, "other");
    if (v == nullptr)
        throw RuntimeProblem(std::string("the test '") + test + "' needs an argument");
    return *v;
}

const std::map<std::string, Test>& tests() {
    static const std::map<std::string, Test> table = [] {
        std::map<std::string, Test> t;
        t["defined"] = [](const Value& v, const CallArguments&) { return !v.isUndefined(); };
        t["undefined"] = [](const Value& v, const CallArguments&) { return v.isUndefined(); };
        t["none"] = [](const Value& v, const CallArguments&) { return v.isNone(); };
        t["string"] = [](const Value& v, const CallArguments&) { return v.isString(); };
        t["mapping"] = [](const Value& v, const CallArguments&) { return v.isDict(); };
        t["iterable"] = [](const Value& v, const CallArguments&) {
            return v.isString() || v.isList() || v.isDict() || v.isUndefined();
        };
        t["sequence"] = [](const Value& v, const CallArguments&) {
            return v.isString() || v.isList() || v.isDict();
        };
        t["number"] = [](const Value& v, const CallArguments&) { return v.isNumber(); };
        t["integer"] = [](const Value& v, const CallArguments&) { return v.isInt(); };
        t["float"] = [](const Value& v, const CallArguments&) { return v.isFloat(); };
        t["boolean"] = [](const Value& v, const CallArguments&) { return v.isBool(); };
        t["true"] = [](const Value& v, const CallArguments&) { return v.isBool() && v.asBool(); };
        t["false"] = [](const Value& v, const CallArguments&) { return v.isBool() && !v.asBool(); };
        t["callable"] = [](const Value& v, const CallArguments&) { return v.isCallable(); };
        t["lower"] = [](const Value& v, const CallArguments&) {
            return v.isString() && asciiLower(v.asString()) == v.asString();
        };
        t["upper"] = [](const Value& v, const CallArguments&) {
            return v.isString() && asciiUpper(v.asString()) == v.asString();
        };
        const auto integer = [](const Value& v, const char* test) {
            if (!v.isInt() && !v.isBool())
                throw RuntimeProblem(std::string("the test '") + test + "' needs an integer");
            return v.asInt();
        };
        t["odd"] = [integer](const Value& v, const CallArguments&) {
            return integer(v, "odd") % 2 != 0;
        };
        t["even"] = [integer](const Value& v, const CallArguments&) {
            return integer(v, "even") % 2 == 0;
        };
        t["divisibleby"] = [integer](const Value& v, const CallArguments& a) {
            const int64_t d = integer(argument(a, "divisibleby"), "divisibleby");
            if (d == 0)
                throw RuntimeProblem("divisibleby 0");
            return integer(v, "divisibleby") % d == 0;
        };
        const Test eq = [](const Value& v, const CallArguments& a) {
            return v == argument(a, "==");
        };
        t["eq"] = t["equalto"] = t["=="] = eq;
        t["ne"] = t["!="] = [](const Value& v, const CallArguments& a) {
            return !(v == argument(a, "!="));
        };
        t["lt"] = t["lessthan"] = t["<"] = [](const Value& v, const CallArguments& a) {
            return lessThan(v, argument(a, "<"));
        };
        t["gt"] = t["greaterthan"] = t[">"] = [](const Value& v, const CallArguments& a) {
            return lessThan(argument(a, ">"), v);
        };
        t["le"] = t["<="] = [](const Value& v, const CallArguments& a) {
            return !lessThan(argument(a, "<="), v);
        };
        t["ge"] = t[">="] = [](const Value& v, const CallArguments& a) {
            return !lessThan(v, argument(a, ">="));
        };
        t["in"] = [](const Value& v, const CallArguments& a) {
            return contains(argument(a, "in"), v);
        };
        t["sameas"] = [](const Value& v, const CallArguments& a) {
            const Value& other = argument(a, "sameas");
            // `is` identity: None, True and False are singletons; anything else compares kinds
            // and contents, the closest a value-semantics interpreter gets.
            return v.kind() == other.kind() && v == other;
        };
        return t;
    }();
    return table;
}

}  // namespace

bool applyTest(const std::string& name, const Value& value, const CallArguments& args) {
    const auto found = tests().find(name);
    if (found == tests().end())
        throw RuntimeProblem("no test named '" + name + "'");
    return found->second(value, args);
}

}  // namespace inferlens::jinja
