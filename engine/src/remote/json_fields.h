#pragma once
// Typed reads of fields in a server's JSON answer, for the parsers of remote/. A field that is
// absent or null reads as nullopt (servers write null for "not given"); a field of the wrong type
// throws RemoteError of kind Protocol with `where` (e.g. "choices[0].logprobs") and the key.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace inferlens::remote {

[[noreturn]] void throwMalformedAnswer(const std::string& where, const std::string& problem);

// Parses `text` as JSON; `what` names the answer for the message ("the answer to GET /props").
nlohmann::json parseAnswerJson(std::string_view text, const std::string& what);

const nlohmann::json* objectField(const nlohmann::json& object, const char* key,
                                  const std::string& where);
const nlohmann::json* arrayField(const nlohmann::json& object, const char* key,
                                 const std::string& where);
std::optional<std::string> stringField(const nlohmann::json& object, const char* key,
                                       const std::string& where);
std::optional<double> numberField(const nlohmann::json& object, const char* key,
                                  const std::string& where);
std::optional<int64_t> integerField(const nlohmann::json& object, const char* key,
                                    const std::string& where);
std::optional<bool> boolField(const nlohmann::json& object, const char* key,
                              const std::string& where);

// An integer element (token ids), with its place for the message.
int64_t integerValue(const nlohmann::json& value, const std::string& where);

}  // namespace inferlens::remote
