#include "grammar/json_schema.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"

namespace inferlens {
namespace {

using Json = nlohmann::ordered_json;

constexpr int kMostCounted = 64;  // repetitions written out for minItems / maxLength and the like

// The rules every converted schema may use: JSON's own syntax.
constexpr const char* kJsonRules = R"(ws ::= " "?
json-char ::= [^"\\\x00-\x1f] | "\\" (["\\/bfnrt] | "u" json-hex json-hex json-hex json-hex)
json-hex ::= [0-9a-fA-F]
json-string ::= "\"" json-char* "\""
json-integer ::= "-"? ("0" | [1-9] [0-9]*)
json-number ::= json-integer ("." [0-9]+)? ([eE] [-+]? [0-9] [0-9]?)?
json-value ::= json-object | json-array | json-string | json-number | "true" | "false" | "null"
json-object ::= "{" ws (json-string ws ":" ws json-value (ws "," ws json-string ws ":" ws json-value)*)? ws "}"
json-array ::= "[" ws (json-value (ws "," ws json-value)*)? ws "]"
)";

// A JSON text as a grammar literal.
std::string literal(const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
        const auto byte = uint8_t(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (byte < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
            out += escaped;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

int count(const Json& schema, const char* key, int fallback) {
    if (!schema.contains(key))
        return fallback;
    const Json& value = schema[key];
    if (!value.is_number_integer() || value.get<int64_t>() < 0)
        throw Error(std::string("JSON schema: '") + key + "' must be a whole number >= 0");
    return int(std::min<int64_t>(value.get<int64_t>(), kMostCounted));
}

// `item` between min and max times (max < 0: no limit), separated by `separator`.
std::string repeated(const std::string& item, int min, int max, const std::string& separator) {
    if (max >= 0 && max < min)
        throw Error("JSON schema: a maximum count is below its minimum");
    std::string out;
    for (int i = 0; i < min; ++i)
        out += (i > 0 ? separator + " " : std::string()) + item + " ";
    const std::string next = (min > 0 ? separator + " " : std::string()) + item;
    if (max < 0) {
        if (min > 0)
            return "(" + out + "(" + separator + " " + item + ")*)";
        return "(" + item + " (" + separator + " " + item + ")*)?";
    }
    // Up to max − min more, each optional only after the one before.
    std::string optional;
    for (int i = max - 1; i >= min; --i)
        optional = "(" + (i > 0 ? separator + " " : std::string()) + item + " " + optional + ")?";
    return "(" + out + optional + ")";
}

class Converter {
  public:
    std::string convert(const Json& schema) {
        const std::string root = visit(schema);
        return "root ::= " + root + "\n" + rules_.str() + kJsonRules;
    }

  private:
    std::string rule(const std::string& body) {
        const std::string name = "schema-" + std::to_string(++counter_);
        rules_ << name << " ::= " << body << "\n";
        return name;
    }

    std::string visit(const Json& schema) {
        if (schema.is_boolean()) {
            if (!schema.get<bool>())
                throw Error("JSON schema: 'false' allows no value");
            return "json-value";
        }
        if (!schema.is_object())
            throw Error("JSON schema: a schema must be an object or a boolean");
        for (const char* unsupported : {"$ref", "allOf", "not", "if"})
            if (schema.contains(unsupported))
                throw Error(std::string("JSON schema: '") + unsupported + "' is not supported");
        if (schema.contains("const"))
            return literal(schema["const"].dump());
        if (schema.contains("enum")) {
            if (!schema["enum"].is_array() || schema["enum"].empty())
                throw Error("JSON schema: 'enum' must be a non-empty array");
            std::string alternatives;
            for (const Json& value : schema["enum"])
                alternatives += (alternatives.empty() ? "" : " | ") + literal(value.dump());
            return "(" + alternatives + ")";
        }
        for (const char* choice : {"anyOf", "oneOf"}) {
            if (!schema.contains(choice))
                continue;
            if (!schema[choice].is_array() || schema[choice].empty())
                throw Error(std::string("JSON schema: '") + choice + "' must be a non-empty array");
            std::string alternatives;
            for (const Json& option : schema[choice])
                alternatives += (alternatives.empty() ? "" : " | ") + visit(option);
            return "(" + alternatives + ")";
        }
        if (!schema.contains("type"))
            return "json-value";
        const Json& type = schema["type"];
        if (type.is_array()) {
            std::string alternatives;
            for (const Json& one : type) {
                Json single = schema;
                single["type"] = one;
                alternatives += (alternatives.empty() ? "" : " | ") + visit(single);
            }
            return "(" + alternatives + ")";
        }
        if (!type.is_string())
            throw Error("JSON schema: 'type' must be a string or a list of strings");
        const std::string name = type.get<std::string>();
        if (name == "object")
            return object(schema);
        if (name == "array") {
            const std::string item =
                schema.contains("items") ? visit(schema["items"]) : "json-value";
            return rule("\"[\" ws " +
                        repeated(item, count(schema, "minItems", 0), count(schema, "maxItems", -1),
                                 "ws \",\" ws") +
                        " ws \"]\"");
        }
        if (name == "string") {
            if (!schema.contains("minLength") && !schema.contains("maxLength"))
                return "json-string";
            return rule("\"\\\"\" " +
                        repeated("json-char", count(schema, "minLength", 0),
                                 count(schema, "maxLength", -1), "") +
                        " \"\\\"\"");
        }
        if (name == "number")
            return "json-number";
        if (name == "integer")
            return "json-integer";
        if (name == "boolean")
            return "(\"true\" | \"false\")";
        if (name == "null")
            return "\"null\"";
        throw Error("JSON schema: unknown type '" + name + "'");
    }

    std::string object(const Json& schema) {
        std::vector<std::pair<std::string, std::string>> members;  // key, value expression
        if (schema.contains("properties")) {
            if (!schema["properties"].is_object())
                throw Error("JSON schema: 'properties' must be an object");
            for (const auto& [key, value] : schema["properties"].items())
                members.emplace_back(key, visit(value));
        }
        if (schema.contains("required")) {
            if (!schema["required"].is_array())
                throw Error("JSON schema: 'required' must be an array of names");
            for (const Json& key : schema["required"]) {
                if (!key.is_string())
                    throw Error("JSON schema: 'required' must be an array of names");
                const std::string name = key.get<std::string>();
                if (std::none_of(members.begin(), members.end(),
                                 [&name](const auto& m) { return m.first == name; }))
                    members.emplace_back(name, "json-value");
            }
        }
        if (members.empty() && !schema.contains("properties"))
            return "json-object";
        std::string body = "\"{\" ws";
        for (size_t i = 0; i < members.size(); ++i)
            body += (i > 0 ? " ws \",\" ws " : " ") + literal(Json(members[i].first).dump()) +
                    " ws \":\" ws " + members[i].second;
        return rule(body + " ws \"}\"");
    }

    std::ostringstream rules_;
    int counter_ = 0;
};

}  // namespace

std::string grammarFromJsonSchema(std::string_view schema) {
    Json parsed;
    try {
        parsed = Json::parse(schema);
    } catch (const Json::exception& error) {
        throw Error(std::string("JSON schema: not valid JSON: ") + error.what());
    }
    return Converter().convert(parsed);
}

}  // namespace inferlens
