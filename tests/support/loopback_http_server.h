#pragma once
// A tiny HTTP server on 127.0.0.1 for the tests of remote/: it serves connections one after
// another on its own thread, reads each request (headers and a Content-Length body) and hands it
// to a handler that writes whatever answer the test needs on the socket, including broken ones.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QtGlobal>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace inferlens::test {

// Writes all of `bytes`; false once the peer has gone.
inline bool sendAll(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
        const ssize_t sent = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
        if (sent <= 0)
            return false;
        bytes.remove_prefix(size_t(sent));
    }
    return true;
}

// `piece` as one chunk of a body sent with Transfer-Encoding: chunked.
inline std::string chunked(std::string_view piece) {
    char size[32];
    std::snprintf(size, sizeof size, "%zx\r\n", piece.size());
    return size + std::string(piece) + "\r\n";
}

// One HTTP server on 127.0.0.1 and a free port, serving connections one after another on its own
// thread: it reads a request (headers and a Content-Length body) and hands it to the handler,
// which writes the answer on the socket.
class LoopbackServer {
  public:
    struct Connection {
        int fd;
        std::string request;
        const std::atomic<bool>& stopping;
    };
    using Handler = std::function<void(const Connection&)>;

    explicit LoopbackServer(Handler handler) : handler_(std::move(handler)) {
        listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
        const int yes = 1;
        ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
            ::listen(listener_, 8) != 0)
            qFatal("cannot listen on loopback");
        socklen_t length = sizeof address;
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
        port_ = ntohs(address.sin_port);
        thread_ = std::thread([this] { serve(); });
    }

    ~LoopbackServer() {
        stopping_ = true;
        thread_.join();
        ::close(listener_);
    }

    int port() const { return port_; }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
    std::string lastRequest() const {
        std::lock_guard lock(mutex_);
        return lastRequest_;
    }
    // Set by a handler that found the client gone (a write failed).
    std::atomic<bool> clientLeft{false};

  private:
    void serve() {
        while (!stopping_) {
            pollfd waiting{listener_, POLLIN, 0};
            if (::poll(&waiting, 1, 20) <= 0)
                continue;
            const int fd = ::accept(listener_, nullptr, nullptr);
            if (fd < 0)
                continue;
            const std::string request = readRequest(fd);
            {
                std::lock_guard lock(mutex_);
                lastRequest_ = request;
            }
            handler_({fd, request, stopping_});
            ::close(fd);
        }
    }

    // Headers and the Content-Length body; stops early at EOF, after 2 s, or at bytes that are
    // not HTTP (a TLS ClientHello starts with 0x16).
    std::string readRequest(int fd) const {
        std::string request;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
        size_t wanted = std::string::npos;
        while (std::chrono::steady_clock::now() < deadline && !stopping_) {
            if (!request.empty() && request[0] == '\x16')
                break;
            const size_t headerEnd = request.find("\r\n\r\n");
            if (headerEnd != std::string::npos && wanted == std::string::npos) {
                wanted = headerEnd + 4;
                const size_t field = request.find("Content-Length: ");
                if (field != std::string::npos && field < headerEnd)
                    wanted += std::stoul(request.substr(field + 16));
            }
            if (request.size() >= wanted)
                break;
            pollfd readable{fd, POLLIN, 0};
            if (::poll(&readable, 1, 20) <= 0)
                continue;
            char buffer[4096];
            const ssize_t got = ::recv(fd, buffer, sizeof buffer, 0);
            if (got <= 0)
                break;
            request.append(buffer, size_t(got));
        }
        return request;
    }

    Handler handler_;
    int listener_ = -1;
    int port_ = 0;
    std::atomic<bool> stopping_{false};
    std::thread thread_;
    mutable std::mutex mutex_;
    std::string lastRequest_;
};

// A loopback port nothing listens on: bound, read and closed again (another process could take it
// in between, which the tests accept).
inline int freeLoopbackPort() {
    const int probe = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(probe, reinterpret_cast<sockaddr*>(&address), sizeof address);
    socklen_t length = sizeof address;
    ::getsockname(probe, reinterpret_cast<sockaddr*>(&address), &length);
    ::close(probe);
    return ntohs(address.sin_port);
}

// A whole answer with a Content-Length body.
inline bool sendAnswer(int fd, int status, const std::string& reason, const std::string& body,
                       const std::string& contentType = "application/json") {
    return sendAll(fd, "HTTP/1.1 " + std::to_string(status) + " " + reason + "\r\nContent-Type: " +
                           contentType + "\r\nContent-Length: " + std::to_string(body.size()) +
                           "\r\n\r\n" + body);
}

}  // namespace inferlens::test
