#include "remote/remote_error.h"

#include <nlohmann/json.hpp>

#include "core/utf8.h"

namespace inferlens::remote {

namespace {

using nlohmann::json;

std::optional<std::string> stringField(const json& object, const char* key) {
    const auto it = object.find(key);
    if (it == object.end() || !it->is_string() || it->get_ref<const std::string&>().empty())
        return std::nullopt;
    return it->get<std::string>();
}

// FastAPI's validation errors: [{"loc": ["body", "max_tokens"], "msg": "...", "type": ...}, ...]
std::optional<std::string> validationErrors(const json& detail) {
    std::string joined;
    for (const json& item : detail) {
        if (!item.is_object())
            continue;
        const auto message = stringField(item, "msg");
        if (!message)
            continue;
        if (!joined.empty())
            joined += "; ";
        const auto location = item.find("loc");
        if (location != item.end() && location->is_array() && !location->empty())
            joined += location->back().dump() + ": ";
        joined += *message;
    }
    return joined.empty() ? std::nullopt : std::optional(joined);
}

const char* reasonPhrase(long status) {
    switch (status) {
        case 400:
            return "Bad Request";
        case 401:
            return "Unauthorized";
        case 403:
            return "Forbidden";
        case 404:
            return "Not Found";
        case 405:
            return "Method Not Allowed";
        case 408:
            return "Request Timeout";
        case 413:
            return "Payload Too Large";
        case 422:
            return "Unprocessable Entity";
        case 429:
            return "Too Many Requests";
        case 500:
            return "Internal Server Error";
        case 501:
            return "Not Implemented";
        case 502:
            return "Bad Gateway";
        case 503:
            return "Service Unavailable";
        case 504:
            return "Gateway Timeout";
        default:
            return "";
    }
}

// The start of a body that is not JSON (an HTML page from a proxy, plain text), on one line.
std::string bodyExcerpt(std::string_view body) {
    constexpr size_t kMaximum = 200;
    std::string excerpt(body.substr(0, kMaximum));
    for (char& c : excerpt)
        if (c == '\n' || c == '\r' || c == '\t')
            c = ' ';
    if (body.size() > kMaximum)
        excerpt += "...";
    return excerpt;
}

}  // namespace

std::optional<std::string> serverErrorMessage(std::string_view body) {
    const json document = json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (!document.is_object())
        return std::nullopt;
    if (const auto error = document.find("error"); error != document.end()) {
        if (error->is_string() && !error->get_ref<const std::string&>().empty())
            return error->get<std::string>();
        if (error->is_object())
            if (auto message = stringField(*error, "message"))
                return message;
    }
    if (const auto detail = document.find("detail"); detail != document.end()) {
        if (detail->is_string())
            return detail->get<std::string>();
        if (detail->is_array())
            return validationErrors(*detail);
    }
    return stringField(document, "message");
}

RemoteError httpStatusError(long status, std::string_view body, std::string_view what,
                            bool sentApiKey) {
    const auto serverMessage = serverErrorMessage(body);
    std::string said;
    if (serverMessage)
        said = ": \"" + *serverMessage + "\"";
    else if (!body.empty())
        said = ": " + bodyExcerpt(body);
    const std::string statusText =
        "HTTP " + std::to_string(status) +
        (*reasonPhrase(status) ? std::string(" ") + reasonPhrase(status) : std::string());
    std::string message;
    if (status == 401 || status == 403) {
        message = sentApiKey ? "the server refused the API key (" + statusText + said + ")"
                             : "the server wants an API key and none was given (" + statusText +
                                   said + ")";
        return RemoteError(RemoteErrorKind::Unauthorized, escapeInvalidUtf8(message), status);
    }
    message = "the server answered " + statusText + " to " + std::string(what) + said;
    return RemoteError(RemoteErrorKind::Http, escapeInvalidUtf8(message), status);
}

}  // namespace inferlens::remote
