// remote/http_client against servers written here on loopback sockets: a streamed answer cut into
// pieces, a closed port, 401 and 500 with the error bodies llama-server and vLLM send, a server
// that sends headers and then nothing (the stall timeout), cancellation mid-stream, and TLS
// failures (a plain-HTTP server spoken to over https; with the openssl tool, a self-signed
// certificate refused, then accepted when named as the authority).

#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <thread>

#include "remote/http_client.h"
#include "remote/sse_parser.h"
#include "support/loopback_http_server.h"
#include "support/wall_clock_budget.h"

using namespace inferlens::remote;
using namespace inferlens::test;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

const char* kStreamHeaders =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

HttpOptions optionsFor(const std::string& url) {
    HttpOptions options;
    options.baseUrl = url;
    options.connectTimeout = 3000ms;
    options.stallTimeout = 5000ms;
    return options;
}

// The RemoteError a call throws, or a report that it did not.
template <typename Call>
RemoteError failureOf(Call call) {
    try {
        call();
    } catch (const RemoteError& error) {
        return error;
    }
    return RemoteError(RemoteErrorKind::Other, "(no error was thrown)");
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

class TestHttpClient : public QObject {
    Q_OBJECT
  private slots:
    void urlsAreJoinedWithOneSlash() {
        QCOMPARE(joinUrl("http://h:1/", "/v1/models"), std::string("http://h:1/v1/models"));
        QCOMPARE(joinUrl("http://h:1", "v1/models"), std::string("http://h:1/v1/models"));
        QCOMPARE(joinUrl("http://h:1/prefix//", "/props"), std::string("http://h:1/prefix/props"));
        QCOMPARE(serverRootUrl(" http://h:8000/v1/ "), std::string("http://h:8000"));
        QCOMPARE(serverRootUrl("https://h/api/v1"), std::string("https://h/api"));
        QCOMPARE(serverRootUrl("http://h:8080"), std::string("http://h:8080"));
    }

    void streamedAnswerArrivesInPieces() {
        // Three events and the sentinel, cut inside lines and inside a CRLF, with pauses.
        const std::string stream =
            "data: {\"n\":1}\r\n\r\ndata: {\"n\":2}\n\n: keep-alive\n\ndata: {\"n\":3}\n\ndata: "
            "[DONE]\n\n";
        const std::vector<size_t> cuts = {3, 15, 16, 30, 44, 60};
        LoopbackServer server([&](const LoopbackServer::Connection& connection) {
            sendAll(connection.fd, kStreamHeaders);
            size_t start = 0;
            for (size_t cut : cuts) {
                sendAll(connection.fd,
                        chunked(std::string_view(stream).substr(start, cut - start)));
                start = cut;
                std::this_thread::sleep_for(30ms);
            }
            sendAll(connection.fd, chunked(std::string_view(stream).substr(start)));
            sendAll(connection.fd, "0\r\n\r\n");
        });
        HttpOptions options = optionsFor(server.url() + "/");
        options.apiKey = "secret-key";
        const HttpClient client(options);
        SseParser parser;
        std::vector<std::string> data;
        int pieces = 0;
        const std::string body = R"({"stream":true})";
        const HttpResponse response =
            client.postStream("/v1/completions", body, [&](std::string_view bytes) {
                ++pieces;
                for (const SseEvent& event : parser.feed(bytes))
                    data.push_back(event.data);
                return true;
            });
        QCOMPARE(response.status, 200L);
        QVERIFY(!response.cancelled);
        QCOMPARE(data, (std::vector<std::string>{"{\"n\":1}", "{\"n\":2}", "{\"n\":3}", "[DONE]"}));
        QVERIFY2(pieces >= 3, "the answer should have come in several pieces");
        const std::string request = server.lastRequest();
        QVERIFY(request.starts_with("POST /v1/completions HTTP/1.1\r\n"));
        QVERIFY(contains(request, "Authorization: Bearer secret-key\r\n"));
        QVERIFY(contains(request, "Content-Type: application/json\r\n"));
        QVERIFY(contains(request, "Accept: text/event-stream\r\n"));
        QVERIFY(request.ends_with("\r\n\r\n" + body));
    }

    void readerCanCloseTheStreamEarly() {
        LoopbackServer server([&](const LoopbackServer::Connection& connection) {
            sendAll(connection.fd, kStreamHeaders);
            while (!connection.stopping) {
                if (!sendAll(connection.fd, chunked("data: {}\n\n")))
                    return;
                std::this_thread::sleep_for(20ms);
            }
        });
        const HttpClient client(optionsFor(server.url()));
        int calls = 0;
        const HttpResponse response = client.postStream(
            "/v1/completions", "{}", [&](std::string_view) { return ++calls < 3; });
        QCOMPARE(calls, 3);
        QVERIFY(!response.cancelled);
    }

    void plainGetAndPost() {
        LoopbackServer server([&](const LoopbackServer::Connection& connection) {
            sendAnswer(connection.fd, 200, "OK", R"({"object":"list","data":[]})");
        });
        const HttpClient client(optionsFor(server.url()));
        const HttpResponse models = client.get("/v1/models");
        QCOMPARE(models.status, 200L);
        QCOMPARE(models.body, std::string(R"({"object":"list","data":[]})"));
        QVERIFY(server.lastRequest().starts_with("GET /v1/models HTTP/1.1\r\n"));
        QVERIFY(!contains(server.lastRequest(), "Authorization"));
        const HttpResponse tokenized = client.postJson("/tokenize", R"({"content":"x"})");
        QCOMPARE(tokenized.status, 200L);
        QVERIFY(server.lastRequest().ends_with(R"({"content":"x"})"));
    }

    void closedPortIsConnectionRefused() {
        const int port = freeLoopbackPort();

        const HttpClient client(optionsFor("http://127.0.0.1:" + std::to_string(port)));
        const RemoteError error = failureOf([&] { client.get("/v1/models"); });
        QCOMPARE(error.kind(), RemoteErrorKind::ConnectionRefused);
        QVERIFY2(contains(error.what(), "127.0.0.1:" + std::to_string(port)), error.what());
        QVERIFY2(contains(error.what(), "connection refused"), error.what());
    }

    void notAnHttpUrl() {
        const HttpClient client(optionsFor("ftp://127.0.0.1:21"));
        QCOMPARE(failureOf([&] { client.get("/v1/models"); }).kind(), RemoteErrorKind::InvalidUrl);
        const HttpClient nonsense(optionsFor("not a url at all"));
        QCOMPARE(failureOf([&] { nonsense.get("/v1/models"); }).kind(),
                 RemoteErrorKind::InvalidUrl);
    }

    void unauthorizedCarriesTheServerMessage() {
        // llama-server b4747 README, "API errors": its answer to a wrong key.
        LoopbackServer server([&](const LoopbackServer::Connection& connection) {
            sendAnswer(
                connection.fd, 401, "Unauthorized",
                R"({"error":{"code":401,"message":"Invalid API Key","type":"authentication_error"}})");
        });
        HttpOptions options = optionsFor(server.url());
        options.apiKey = "wrong-key-123";
        const HttpClient client(options);
        bool chunkSeen = false;
        const RemoteError error = failureOf([&] {
            client.postStream("/v1/chat/completions", "{}", [&](std::string_view) {
                chunkSeen = true;
                return true;
            });
        });
        QCOMPARE(error.kind(), RemoteErrorKind::Unauthorized);
        QCOMPARE(error.httpStatus(), 401L);
        QVERIFY2(contains(error.what(), "refused the API key"), error.what());
        QVERIFY2(contains(error.what(), "Invalid API Key"), error.what());
        QVERIFY2(!contains(error.what(), "wrong-key-123"), "the key must never be in a message");
        QVERIFY(!chunkSeen);
    }

    void serverErrorCarriesTheServerMessage() {
        // vLLM ErrorResponse (vllm/entrypoints/openai/engine/protocol.py), sent chunked.
        LoopbackServer server([&](const LoopbackServer::Connection& connection) {
            sendAll(connection.fd,
                    "HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\n"
                    "Transfer-Encoding: chunked\r\n\r\n");
            sendAll(connection.fd, chunked(R"({"error":{"message":"EngineCore encountered )"));
            sendAll(
                connection.fd,
                chunked(R"(an issue.","type":"InternalServerError","param":null,"code":500}})"));
            sendAll(connection.fd, "0\r\n\r\n");
        });
        const HttpClient client(optionsFor(server.url()));
        const RemoteError error = failureOf([&] {
            client.postStream("/v1/completions", "{}", [](std::string_view) { return true; });
        });
        QCOMPARE(error.kind(), RemoteErrorKind::Http);
        QCOMPARE(error.httpStatus(), 500L);
        QVERIFY2(contains(error.what(), "HTTP 500"), error.what());
        QVERIFY2(contains(error.what(), "POST /v1/completions"), error.what());
        QVERIFY2(contains(error.what(), "EngineCore encountered an issue."), error.what());
    }

    void serverGoneMidAnswerIsConnectionLost() {
        // A chunk announced as 0x40 bytes, 10 sent, then the server is gone.
        LoopbackServer server([&](const LoopbackServer::Connection& connection) {
            sendAll(connection.fd, kStreamHeaders);
            sendAll(connection.fd, chunked("data: {\"n\":1}\n\n"));
            sendAll(connection.fd, "40\r\ndata: {\"n\"");
        });
        const HttpClient client(optionsFor(server.url()));
        int chunks = 0;
        const RemoteError error = failureOf([&] {
            client.postStream("/v1/chat/completions", "{}", [&](std::string_view) {
                ++chunks;
                return true;
            });
        });
        QCOMPARE(error.kind(), RemoteErrorKind::ConnectionLost);
        QVERIFY2(contains(error.what(), "POST /v1/chat/completions"), error.what());
        QVERIFY(chunks >= 1);
    }

    void stalledStreamTimesOut() {
        LoopbackServer server([&](const LoopbackServer::Connection& connection) {
            sendAll(connection.fd, kStreamHeaders);
            sendAll(connection.fd, chunked("data: {\"first\":1}\n\n"));
            // And then nothing, for longer than the test allows the client.
            const auto until = Clock::now() + 5s;
            while (!connection.stopping && Clock::now() < until)
                std::this_thread::sleep_for(10ms);
        });
        HttpOptions options = optionsFor(server.url());
        options.stallTimeout = 1000ms;
        const HttpClient client(options);
        int chunks = 0;
        const auto start = Clock::now();
        const RemoteError error = failureOf([&] {
            client.postStream("/v1/completions", "{}", [&](std::string_view) {
                ++chunks;
                return true;
            });
        });
        const double elapsed = secondsSince(start);
        QCOMPARE(error.kind(), RemoteErrorKind::Stalled);
        QVERIFY2(contains(error.what(), "1 s"), error.what());
        QCOMPARE(chunks, 1);
        QVERIFY2(elapsed >= 0.95 && elapsed < inferlens::test::wallClockBudgetMs(3000) / 1e3,
                 qPrintable(QString::number(elapsed)));
    }

    void stallClockWaitsForTheFirstByteToo() {
        // Headers never come: the stall timeout applies from the sent request.
        LoopbackServer server([&](const LoopbackServer::Connection& connection) {
            const auto until = Clock::now() + 5s;
            while (!connection.stopping && Clock::now() < until)
                std::this_thread::sleep_for(10ms);
        });
        HttpOptions options = optionsFor(server.url());
        options.stallTimeout = 500ms;
        const HttpClient client(options);
        const auto start = Clock::now();
        QCOMPARE(failureOf([&] { client.get("/props"); }).kind(), RemoteErrorKind::Stalled);
        QVERIFY(secondsSince(start) < 2.5);
    }

    void cancellationMidStreamReturnsPromptly() {
        LoopbackServer* serverPointer = nullptr;
        LoopbackServer server([&](const LoopbackServer::Connection& connection) {
            sendAll(connection.fd, kStreamHeaders);
            const auto until = Clock::now() + 10s;
            while (!connection.stopping && Clock::now() < until) {
                if (!sendAll(connection.fd, chunked("data: {\"token\":\"x\"}\n\n"))) {
                    serverPointer->clientLeft = true;
                    return;
                }
                std::this_thread::sleep_for(20ms);
            }
        });
        serverPointer = &server;
        const HttpClient client(optionsFor(server.url()));
        std::atomic<bool> cancel{false};
        std::atomic<int> chunks{0};
        Clock::time_point raisedAt;
        std::thread canceller([&] {
            while (chunks < 5)
                std::this_thread::sleep_for(5ms);
            raisedAt = Clock::now();
            cancel = true;
        });
        const HttpResponse response = client.postStream(
            "/v1/completions", "{}",
            [&](std::string_view) {
                ++chunks;
                return true;
            },
            &cancel);
        const auto returnedAt = Clock::now();
        canceller.join();
        const double latency = std::chrono::duration<double>(returnedAt - raisedAt).count();
        QVERIFY(response.cancelled);
        QVERIFY2(latency < 0.3, qPrintable(QString("returned %1 s after the flag").arg(latency)));
        // The connection is closed: the server's next writes fail soon.
        const auto waitStart = Clock::now();
        while (!server.clientLeft && secondsSince(waitStart) < 3)
            std::this_thread::sleep_for(10ms);
        QVERIFY(server.clientLeft);

        // The same client works again afterwards.
        std::atomic<bool> unused{false};
        int more = 0;
        const HttpResponse again = client.postStream(
            "/v1/completions", "{}", [&](std::string_view) { return ++more < 2; }, &unused);
        QVERIFY(!again.cancelled);
        QCOMPARE(more, 2);
    }

    void cancelledBeforeAnswerIsStillCancelled() {
        LoopbackServer server([&](const LoopbackServer::Connection& connection) {
            const auto until = Clock::now() + 5s;
            while (!connection.stopping && Clock::now() < until)
                std::this_thread::sleep_for(10ms);
        });
        const HttpClient client(optionsFor(server.url()));
        std::atomic<bool> cancel{true};
        const auto start = Clock::now();
        const HttpResponse response = client.get("/v1/models", &cancel);
        QVERIFY(response.cancelled);
        QVERIFY(secondsSince(start) < 0.5);
    }

    void httpsToAPlainServerIsATlsError() {
        LoopbackServer server([&](const LoopbackServer::Connection& connection) {
            sendAll(connection.fd, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
        });
        const HttpClient client(optionsFor("https://127.0.0.1:" + std::to_string(server.port())));
        const RemoteError error = failureOf([&] { client.get("/v1/models"); });
        QCOMPARE(error.kind(), RemoteErrorKind::Tls);
        QVERIFY2(contains(error.what(), "TLS"), error.what());
    }

    void selfSignedCertificateIsRefusedUnlessNamed() {
        const QString openssl = QStandardPaths::findExecutable("openssl");
        if (openssl.isEmpty())
            QSKIP("the openssl tool is not installed");
        QTemporaryDir dir;
        const QString certificate = dir.filePath("cert.pem");
        const QString key = dir.filePath("key.pem");
        QProcess make;
        make.start(openssl, {"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                             "/CN=localhost", "-addext", "subjectAltName=DNS:localhost", "-keyout",
                             key, "-out", certificate});
        QVERIFY(make.waitForFinished(20000) && make.exitCode() == 0);

        const int port = freeLoopbackPort();

        QProcess server;
        server.start(openssl,
                     {"s_server", "-quiet", "-www", "-accept", "127.0.0.1:" + QString::number(port),
                      "-cert", certificate, "-key", key});
        QVERIFY(server.waitForStarted(5000));
        const auto cleanUp = qScopeGuard([&] {
            server.kill();
            server.waitForFinished(2000);
        });
        const std::string url = "https://localhost:" + std::to_string(port);

        // Wait until it listens (connection refused until then).
        HttpOptions options = optionsFor(url);
        const auto start = Clock::now();
        RemoteError error = failureOf([&] { HttpClient(options).get("/"); });
        while (error.kind() == RemoteErrorKind::ConnectionRefused && secondsSince(start) < 5) {
            std::this_thread::sleep_for(50ms);
            error = failureOf([&] { HttpClient(options).get("/"); });
        }
        QCOMPARE(error.kind(), RemoteErrorKind::Tls);
        QVERIFY2(contains(error.what(), "certificate"), error.what());
        QVERIFY2(contains(error.what(), "self-signed") || contains(error.what(), "self signed"),
                 error.what());

        options.caBundlePath = certificate.toStdString();
        const HttpResponse trusted = HttpClient(options).get("/");
        QCOMPARE(trusted.status, 200L);

        options.caBundlePath = dir.filePath("missing.pem").toStdString();
        const RemoteError missing = failureOf([&] { HttpClient(options).get("/"); });
        QCOMPARE(missing.kind(), RemoteErrorKind::Tls);
        QVERIFY2(contains(missing.what(), "missing.pem"), missing.what());
    }
};

QTEST_APPLESS_MAIN(TestHttpClient)
#include "test_http_client.moc"
