#pragma once
// A proxy of ours on 127.0.0.1 in front of a real server, for the faults a healthy server never
// shows: it relays each request upstream (through the engine's own HttpClient) and the answer
// back, re-framed as chunks as they arrive, unless told to break it: a 500 instead of the answer,
// a malformed event after the first one, or a stream that stalls after the first chunk.

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "remote/http_client.h"
#include "support/loopback_http_server.h"

namespace inferlens::test {

enum class Fault { None, Status500, MalformedEvent, StallAfterFirstChunk };

class FaultProxy {
  public:
    explicit FaultProxy(std::string upstream)
        : upstream_(std::move(upstream)),
          server_([this](const LoopbackServer::Connection& connection) { relay(connection); }) {}

    std::string url() const { return server_.url(); }
    // For the requests that arrive from now on (POSTs only: finding the server stays healthy).
    void setFault(Fault fault) { fault_ = fault; }
    // The bodies of the POSTs relayed so far, in order (what the client asked for).
    std::vector<std::string> postedBodies() const {
        const std::lock_guard lock(postedMutex_);
        return posted_;
    }

  private:
    // Whether the client closed its end (a read would give end of file).
    static bool clientGone(int fd) {
        char byte;
        return ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
    }

    void relay(const LoopbackServer::Connection& connection) {
        const std::string& request = connection.request;
        const size_t space = request.find(' ');
        const std::string method = request.substr(0, space);
        const std::string path =
            request.substr(space + 1, request.find(' ', space + 1) - space - 1);
        const size_t headerEnd = request.find("\r\n\r\n");
        const std::string body =
            headerEnd == std::string::npos ? std::string() : request.substr(headerEnd + 4);
        const Fault fault = method == "POST" ? fault_.load() : Fault::None;
        if (method == "POST") {
            const std::lock_guard lock(postedMutex_);
            posted_.push_back(body);
        }
        if (fault == Fault::Status500) {
            sendAnswer(connection.fd, 500, "Internal Server Error",
                       R"({"error":{"code":500,"message":"injected fault: the model crashed",)"
                       R"("type":"server_error"}})");
            return;
        }
        remote::HttpOptions options;
        options.baseUrl = upstream_;
        const remote::HttpClient client(options);
        try {
            if (method == "GET") {
                sendAnswer(connection.fd, 200, "OK", client.get(path).body);
                return;
            }
            sendAll(connection.fd,
                    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                    "Transfer-Encoding: chunked\r\n\r\n");
            int chunks = 0;
            client.postStream(path, body, [&](std::string_view bytes) {
                if (!sendAll(connection.fd, chunked(bytes)))
                    return false;  // the client left: close the upstream request too
                if (++chunks > 1 || fault == Fault::None)
                    return true;
                if (fault == Fault::MalformedEvent) {
                    // The answer ends there: the proxy serves one connection at a time, and the
                    // next request should not wait for the rest of this one.
                    sendAll(connection.fd, chunked("data: {\"choices\": [oops\n\n"));
                    return false;
                }
                while (!connection.stopping && !clientGone(connection.fd))  // stall
                    std::this_thread::sleep_for(std::chrono::milliseconds(20));
                return false;
            });
            sendAll(connection.fd, chunked(""));
        } catch (const std::exception& error) {
            sendAnswer(connection.fd, 502, "Bad Gateway",
                       std::string(R"({"error":{"message":"proxy: )") + error.what() + "\"}}");
        }
    }

    std::string upstream_;
    std::atomic<Fault> fault_{Fault::None};
    mutable std::mutex postedMutex_;
    std::vector<std::string> posted_;
    LoopbackServer server_;
};

}  // namespace inferlens::test
