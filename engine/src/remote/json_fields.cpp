#include "remote/json_fields.h"

#include "core/utf8.h"
#include "remote/remote_error.h"

namespace inferlens::remote {

namespace {

using nlohmann::json;

// The field or nullptr when absent or null.
const json* field(const json& object, const char* key) {
    if (!object.is_object())
        return nullptr;
    const auto it = object.find(key);
    if (it == object.end() || it->is_null())
        return nullptr;
    return &*it;
}

[[noreturn]] void wrongType(const std::string& where, const char* key, const char* expected) {
    throwMalformedAnswer(where + "." + key, std::string("is not ") + expected);
}

}  // namespace

void throwMalformedAnswer(const std::string& where, const std::string& problem) {
    throw RemoteError(RemoteErrorKind::Protocol,
                      escapeInvalidUtf8("the server's answer is not as the API describes: " +
                                        where + " " + problem));
}

json parseAnswerJson(std::string_view text, const std::string& what) {
    json document = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (document.is_discarded()) {
        std::string excerpt(text.substr(0, 120));
        throw RemoteError(RemoteErrorKind::Protocol,
                          escapeInvalidUtf8(what + " is not valid JSON: \"" + excerpt +
                                            (text.size() > 120 ? "...\"" : "\"")));
    }
    return document;
}

const json* objectField(const json& object, const char* key, const std::string& where) {
    const json* value = field(object, key);
    if (value != nullptr && !value->is_object())
        wrongType(where, key, "an object");
    return value;
}

const json* arrayField(const json& object, const char* key, const std::string& where) {
    const json* value = field(object, key);
    if (value != nullptr && !value->is_array())
        wrongType(where, key, "an array");
    return value;
}

std::optional<std::string> stringField(const json& object, const char* key,
                                       const std::string& where) {
    const json* value = field(object, key);
    if (value == nullptr)
        return std::nullopt;
    if (!value->is_string())
        wrongType(where, key, "a string");
    return value->get<std::string>();
}

std::optional<double> numberField(const json& object, const char* key, const std::string& where) {
    const json* value = field(object, key);
    if (value == nullptr)
        return std::nullopt;
    if (!value->is_number())
        wrongType(where, key, "a number");
    return value->get<double>();
}

std::optional<int64_t> integerField(const json& object, const char* key, const std::string& where) {
    const json* value = field(object, key);
    if (value == nullptr)
        return std::nullopt;
    return integerValue(*value, where + "." + key);
}

std::optional<bool> boolField(const json& object, const char* key, const std::string& where) {
    const json* value = field(object, key);
    if (value == nullptr)
        return std::nullopt;
    if (!value->is_boolean())
        wrongType(where, key, "true or false");
    return value->get<bool>();
}

int64_t integerValue(const json& value, const std::string& where) {
    if (!value.is_number_integer())
        throwMalformedAnswer(where, "is not an integer");
    // 2^63 and beyond arrive as unsigned; no count or id of ours is that large.
    if (value.is_number_unsigned() && value.get<uint64_t>() > uint64_t(INT64_MAX))
        throwMalformedAnswer(where, "is too large");
    return value.get<int64_t>();
}

}  // namespace inferlens::remote
