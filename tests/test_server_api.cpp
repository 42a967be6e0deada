// remote/server_api against loopback servers that answer as llama-server, vLLM, SGLang and a
// plain OpenAI-compatible proxy do (shapes from each project's README or source, as labelled in
// test_remote_protocol.cpp): which server it is, its context length, and its tokenizer.

#include <QTest>

#include <map>

#include "remote/server_api.h"
#include "support/loopback_http_server.h"

using namespace inferlens::remote;
using namespace inferlens::test;

namespace {

// Answers GET and POST by path from a table; anything else is FastAPI's 404.
LoopbackServer::Handler routes(std::map<std::string, std::string> answers) {
    return [answers](const LoopbackServer::Connection& connection) {
        const size_t space = connection.request.find(' ');
        const size_t end = connection.request.find(' ', space + 1);
        const std::string target = connection.request.substr(0, end);
        const auto answer = answers.find(target);
        if (answer == answers.end())
            sendAnswer(connection.fd, 404, "Not Found", R"({"detail":"Not Found"})");
        else
            sendAnswer(connection.fd, 200, "OK", answer->second);
    };
}

HttpClient clientFor(const LoopbackServer& server) {
    HttpOptions options;
    options.baseUrl = server.url();
    options.connectTimeout = std::chrono::milliseconds(3000);
    options.stallTimeout = std::chrono::milliseconds(3000);
    return HttpClient(options);
}

const char* kLlamaModels =
    R"({"object":"list","data":[{"id":"smollm2.gguf","object":"model","created":1,
        "owned_by":"llamacpp","meta":{"n_vocab":49152,"n_ctx_train":8192}}]})";
const char* kLlamaProps =
    R"({"default_generation_settings":{"n_ctx":4096,"params":{}},"total_slots":1,
        "model_path":"/models/smollm2.gguf","chat_template":"{{ x }}"})";

}  // namespace

class TestServerApi : public QObject {
    Q_OBJECT
  private slots:
    void llamaServerIsRecognisedAndItsContextRead() {
        LoopbackServer server(
            routes({{"GET /v1/models", kLlamaModels}, {"GET /props", kLlamaProps}}));
        const ServerInfo info = probeServer(clientFor(server));
        QCOMPARE(info.flavour.flavour, ServerFlavour::LlamaServer);
        QCOMPARE(info.models.size(), size_t(1));
        QCOMPARE(info.models[0].id, std::string("smollm2.gguf"));
        // The slot's context, not the trained one.
        QCOMPARE(info.contextLength.value_or(0), int64_t(4096));
        QCOMPARE(info.llamaServerProps->modelPath, std::string("/models/smollm2.gguf"));
    }

    void llamaServerBehindAProxyIsFoundByProps() {
        LoopbackServer server(
            routes({{"GET /v1/models", R"({"data":[{"id":"m","owned_by":"me"}]})"},
                    {"GET /props", kLlamaProps}}));
        const ServerInfo info = probeServer(clientFor(server));
        QCOMPARE(info.flavour.flavour, ServerFlavour::LlamaServer);
        QVERIFY(info.flavour.reason.find("/props") != std::string::npos);
    }

    void vllmContextComesFromTheModelCard() {
        LoopbackServer server(routes({{"GET /v1/models",
                                       R"({"object":"list","data":[{"id":"Qwen/Qwen2.5-72B",
                                           "owned_by":"vllm","max_model_len":32768}]})"}}));
        const ServerInfo info = probeServer(clientFor(server));
        QCOMPARE(info.flavour.flavour, ServerFlavour::Vllm);
        QCOMPARE(info.contextLength.value_or(0), int64_t(32768));
        QVERIFY(!info.llamaServerProps);
    }

    void sglangBehindAProxyIsFoundByModelInfo() {
        // SGLang docs (basic_usage/native_api): GET /get_model_info.
        LoopbackServer server(routes(
            {{"GET /v1/models", R"({"data":[{"id":"qwen","owned_by":"gateway"}]})"},
             {"GET /get_model_info",
              R"({"model_path":"qwen/qwen2.5-0.5b-instruct","tokenizer_path":"qwen/qwen2.5-0.5b-instruct",
                  "is_generation":true})"}}));
        QCOMPARE(probeServer(clientFor(server)).flavour.flavour, ServerFlavour::Sglang);
    }

    void plainOpenAiServer() {
        LoopbackServer server(routes({{"GET /v1/models", R"({"data":[{"id":"gpt-4o-mini",
                                                              "owned_by":"system"}]})"}}));
        const ServerInfo info = probeServer(clientFor(server));
        QCOMPARE(info.flavour.flavour, ServerFlavour::GenericOpenAi);
        QVERIFY(!info.contextLength);
    }

    void refusedKeyIsNotMistakenForAMissingEndpoint() {
        LoopbackServer server([](const LoopbackServer::Connection& connection) {
            sendAnswer(connection.fd, 401, "Unauthorized", R"({"error":"Unauthorized"})");
        });
        bool refused = false;
        try {
            probeServer(clientFor(server));
        } catch (const RemoteError& error) {
            refused = error.kind() == RemoteErrorKind::Unauthorized;
        }
        QVERIFY(refused);
    }

    void tokenizeAndDetokenizeOnLlamaServer() {
        LoopbackServer server(
            routes({{"POST /tokenize",
                     R"({"tokens":[{"id":19556,"piece":"Hello"},{"id":905,"piece":" world"}]})"},
                    {"POST /detokenize", R"({"content":"Hello world"})"}}));
        const HttpClient client = clientFor(server);
        const Tokenization tokens =
            tokenizeOnServer(client, ServerFlavour::LlamaServer, "", "Hello world", false);
        QCOMPARE(tokens.ids, (std::vector<int32_t>{19556, 905}));
        QCOMPARE(tokens.pieces, (std::vector<std::string>{"Hello", " world"}));
        QVERIFY(server.lastRequest().find(R"("with_pieces":true)") != std::string::npos);
        QCOMPARE(detokenizeOnServer(client, ServerFlavour::LlamaServer, "", {19556, 905}),
                 std::string("Hello world"));
        QVERIFY(server.lastRequest().ends_with(R"({"tokens":[19556,905]})"));
    }

    void plainOpenAiServerHasNoTokenizer() {
        LoopbackServer server(routes({}));
        bool threw = false;
        try {
            tokenizeOnServer(clientFor(server), ServerFlavour::GenericOpenAi, "m", "x", true);
        } catch (const RemoteError& error) {
            threw = std::string(error.what()).find("no tokenizer") != std::string::npos;
        }
        QVERIFY(threw);
    }
};

QTEST_APPLESS_MAIN(TestServerApi)
#include "test_server_api.moc"
