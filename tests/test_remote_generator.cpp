// remote/remote_generator against a loopback server that answers as llama-server does (the
// shapes of the llama.cpp server that llama-cpp-python 0.3.36 vendors, as in
// test_remote_protocol.cpp): the probe events a remote generation gives — the server's
// tokenization with byte spans, one step per arriving token, a server-reported sampling trace per
// token, the finish — and the failures: an unknown model, a cancel mid-stream, a stream cut short.

#include <QTest>

#include <chrono>
#include <cmath>
#include <map>
#include <thread>

#include "remote/remote_error.h"
#include "remote/remote_generator.h"
#include "sampling/sampling_trace.h"
#include "support/loopback_http_server.h"
#include "support/wall_clock_budget.h"
#include "trace/trace_json.h"

using namespace inferlens;
using namespace inferlens::remote;
using namespace inferlens::test;

namespace {

const char* kModels =
    R"({"object":"list","data":[{"id":"smollm2.gguf","object":"model","created":1,)"
    R"("owned_by":"llamacpp","meta":{"n_ctx_train":8192,"n_vocab":49152}}]})";
const char* kProps =
    R"({"default_generation_settings":{"n_ctx":2048},"total_slots":1,)"
    R"("model_path":"/models/smollm2.gguf","chat_template":"","build_info":"b7000"})";
// "Hello world" as <|im_start|> (a special the text does not spell), "Hello", " world".
const char* kTokenize =
    R"({"tokens":[{"id":1,"piece":"<|im_start|>"},{"id":19556,"piece":"Hello"},)"
    R"({"id":905,"piece":" world"}]})";

// One streamed token: its id, text and log-probability, and two alternatives.
struct Token {
    int id;
    const char* text;
    double logprob;
    int otherId;
    const char* otherText;
    double otherLogprob;
};
const Token kTokens[] = {{28, ",", -0.25, 30, ".", -1.75},
                         {2683, " how", -0.5, 457, " I", -1.25},
                         {359, " are", -0.125, 314, " is", -2.5}};

std::string event(const Token& t, const char* finish) {
    char json[1024];
    std::snprintf(json, sizeof json,
                  R"({"choices":[{"text":"%s","index":0,"logprobs":{"content":[{"id":%d,)"
                  R"("token":"%s","logprob":%g,"bytes":null,"top_logprobs":[)"
                  R"({"id":%d,"token":"%s","logprob":%g,"bytes":null},)"
                  R"({"id":%d,"token":"%s","logprob":%g,"bytes":null}]}]},"finish_reason":%s}],)"
                  R"("object":"text_completion"})",
                  t.text, t.id, t.text, t.logprob, t.id, t.text, t.logprob, t.otherId, t.otherText,
                  t.otherLogprob, finish);
    return "data: " + std::string(json) + "\n\n";
}

const std::string kStreamHeaders =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";

// How the completion answers: whole, stalled after the first token, or cut after it.
enum class Stream { Whole, StallAfterFirst, CutAfterFirst };

LoopbackServer::Handler llamaServer(Stream stream) {
    return [stream](const LoopbackServer::Connection& connection) {
        const std::string target = connection.request.substr(
            0, connection.request.find(' ', connection.request.find(' ') + 1));
        const std::map<std::string, std::string> answers{
            {"GET /v1/models", kModels}, {"GET /props", kProps}, {"POST /tokenize", kTokenize}};
        if (const auto answer = answers.find(target); answer != answers.end()) {
            sendAnswer(connection.fd, 200, "OK", answer->second);
            return;
        }
        if (target != "POST /v1/completions") {
            sendAnswer(connection.fd, 404, "Not Found", R"({"error":{"message":"not found"}})");
            return;
        }
        sendAll(connection.fd, kStreamHeaders);
        sendAll(connection.fd, chunked(event(kTokens[0], "null")));
        if (stream == Stream::StallAfterFirst) {
            while (!connection.stopping && sendAll(connection.fd, ""))
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            return;
        }
        if (stream == Stream::CutAfterFirst) {
            sendAll(connection.fd, chunked(""));  // the body ends: no [DONE], no finish reason
            return;
        }
        sendAll(connection.fd,
                chunked(event(kTokens[1], "null") + event(kTokens[2], "\"length\"")));
        sendAll(connection.fd,
                chunked(R"(data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":3}})"
                        "\n\ndata: [DONE]\n\n"));
        sendAll(connection.fd, chunked(""));
    };
}

HttpOptions optionsFor(const LoopbackServer& server) {
    HttpOptions options;
    options.baseUrl = server.url();
    options.connectTimeout = std::chrono::milliseconds(3000);
    options.stallTimeout = std::chrono::milliseconds(5000);
    return options;
}

// Every event, in order, as a short line; and what came with them.
struct Recorder : Probe {
    ProbeInterest interest() const override {
        ProbeInterest wanted;
        wanted.tokenization = wanted.steps = wanted.sampling = wanted.finished = true;
        return wanted;
    }
    void onTokenized(const TokenizationInfo& info) override {
        tokenization = info;
        events.push_back("tokenized");
    }
    void onStepBegin(const StepEvent& step) override {
        events.push_back("begin " + std::to_string(step.index));
        steps.push_back(step);
    }
    void onSampling(int64_t step, const SamplingTrace& trace) override {
        events.push_back("sampling " + std::to_string(step));
        traces.push_back(trace);
    }
    void onStepEnd(const StepEvent& step) override {
        events.push_back("end " + std::to_string(step.index));
        QCOMPARE(step.index, steps.back().index);
    }
    void onFinished(const FinishedEvent& finished) override {
        events.push_back("finished " + std::string(finishReasonName(finished.reason)));
    }
    std::vector<std::string> events;
    TokenizationInfo tokenization;
    std::vector<StepEvent> steps;
    std::vector<SamplingTrace> traces;
};

}  // namespace

class TestRemoteGenerator : public QObject {
    Q_OBJECT

  private slots:
    void aStreamedCompletionGivesTheProbeEventsOfEachToken() {
        LoopbackServer server(llamaServer(Stream::Whole));
        const RemoteConnection connection(optionsFor(server), "");
        QCOMPARE(connection.model(), std::string("smollm2.gguf"));
        QVERIFY(connection.flavour() == ServerFlavour::LlamaServer);
        QCOMPARE(connection.contextLength().value_or(0), int64_t(2048));
        Recorder recorder;
        ProbeSet probes;
        probes.add(&recorder);
        RemoteGenerator generator(connection, &probes);
        RemoteSettings settings;
        settings.sampling.traceTopN = 2;
        settings.maxTokens = 3;
        const RemoteGeneration result = generator.complete("Hello world", settings);

        QCOMPARE(result.text, std::string(", how are"));
        QCOMPARE(result.tokens.size(), size_t(3));
        QVERIFY(result.reason == FinishReason::MaxTokens);
        QCOMPARE(result.promptTokens, int64_t(3));
        QCOMPARE(result.interTokenSeconds.size(), size_t(2));
        QVERIFY(result.firstTokenSeconds > 0);

        const std::vector<std::string> expected{
            "tokenized",          "begin 0", "sampling 0", "end 0",      "begin 1",
            "sampling 1",         "end 1",   "begin 2",    "sampling 2", "end 2",
            "finished max_tokens"};
        QCOMPARE(recorder.events, expected);
        // The server's tokens over the prompt's bytes; the special it does not spell covers none.
        const TokenizationInfo& tokens = recorder.tokenization;
        QCOMPARE(tokens.tokens.size(), size_t(3));
        QVERIFY(tokens.tokens[0].special);
        QCOMPARE(tokens.tokens[0].end - tokens.tokens[0].begin, int64_t(0));
        QCOMPARE(tokens.text.substr(size_t(tokens.tokens[2].begin),
                                    size_t(tokens.tokens[2].end - tokens.tokens[2].begin)),
                 std::string(" world"));
        // Step 0 is the prompt's prefill ending with the first token; then a token per step.
        QVERIFY(recorder.steps[0].phase == StepPhase::Prefill);
        QCOMPARE(recorder.steps[0].tokenCount, int64_t(3));
        QCOMPARE(recorder.steps[2].firstPosition, int64_t(3 + 2 - 1));
        // Each trace: the server's top two at the Raw stage, the tail it did not report.
        for (size_t i = 0; i < 3; ++i) {
            const SamplingTrace& trace = recorder.traces[i];
            QVERIFY(trace.server.has_value());
            QCOMPARE(trace.candidates.size(), size_t(2));
            QCOMPARE(trace.chosenId, int32_t(kTokens[i].id));
            QCOMPARE(trace.chosenRank, int64_t(0));
            const double first = std::exp(kTokens[i].logprob);
            const double second = std::exp(kTokens[i].otherLogprob);
            QVERIFY(std::fabs(trace.candidates[1].probability[0] - second) < 1e-6);
            QVERIFY(std::fabs(trace.server->knownMass - (first + second)) < 1e-9);
            QCOMPARE(trace.server->texts[1], std::string(kTokens[i].otherText));
            QVERIFY(std::fabs(trace.chosenProbability - first) < 1e-6);
            // The trace file says the same, so that a replay knows the tail is unknown.
            const nlohmann::json json = toJson(trace);
            QVERIFY(std::fabs(json["server"]["known_mass"].get<double>() - (first + second)) <
                    1e-9);
            QCOMPARE(json["server"]["chosen_text"].get<std::string>(),
                     std::string(kTokens[i].text));
        }
        // The request asked for what the trace shows: two alternatives per token.
        QVERIFY(server.lastRequest().find("\"n_probs\":2") != std::string::npos);
    }

    void anUnknownModelIsRefusedNamingTheServedOnes() {
        LoopbackServer server(llamaServer(Stream::Whole));
        try {
            RemoteConnection connection(optionsFor(server), "llama-70b");
            QFAIL("an unknown model was accepted");
        } catch (const RemoteError& error) {
            const std::string message = error.what();
            QVERIFY2(message.find("llama-70b") != std::string::npos, error.what());
            QVERIFY2(message.find("smollm2.gguf") != std::string::npos, error.what());
        }
    }

    void aCancelClosesTheStreamPromptly() {
        LoopbackServer server(llamaServer(Stream::StallAfterFirst));
        const RemoteConnection connection(optionsFor(server), "");
        GenerationControl control;
        RemoteGenerator generator(connection, nullptr, &control);
        std::thread canceller([&control] {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            control.cancel();
        });
        const auto start = std::chrono::steady_clock::now();
        const RemoteGeneration result = generator.complete("Hello world", RemoteSettings{});
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        canceller.join();
        QVERIFY(result.reason == FinishReason::Cancelled);
        QCOMPARE(result.tokens.size(), size_t(1));  // what came before the cancel is kept
        QVERIFY2(seconds < inferlens::test::wallClockBudgetMs(2000) / 1e3,
                 qPrintable(QString::number(seconds)));
    }

    void aStreamCutShortIsAnErrorNotAnAnswer() {
        LoopbackServer server(llamaServer(Stream::CutAfterFirst));
        const RemoteConnection connection(optionsFor(server), "");
        RemoteGenerator generator(connection);
        try {
            generator.complete("Hello world", RemoteSettings{});
            QFAIL("a stream without [DONE] or a finish reason passed as complete");
        } catch (const RemoteError& error) {
            QVERIFY(error.kind() == RemoteErrorKind::ConnectionLost);
            QVERIFY2(std::string(error.what()).find("1 tokens arrived") != std::string::npos,
                     error.what());
        }
    }

    void settingsThatTheApiCannotCarryAreNamed() {
        SamplingParams params;
        params.topK = 40;
        params.bannedTexts = {"x"};
        params.grammar = "root ::= \"a\"";
        const auto plain = samplingNotCarried(ServerFlavour::GenericOpenAi, params);
        const auto has = [](const std::vector<std::string>& names, const char* name) {
            return std::find(names.begin(), names.end(), name) != names.end();
        };
        QVERIFY(has(plain, "top_k") && has(plain, "banned texts") && has(plain, "grammar"));
        const auto llama = samplingNotCarried(ServerFlavour::LlamaServer, params);
        QVERIFY(!has(llama, "top_k") && has(llama, "banned texts") && !has(llama, "grammar"));
        QVERIFY(has(samplingNotCarried(ServerFlavour::Vllm, params), "grammar"));
    }
};

QTEST_GUILESS_MAIN(TestRemoteGenerator)
#include "test_remote_generator.moc"
