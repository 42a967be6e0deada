// json.dumps(value, ensure_ascii=False, indent=indent, sort_keys=...) as Python writes it:
// ", " and ": " between items without indent, "," and ": " with it; floats in repr() form.

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "jinja/build_limits.h"
#include "jinja/builtins.h"
#include "jinja/jinja_error.h"

namespace inferlens::jinja {
namespace {

void writeString(std::string& out, const std::string& s) {
    out += '"';
    for (const char c : s) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
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
            case '\b':
                out += "\\b";
                break;
            case '\f':
                out += "\\f";
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char escaped[8];
                    std::snprintf(escaped, sizeof escaped, "\\u%04x",
                                  static_cast<unsigned char>(c));
                    out += escaped;
                } else {
                    out += c;
                }
        }
    }
    out += '"';
}

// json.dumps writes every key as a string: 1 → "1", True → "true", None → "null".
std::string keyText(const Value& key) {
    if (key.isString())
        return key.asString();
    if (key.isBool())
        return key.asBool() ? "true" : "false";
    if (key.isNone())
        return "null";
    if (key.isInt())
        return std::to_string(key.asInt());
    if (key.isFloat())
        return formatPythonFloat(key.asDouble());
    throw RuntimeProblem("keys must be str, int, float, bool or None, not " + key.typeName());
}

void write(std::string& out, const Value& value, int indent, bool sortKeys, int level) {
    if (level > 100)
        throw RuntimeProblem("tojson: the value nests too deeply");
    const auto newline = [&](int depth) {
        if (indent >= 0) {
            checkTextSize(out.size() + 1 + size_t(indent) * size_t(depth));
            out += '\n';
            out.append(size_t(indent) * size_t(depth), ' ');
        }
    };
    const char* separator = indent >= 0 ? "," : ", ";
    switch (value.kind()) {
        case Value::Kind::None:
            out += "null";
            return;
        case Value::Kind::Bool:
            out += value.asBool() ? "true" : "false";
            return;
        case Value::Kind::Int:
            out += std::to_string(value.asInt());
            return;
        case Value::Kind::Float: {
            const double d = value.asDouble();
            out += std::isnan(d)   ? "NaN"
                   : std::isinf(d) ? (d < 0 ? "-Infinity" : "Infinity")
                                   : formatPythonFloat(d);
            return;
        }
        case Value::Kind::String:
            writeString(out, value.asString());
            checkTextSize(out.size());
            return;
        case Value::Kind::List: {
            const List& list = value.asList();
            if (list.empty()) {
                out += "[]";
                return;
            }
            out += '[';
            for (size_t i = 0; i < list.size(); ++i) {
                if (i)
                    out += separator;
                newline(level + 1);
                write(out, list[i], indent, sortKeys, level + 1);
            }
            newline(level);
            out += ']';
            return;
        }
        case Value::Kind::Dict: {
            if (value.asDict().isNamespace)
                throw RuntimeProblem("Object of type Namespace is not JSON serializable");
            auto entries = value.asDict().entries;
            if (entries.empty()) {
                out += "{}";
                return;
            }
            if (sortKeys)
                std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
                    return keyText(a.first) < keyText(b.first);
                });
            out += '{';
            for (size_t i = 0; i < entries.size(); ++i) {
                if (i)
                    out += separator;
                newline(level + 1);
                writeString(out, keyText(entries[i].first));
                out += ": ";
                write(out, entries[i].second, indent, sortKeys, level + 1);
            }
            newline(level);
            out += '}';
            return;
        }
        default:
            throw RuntimeProblem("Object of type " + value.typeName() +
                                 " is not JSON serializable");
    }
}

}  // namespace

std::string toJson(const Value& value, int indent, bool sortKeys) {
    std::string out;
    write(out, value, indent, sortKeys, 0);
    return out;
}

}  // namespace inferlens::jinja
