#include "io/json_file.h"

#include <set>

#include "core/error.h"
#include "io/mapped_file.h"

namespace inferlens {
namespace {

constexpr size_t kMaxJsonBytes = size_t(256) << 20;
// Model metadata is a few levels deep; a limit keeps recursive code (dump, comparisons) safe.
constexpr int kMaxJsonDepth = 64;

}  // namespace

nlohmann::json readJsonFile(const std::string& path) {
    const MappedFile file(path);
    if (file.size() > kMaxJsonBytes)
        throwFileError(path, "JSON file larger than 256 MiB");
    const auto bytes = file.bytes();
    return parseJsonObject({reinterpret_cast<const char*>(bytes.data()), bytes.size()}, path);
}

std::string describeJson(const nlohmann::json& value) {
    if (value.is_object())
        return "an object";
    if (value.is_array())
        return "an array";
    std::string text = value.dump();
    if (text.size() > 60)
        text = text.substr(0, 57) + "...";
    return text;
}

nlohmann::json parseJsonObject(std::string_view text, const std::string& file) {
    std::set<std::string> topLevelKeys;
    std::string duplicate;
    const auto noteDuplicates = [&](int depth, nlohmann::json::parse_event_t event,
                                    nlohmann::json& parsed) {
        if (depth > kMaxJsonDepth)
            throwFileError(file, "invalid JSON: nested more than " + std::to_string(kMaxJsonDepth) +
                                     " levels deep");
        if (event == nlohmann::json::parse_event_t::key && depth == 1 && duplicate.empty() &&
            !topLevelKeys.insert(parsed.get<std::string>()).second)
            duplicate = parsed.get<std::string>();
        return true;
    };
    nlohmann::json document;
    try {
        document = nlohmann::json::parse(text.begin(), text.end(), noteDuplicates);
    } catch (const nlohmann::json::exception& error) {
        throwFileError(file, std::string("invalid JSON: ") + error.what());
    }
    if (!document.is_object())
        throwFileError(file, "invalid JSON: expected an object at the top");
    if (!duplicate.empty())
        throwFileError(file, "invalid JSON: key '" + duplicate + "' appears twice");
    return document;
}

std::optional<int64_t> optionalJsonInteger(const nlohmann::json& object, const std::string& key,
                                           const std::string& file) {
    const auto field = object.find(key);
    if (field == object.end() || field->is_null())
        return std::nullopt;
    if (!field->is_number_integer())
        throwFileError(file, "'" + key + "' must be an integer, found " + describeJson(*field));
    if (field->is_number_unsigned() && field->get<uint64_t>() > uint64_t(INT64_MAX))
        throwFileError(file, "'" + key + "' is too large");
    return field->get<int64_t>();
}

int64_t requireJsonInteger(const nlohmann::json& object, const std::string& key,
                           const std::string& file) {
    const auto value = optionalJsonInteger(object, key, file);
    if (!value)
        throwFileError(file, "required field '" + key + "' is missing");
    return *value;
}

std::optional<double> optionalJsonNumber(const nlohmann::json& object, const std::string& key,
                                         const std::string& file) {
    const auto field = object.find(key);
    if (field == object.end() || field->is_null())
        return std::nullopt;
    if (!field->is_number())
        throwFileError(file, "'" + key + "' must be a number, found " + describeJson(*field));
    return field->get<double>();
}

std::optional<bool> optionalJsonBool(const nlohmann::json& object, const std::string& key,
                                     const std::string& file) {
    const auto field = object.find(key);
    if (field == object.end() || field->is_null())
        return std::nullopt;
    if (!field->is_boolean())
        throwFileError(file, "'" + key + "' must be true or false, found " + describeJson(*field));
    return field->get<bool>();
}

}  // namespace inferlens
