#pragma once
// Failures of a request to a generation server (llama-server, vLLM, SGLang, any OpenAI-compatible
// API), with the kind kept apart from the message so that callers can react to a refused key or a
// lost connection without reading text. The message is written for the person: it names the
// server and what went wrong, never the API key.

#include <optional>
#include <string>
#include <string_view>

#include "core/error.h"

namespace inferlens::remote {

enum class RemoteErrorKind {
    InvalidUrl,         // not an http:// or https:// URL
    HostNotFound,       // the name does not resolve
    ConnectionRefused,  // nothing listens on host:port
    ConnectFailed,      // other failures to connect (no route, network down)
    ConnectTimeout,     // connecting (TCP and TLS) took longer than the connect timeout
    Stalled,            // no byte arrived for the stall timeout once the request was sent
    Tls,                // certificate or handshake failure; verification is never switched off
    ConnectionLost,     // the connection closed before the answer was complete
    Http,               // the server answered with a status outside 2xx; see httpStatus()
    Unauthorized,       // HTTP 401 or 403: the server refused (or wanted) the API key
    ServerReported,     // an error the server put inside a successful (streamed) answer
    Protocol,           // the answer is not what the API says it should be (bad JSON, fields)
    Other,
};

class RemoteError : public Error {
  public:
    RemoteError(RemoteErrorKind kind, const std::string& message, long httpStatus = 0)
        : Error(message), kind_(kind), httpStatus_(httpStatus) {}

    RemoteErrorKind kind() const { return kind_; }
    // The HTTP status for kinds Http and Unauthorized, else 0.
    long httpStatus() const { return httpStatus_; }

  private:
    RemoteErrorKind kind_;
    long httpStatus_;
};

// The message a server put in an error body, in the shapes servers use:
//   OpenAI and llama-server  {"error": {"message": "...", "type": ..., "code": ...}}
//   vLLM (older) and SGLang  {"object": "error", "message": "...", "type": ..., "code": ...}
//   FastAPI (vLLM, SGLang)   {"detail": "..."} or {"detail": [{"loc": [...], "msg": "..."}]}
//   some proxies             {"error": "..."} or {"message": "..."}
// nullopt when the body is not JSON or has none of these.
std::optional<std::string> serverErrorMessage(std::string_view body);

// The RemoteError for an HTTP status outside 2xx: 401/403 say that the key was refused (or is
// missing, when `sentApiKey` is false); others give the status, what was asked (`what`, e.g.
// "POST /v1/chat/completions") and the server's own message, or the start of its body.
RemoteError httpStatusError(long status, std::string_view body, std::string_view what,
                            bool sentApiKey);

}  // namespace inferlens::remote
