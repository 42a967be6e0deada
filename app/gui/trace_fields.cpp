#include "trace_fields.h"

#include "core/error.h"

namespace inferlens::gui {
namespace {

std::string quoted(const char* key) {
    return "'" + std::string(key) + "'";
}

}  // namespace

void TraceFields::at(int64_t line, std::string event) {
    line_ = line;
    event_ = std::move(event);
}

void TraceFields::fail(const std::string& problem) const {
    throw Error(path_ + ": line " + std::to_string(line_) + ": " +
                (event_.empty() ? "" : event_ + ": ") + problem);
}

const nlohmann::json& TraceFields::field(const nlohmann::json& object, const char* key) const {
    const auto found = object.find(key);  // end() for anything but an object
    if (found == object.end())
        fail(quoted(key) + " is missing");
    return *found;
}

const nlohmann::json& TraceFields::array(const nlohmann::json& object, const char* key) const {
    const nlohmann::json& value = field(object, key);
    if (!value.is_array())
        fail(quoted(key) + " must be an array");
    return value;
}

std::string TraceFields::text(const nlohmann::json& object, const char* key) const {
    const nlohmann::json& value = field(object, key);
    if (!value.is_string())
        fail(quoted(key) + " must be a string");
    return value.get<std::string>();
}

bool TraceFields::boolean(const nlohmann::json& object, const char* key) const {
    const nlohmann::json& value = field(object, key);
    if (!value.is_boolean())
        fail(quoted(key) + " must be true or false");
    return value.get<bool>();
}

double TraceFields::number(const nlohmann::json& object, const char* key) const {
    return numberValue(field(object, key), quoted(key));
}

int64_t TraceFields::integer(const nlohmann::json& object, const char* key, int64_t min,
                             int64_t max) const {
    return integerValue(field(object, key), quoted(key), min, max);
}

const nlohmann::json& TraceFields::object(const nlohmann::json& value,
                                          const std::string& what) const {
    if (!value.is_object())
        fail(what + " must be an object");
    return value;
}

double TraceFields::numberValue(const nlohmann::json& value, const std::string& what) const {
    // The writer turns a NaN or infinity into null, which is caught here.
    if (!value.is_number())
        fail(what + " must be a number");
    return value.get<double>();
}

int64_t TraceFields::integerValue(const nlohmann::json& value, const std::string& what, int64_t min,
                                  int64_t max) const {
    // An unsigned value past INT64_MAX would wrap in get<int64_t>().
    const bool inRange = value.is_number_unsigned()
                             ? value.get<uint64_t>() <= uint64_t(max) &&
                                   (min <= 0 || value.get<uint64_t>() >= uint64_t(min))
                             : value.is_number_integer() && value.get<int64_t>() >= min &&
                                   value.get<int64_t>() <= max;
    if (!inRange)
        fail(what + " must be an integer in [" + std::to_string(min) + ", " + std::to_string(max) +
             "]");
    return value.get<int64_t>();
}

}  // namespace inferlens::gui
