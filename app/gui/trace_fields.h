#pragma once
// Typed access to the JSON of one trace line for the trace reader. Every failure throws
// inferlens::Error naming the file, the 1-based line and the event, so that a malformed trace is
// reported where it is broken and never read past.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace inferlens::gui {

class TraceFields {
  public:
    // `path` must outlive this object.
    explicit TraceFields(const std::string& path) : path_(path) {}

    // Where the problems reported from now on are: a line and its event ("" before it is known).
    void at(int64_t line, std::string event);
    [[noreturn]] void fail(const std::string& problem) const;

    // `object`'s field `key`, which must be there.
    const nlohmann::json& field(const nlohmann::json& object, const char* key) const;
    const nlohmann::json& array(const nlohmann::json& object, const char* key) const;
    std::string text(const nlohmann::json& object, const char* key) const;
    bool boolean(const nlohmann::json& object, const char* key) const;
    double number(const nlohmann::json& object, const char* key) const;
    int64_t integer(const nlohmann::json& object, const char* key, int64_t min, int64_t max) const;

    // Values that are not fields (array elements); `what` names them in messages.
    const nlohmann::json& object(const nlohmann::json& value, const std::string& what) const;
    double numberValue(const nlohmann::json& value, const std::string& what) const;
    int64_t integerValue(const nlohmann::json& value, const std::string& what, int64_t min,
                         int64_t max) const;

  private:
    const std::string& path_;
    int64_t line_ = 0;
    std::string event_;
};

}  // namespace inferlens::gui
