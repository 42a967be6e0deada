#pragma once
// JSON documents from model directories (config.json, *.index.json) and safetensors headers, parsed
// with nlohmann::json, which also rejects invalid UTF-8. Errors name the file and the problem.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace inferlens {

nlohmann::json readJsonFile(const std::string& path);
// Parses `text` as a JSON object; a key that appears twice at the top level is an error.
nlohmann::json parseJsonObject(std::string_view text, const std::string& file);

// A short description of a value for error messages: primitives as JSON (shortened), containers
// by kind.
std::string describeJson(const nlohmann::json& value);

// Typed field access that reports a missing or mistyped field with the file and key.
int64_t requireJsonInteger(const nlohmann::json& object, const std::string& key,
                           const std::string& file);
std::optional<int64_t> optionalJsonInteger(const nlohmann::json& object, const std::string& key,
                                           const std::string& file);
std::optional<double> optionalJsonNumber(const nlohmann::json& object, const std::string& key,
                                         const std::string& file);
std::optional<bool> optionalJsonBool(const nlohmann::json& object, const std::string& key,
                                     const std::string& file);

}  // namespace inferlens
