#pragma once
// HTTP for talking to a generation server, on libcurl: plain requests for discovery and
// tokenization, and a streamed POST that hands the answer's bytes over as they arrive (for
// server-sent events). Every request has a connection and libcurl handles of its own, so one
// HttpClient may serve several threads at once; callbacks run on the calling thread.
//
// Failures throw RemoteError (remote/remote_error.h) with the kind and a message for the person,
// including statuses outside 2xx (with the server's own error message). Cancellation is not a
// failure: it returns, with `cancelled` set.
//
// TLS peer and host verification are always on; there is deliberately no option to switch them
// off. A server with a certificate from a private authority is reached by naming that authority's
// certificate in `caBundlePath`.

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include "remote/remote_error.h"

namespace inferlens::remote {

struct HttpOptions {
    // The server's root, e.g. "http://127.0.0.1:8080" or "https://host/prefix"; request paths are
    // joined to it (see joinUrl).
    std::string baseUrl;
    // Sent as "Authorization: Bearer <key>" when not empty; never logged, never in a message.
    std::string apiKey;
    std::chrono::milliseconds connectTimeout{10'000};
    // Once the request is sent, the longest wait for the next byte of the answer. Generous by
    // default: a large model may think for a while over a long prompt before its first token.
    std::chrono::milliseconds stallTimeout{120'000};
    // A PEM file of certificate authorities to trust instead of the system's; empty: the system's.
    std::string caBundlePath;
};

struct HttpResponse {
    long status = 0;         // 2xx, or what had come when cancelled (0: nothing yet)
    std::string body;        // the whole body (empty for postStream, whose bytes went to onChunk)
    bool cancelled = false;  // the cancel flag was raised and the request closed
};

// Receives the answer's bytes as they arrive. Return false to close the request early (as when
// the stream's end sentinel came); the call then returns normally. An exception thrown here
// closes the request and leaves the call.
using ChunkHandler = std::function<bool(std::string_view bytes)>;

// Joins a server root and a path with exactly one "/" between them: joinUrl("http://h:1/", "/v1")
// and joinUrl("http://h:1", "v1") are both "http://h:1/v1".
std::string joinUrl(std::string_view base, std::string_view path);

// The server root for a URL a person typed: spaces and trailing slashes removed, and a trailing
// "/v1" (how the OpenAI clients and the vLLM and SGLang docs write base URLs) removed too, since
// our paths start with /v1 themselves and llama-server's /props and /tokenize live at the root.
std::string serverRootUrl(std::string_view typed);

class HttpClient {
  public:
    explicit HttpClient(HttpOptions options);

    const HttpOptions& options() const { return options_; }

    // `cancel`, when given, is polled every few tens of milliseconds; raising it closes the
    // request promptly and the call returns with `cancelled` set.
    HttpResponse get(std::string_view path, const std::atomic<bool>* cancel = nullptr) const;
    HttpResponse postJson(std::string_view path, std::string_view jsonBody,
                          const std::atomic<bool>* cancel = nullptr) const;
    // POSTs `jsonBody` asking for text/event-stream and passes the answer's bytes to `onChunk` as
    // they arrive. A status outside 2xx throws with the error body's message; `onChunk` sees only
    // a successful answer.
    HttpResponse postStream(std::string_view path, std::string_view jsonBody,
                            const ChunkHandler& onChunk,
                            const std::atomic<bool>* cancel = nullptr) const;

  private:
    HttpOptions options_;
};

}  // namespace inferlens::remote
