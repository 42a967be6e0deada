#include "remote/http_client.h"

#include <curl/curl.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>

#include "core/utf8.h"

namespace inferlens::remote {

namespace {

using Clock = std::chrono::steady_clock;

// How often a transfer wakes to look at the cancel flag and the stall clock.
constexpr int kPollMilliseconds = 25;
// Bodies read whole (discovery, tokenization, error bodies) are small; a server that sends more
// is not one we understand.
constexpr size_t kMaximumBodyBytes = 64 << 20;

void initialiseCurlOnce() {
    static std::once_flag once;
    std::call_once(once, [] {
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
            throw RemoteError(RemoteErrorKind::Other, "libcurl could not be initialised");
    });
}

struct EasyDeleter {
    void operator()(CURL* easy) const { curl_easy_cleanup(easy); }
};
struct MultiDeleter {
    void operator()(CURLM* multi) const { curl_multi_cleanup(multi); }
};
struct ListDeleter {
    void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
struct UrlDeleter {
    void operator()(CURLU* url) const { curl_url_cleanup(url); }
};

// host:port of a URL, for messages (never the user:password part a URL may carry).
struct Endpoint {
    std::string scheme;
    std::string hostAndPort;
};

std::string urlPart(CURLU* url, CURLUPart part, unsigned flags = 0) {
    char* value = nullptr;
    if (curl_url_get(url, part, &value, flags) != CURLUE_OK || value == nullptr)
        return {};
    std::string copy(value);
    curl_free(value);
    return copy;
}

Endpoint parseEndpoint(const std::string& url) {
    std::unique_ptr<CURLU, UrlDeleter> handle(curl_url());
    if (!handle || curl_url_set(handle.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK)
        throw RemoteError(RemoteErrorKind::InvalidUrl,
                          "not a valid server address: \"" + escapeInvalidUtf8(url) + "\"");
    Endpoint endpoint;
    endpoint.scheme = urlPart(handle.get(), CURLUPART_SCHEME);
    if (endpoint.scheme != "http" && endpoint.scheme != "https")
        throw RemoteError(RemoteErrorKind::InvalidUrl,
                          "not an http:// or https:// address: \"" + escapeInvalidUtf8(url) + "\"");
    endpoint.hostAndPort = urlPart(handle.get(), CURLUPART_HOST) + ":" +
                           urlPart(handle.get(), CURLUPART_PORT, CURLU_DEFAULT_PORT);
    return endpoint;
}

std::string secondsText(std::chrono::milliseconds duration) {
    const long long ms = duration.count();
    if (ms % 1000 == 0)
        return std::to_string(ms / 1000) + " s";
    return std::to_string(ms / 1000) + "." + std::to_string(ms % 1000 / 100) + " s";
}

// What one transfer collects while libcurl runs it.
struct Transfer {
    CURL* easy = nullptr;
    const ChunkHandler* onChunk = nullptr;  // null: the body is collected whole
    std::string body;
    bool bodyTooLarge = false;
    bool stoppedByReader = false;
    std::exception_ptr readerError;
    Clock::time_point lastActivity = Clock::now();

    bool successStatus() const {
        long status = 0;
        curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
        return status >= 200 && status < 300;
    }
};

size_t onHeaderBytes(char*, size_t size, size_t count, void* user) {
    static_cast<Transfer*>(user)->lastActivity = Clock::now();
    return size * count;
}

size_t onBodyBytes(char* data, size_t size, size_t count, void* user) {
    auto& transfer = *static_cast<Transfer*>(user);
    const size_t length = size * count;
    transfer.lastActivity = Clock::now();
    if (transfer.onChunk == nullptr || !transfer.successStatus()) {
        if (transfer.body.size() + length > kMaximumBodyBytes) {
            transfer.bodyTooLarge = true;
            return 0;
        }
        transfer.body.append(data, length);
        return length;
    }
    try {
        if ((*transfer.onChunk)(std::string_view(data, length)))
            return length;
        transfer.stoppedByReader = true;
    } catch (...) {
        // An exception must not unwind through libcurl's C frames; it is rethrown after.
        transfer.readerError = std::current_exception();
    }
    return 0;  // anything but `length` makes libcurl close the transfer
}

class Request {
  public:
    Request(const HttpOptions& options, std::string_view method, std::string_view path)
        : options_(options),
          url_(joinUrl(options.baseUrl, path)),
          what_(std::string(method) + " " + std::string(path)),
          endpoint_(parseEndpoint(url_)) {
        initialiseCurlOnce();
        easy_.reset(curl_easy_init());
        if (!easy_)
            throw RemoteError(RemoteErrorKind::Other, "libcurl could not start a request");
        transfer_.easy = easy_.get();
        errorBuffer_[0] = '\0';
        CURL* easy = easy_.get();
        curl_easy_setopt(easy, CURLOPT_URL, url_.c_str());
        curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, errorBuffer_);
        curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);  // we run on worker threads
        curl_easy_setopt(easy, CURLOPT_USERAGENT, "InferLens");
        curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, long(options.connectTimeout.count()));
        curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
        curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 1L);
        curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 2L);
        if (!options.caBundlePath.empty())
            curl_easy_setopt(easy, CURLOPT_CAINFO, options.caBundlePath.c_str());
        curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, onHeaderBytes);
        curl_easy_setopt(easy, CURLOPT_HEADERDATA, &transfer_);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, onBodyBytes);
        curl_easy_setopt(easy, CURLOPT_WRITEDATA, &transfer_);
        if (!options.apiKey.empty())
            addHeader("Authorization: Bearer " + options.apiKey);
    }

    void setJsonBody(std::string_view body) {
        curl_easy_setopt(easy_.get(), CURLOPT_POSTFIELDS, body.data());
        curl_easy_setopt(easy_.get(), CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.size()));
        addHeader("Content-Type: application/json");
        addHeader("Expect:");  // no "100-continue" round trip before the body
    }

    void addHeader(const std::string& header) {
        curl_slist* extended = curl_slist_append(headers_.get(), header.c_str());
        if (extended == nullptr)
            throw RemoteError(RemoteErrorKind::Other, "out of memory for a request header");
        headers_.release();
        headers_.reset(extended);
    }

    HttpResponse perform(const ChunkHandler* onChunk, const std::atomic<bool>* cancel) {
        transfer_.onChunk = onChunk;
        curl_easy_setopt(easy_.get(), CURLOPT_HTTPHEADER, headers_.get());
        std::unique_ptr<CURLM, MultiDeleter> multi(curl_multi_init());
        if (!multi || curl_multi_add_handle(multi.get(), easy_.get()) != CURLM_OK)
            throw RemoteError(RemoteErrorKind::Other, "libcurl could not start a request");
        const Outcome outcome = run(multi.get(), cancel);
        curl_multi_remove_handle(multi.get(), easy_.get());

        HttpResponse response;
        curl_easy_getinfo(easy_.get(), CURLINFO_RESPONSE_CODE, &response.status);
        if (outcome.cancelled) {
            response.cancelled = true;
            return response;
        }
        if (outcome.stalled)
            throw RemoteError(RemoteErrorKind::Stalled, "the server at " + endpoint_.hostAndPort +
                                                            " sent nothing for " +
                                                            secondsText(options_.stallTimeout) +
                                                            " (the stall timeout) during " + what_);
        if (transfer_.readerError)
            std::rethrow_exception(transfer_.readerError);
        if (outcome.code != CURLE_OK && !transfer_.stoppedByReader)
            throw transferError(outcome.code);
        if (response.status < 200 || response.status >= 300)
            throw httpStatusError(response.status, transfer_.body, what_, !options_.apiKey.empty());
        response.body = std::move(transfer_.body);
        return response;
    }

  private:
    struct Outcome {
        CURLcode code = CURLE_OK;
        bool cancelled = false;
        bool stalled = false;
    };

    // Drives the transfer in short polls so that the cancel flag and the stall clock are looked at
    // every kPollMilliseconds, whether or not bytes arrive.
    Outcome run(CURLM* multi, const std::atomic<bool>* cancel) {
        Outcome outcome;
        bool requestSent = false;
        for (;;) {
            int running = 0;
            const CURLMcode multiCode = curl_multi_perform(multi, &running);
            if (multiCode != CURLM_OK)
                throw RemoteError(RemoteErrorKind::Other,
                                  std::string("libcurl failed: ") + curl_multi_strerror(multiCode));
            if (running == 0)
                break;
            if (cancel != nullptr && cancel->load()) {
                outcome.cancelled = true;
                return outcome;
            }
            // The stall clock starts once connecting (TCP, TLS) is over, which the connect
            // timeout covers.
            if (!requestSent) {
                curl_off_t pretransfer = 0;
                curl_easy_getinfo(easy_.get(), CURLINFO_PRETRANSFER_TIME_T, &pretransfer);
                requestSent = pretransfer > 0;
                transfer_.lastActivity = Clock::now();
            } else if (Clock::now() - transfer_.lastActivity > options_.stallTimeout) {
                outcome.stalled = true;
                return outcome;
            }
            curl_multi_poll(multi, nullptr, 0, kPollMilliseconds, nullptr);
        }
        int queued = 0;
        while (CURLMsg* message = curl_multi_info_read(multi, &queued))
            if (message->msg == CURLMSG_DONE)
                outcome.code = message->data.result;
        return outcome;
    }

    std::string curlDetail(CURLcode code) const {
        return escapeInvalidUtf8(errorBuffer_[0] != '\0' ? errorBuffer_ : curl_easy_strerror(code));
    }

    RemoteError transferError(CURLcode code) const {
        const std::string& where = endpoint_.hostAndPort;
        switch (code) {
            case CURLE_COULDNT_RESOLVE_HOST:
                return RemoteError(
                    RemoteErrorKind::HostNotFound,
                    "cannot find the host of " + where + " (is the server address right?)");
            case CURLE_COULDNT_CONNECT: {
                long osErrno = 0;
                curl_easy_getinfo(easy_.get(), CURLINFO_OS_ERRNO, &osErrno);
                if (osErrno == ECONNREFUSED)
                    return RemoteError(RemoteErrorKind::ConnectionRefused,
                                       "cannot connect to " + where +
                                           ": connection refused (is the server running, and on "
                                           "that port?)");
                return RemoteError(RemoteErrorKind::ConnectFailed,
                                   "cannot connect to " + where + ": " +
                                       (osErrno != 0 ? std::string(std::strerror(int(osErrno)))
                                                     : curlDetail(code)));
            }
            case CURLE_OPERATION_TIMEDOUT:
                return RemoteError(RemoteErrorKind::ConnectTimeout,
                                   "connecting to " + where + " took longer than " +
                                       secondsText(options_.connectTimeout) +
                                       " (the connect timeout)");
            case CURLE_PEER_FAILED_VERIFICATION:
                return RemoteError(RemoteErrorKind::Tls,
                                   "the TLS certificate of " + where +
                                       " could not be verified: " + curlDetail(code));
            case CURLE_SSL_CACERT_BADFILE:
                return RemoteError(RemoteErrorKind::Tls,
                                   "the certificate authorities file \"" +
                                       escapeInvalidUtf8(options_.caBundlePath) +
                                       "\" could not be read: " + curlDetail(code));
            case CURLE_SSL_CONNECT_ERROR:
            case CURLE_SSL_CERTPROBLEM:
            case CURLE_SSL_CIPHER:
            case CURLE_SSL_ISSUER_ERROR:
            case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            case CURLE_SSL_INVALIDCERTSTATUS:
            case CURLE_USE_SSL_FAILED:
                return RemoteError(RemoteErrorKind::Tls, "the TLS connection to " + where +
                                                             " failed: " + curlDetail(code));
            case CURLE_GOT_NOTHING:
                return RemoteError(RemoteErrorKind::ConnectionLost,
                                   where + " closed the connection without answering " + what_);
            case CURLE_RECV_ERROR:
            case CURLE_SEND_ERROR:
            case CURLE_PARTIAL_FILE:
                return RemoteError(RemoteErrorKind::ConnectionLost,
                                   "the connection to " + where + " was lost during " + what_ +
                                       ": " + curlDetail(code));
            case CURLE_WRITE_ERROR:
                if (transfer_.bodyTooLarge)
                    return RemoteError(RemoteErrorKind::Protocol,
                                       "the answer of " + where + " to " + what_ +
                                           " is larger than " +
                                           std::to_string(kMaximumBodyBytes >> 20) + " MiB");
                break;
            default:
                break;
        }
        return RemoteError(RemoteErrorKind::Other,
                           what_ + " to " + where + " failed: " + curlDetail(code));
    }

    const HttpOptions& options_;
    const std::string url_;
    const std::string what_;
    const Endpoint endpoint_;
    std::unique_ptr<CURL, EasyDeleter> easy_;
    std::unique_ptr<curl_slist, ListDeleter> headers_;
    Transfer transfer_;
    char errorBuffer_[CURL_ERROR_SIZE];
};

std::string_view trimmed(std::string_view text) {
    const size_t first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos)
        return {};
    const size_t last = text.find_last_not_of(" \t\r\n");
    return text.substr(first, last - first + 1);
}

}  // namespace

std::string joinUrl(std::string_view base, std::string_view path) {
    while (base.ends_with('/'))
        base.remove_suffix(1);
    while (path.starts_with('/'))
        path.remove_prefix(1);
    std::string url(base);
    url += '/';
    url += path;
    return url;
}

std::string serverRootUrl(std::string_view typed) {
    std::string_view root = trimmed(typed);
    while (root.ends_with('/'))
        root.remove_suffix(1);
    if (root.ends_with("/v1"))
        root.remove_suffix(3);
    while (root.ends_with('/'))
        root.remove_suffix(1);
    return std::string(root);
}

HttpClient::HttpClient(HttpOptions options) : options_(std::move(options)) {}

HttpResponse HttpClient::get(std::string_view path, const std::atomic<bool>* cancel) const {
    Request request(options_, "GET", path);
    request.addHeader("Accept: application/json");
    return request.perform(nullptr, cancel);
}

HttpResponse HttpClient::postJson(std::string_view path, std::string_view jsonBody,
                                  const std::atomic<bool>* cancel) const {
    Request request(options_, "POST", path);
    request.setJsonBody(jsonBody);
    request.addHeader("Accept: application/json");
    return request.perform(nullptr, cancel);
}

HttpResponse HttpClient::postStream(std::string_view path, std::string_view jsonBody,
                                    const ChunkHandler& onChunk,
                                    const std::atomic<bool>* cancel) const {
    Request request(options_, "POST", path);
    request.setJsonBody(jsonBody);
    request.addHeader("Accept: text/event-stream");
    return request.perform(&onChunk, cancel);
}

}  // namespace inferlens::remote
