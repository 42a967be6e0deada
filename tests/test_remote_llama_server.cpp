// The remote path against a real server: llama.cpp's llama-server (tools/build_llama_cpp.sh, in
// the ignored .cache/) serving the published SmolLM2-135M-Instruct Q4_1 file (fetched from PyPI by
// tools/fetch_pypi_files.sh) on 127.0.0.1. Without either, every test skips and says why.
//
// Which probabilities: llama-server's n_probs reports, by default, the softmax of the model's raw
// logits, before its sampling chain (post_sampling_probs asks for the other); InferLens's engine
// is compared at the same stage (SamplingStage::Raw), as the log-softmax of its own logits for the
// same context. The two engines quantize the activations differently before the Q4_1 products
// (test_real_models.cpp measures how far that moves the logits), so they agree to a tolerance,
// not exactly: see kLogprobTolerance.

#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "generator.h"
#include "models/model.h"
#include "remote/remote_context_fit.h"
#include "remote/remote_error.h"
#include "remote/remote_generator.h"
#include "sampling/sampling_trace.h"
#include "support/fault_proxy.h"
#include "support/llama_server_process.h"
#include "support/pypi_files.h"
#include "support/test_models.h"
#include "tokenizer/tokenizer.h"

using namespace inferlens;
using namespace inferlens::remote;
using namespace inferlens::test;

namespace {

// How far the server's top-N may be from the local engine's, in probability (what the chart
// draws) over every listed alternative, and in log-probability for the token each step chose.
// Measured on this model and prompt (16 greedy steps, AMD Zen 3, llama.cpp of the PyPI sdist
// 0.3.36): at most 0.033 and 0.076; the margins leave room for other kernel sets on either side.
constexpr double kProbabilityTolerance = 0.08;
constexpr double kChosenLogprobTolerance = 0.3;
constexpr int kTopN = 5;

HttpOptions optionsFor(const std::string& url) {
    HttpOptions options;
    options.baseUrl = url;
    options.connectTimeout = std::chrono::milliseconds(3000);
    options.stallTimeout = std::chrono::milliseconds(30000);
    return options;
}

RemoteSettings greedy(int64_t maxTokens, bool stream = true) {
    RemoteSettings settings;
    settings.sampling.temperature = 0;
    settings.sampling.traceTopN = kTopN;
    settings.maxTokens = maxTokens;
    settings.stream = stream;
    return settings;
}

std::vector<int32_t> idsOf(const RemoteGeneration& generation) {
    std::vector<int32_t> ids;
    for (const GeneratedToken& token : generation.tokens)
        ids.push_back(token.chosen.id.value_or(-1));
    return ids;
}

const char* kPrompt = "The three primary colours are";

}  // namespace

class TestRemoteLlamaServer : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase();
    void streamedAndWholeAnswersAgree();
    void topLogprobsMatchTheLocalEngine();
    void aStopClosesTheRequestAndTheNextOneWorks();
    void unreachableServersAndUnknownModelsAreClear();
    void aWrongKeyIsRefused();
    void killingTheServerMidAnswerKeepsWhatCame();
    void aLongConversationIsFittedToTheServerContext();
    void theCliRunsOnTheServer();
    void faultsBetweenUsAndTheServerAreClear_data();
    void faultsBetweenUsAndTheServerAreClear();
    void aChatGoesOnAfterAFault();

  private:
    // A second server for tests that need other settings or kill it.
    std::unique_ptr<LlamaServerProcess> startServer(QStringList extra = {});

    QString binary_;
    QString modelPath_;
    std::unique_ptr<LlamaServerProcess> server_;
};

std::unique_ptr<LlamaServerProcess> TestRemoteLlamaServer::startServer(QStringList extra) {
    auto server = std::make_unique<LlamaServerProcess>(binary_, modelPath_, std::move(extra));
    if (!server->ready())
        qFatal("llama-server did not start: %s", qPrintable(server->output()));
    return server;
}

void TestRemoteLlamaServer::initTestCase() {
    QString reason;
    const RealServerFiles files = findRealServerFiles(reason);
    if (files.model.isEmpty()) {
        if (reason.startsWith("FAILED"))
            QFAIL(qPrintable(reason));
        QSKIP(qPrintable(reason));
    }
    binary_ = files.binary;
    modelPath_ = files.model;
    server_ = startServer();
}

void TestRemoteLlamaServer::streamedAndWholeAnswersAgree() {
    const RemoteConnection connection(optionsFor(server_->url()), "");
    QCOMPARE(connection.flavour(), ServerFlavour::LlamaServer);
    QCOMPARE(connection.contextLength().value_or(0), int64_t(2048));
    RemoteGenerator generator(connection);
    const RemoteGeneration streamed = generator.complete(kPrompt, greedy(24, true));
    const RemoteGeneration whole = generator.complete(kPrompt, greedy(24, false));
    QVERIFY(!streamed.text.empty());
    QCOMPARE(QString::fromStdString(streamed.text), QString::fromStdString(whole.text));
    QCOMPARE(idsOf(streamed), idsOf(whole));
    QCOMPARE(streamed.tokens.size(), size_t(24));
    QVERIFY(streamed.reason == FinishReason::MaxTokens);
    for (size_t i = 0; i < streamed.tokens.size(); ++i) {
        QCOMPARE(streamed.tokens[i].alternatives.size(), whole.tokens[i].alternatives.size());
        QCOMPARE(*streamed.tokens[i].chosen.logprob, *whole.tokens[i].chosen.logprob);
    }
    QCOMPARE(streamed.interTokenSeconds.size(), size_t(23));
}

// Each step's top-N log-probabilities against the local engine's log-softmax for the same
// context: the prompt as the server tokenized it, and the tokens it chose before.
void TestRemoteLlamaServer::topLogprobsMatchTheLocalEngine() {
    const RemoteConnection connection(optionsFor(server_->url()), "");
    const std::vector<int32_t> prompt = connection.tokenize(kPrompt, true)->ids();
    const Model model = Model::open(modelPath_.toStdString());
    const Tokenizer tokenizer(model.files());
    QCOMPARE(tokenizer.encode(kPrompt), prompt);  // the same tokenizer, on both sides

    RemoteGenerator generator(connection);
    const RemoteGeneration answer = generator.complete(kPrompt, greedy(16));
    QCOMPARE(answer.tokens.size(), size_t(16));
    std::vector<int32_t> context = prompt;
    const std::vector<int32_t> chosen = idsOf(answer);
    context.insert(context.end(), chosen.begin(), chosen.end() - 1);
    const auto vocab = size_t(model.config().vocabSize);
    std::vector<float> logits(context.size() * vocab);
    GeneratorOptions options;
    options.threads = 2;
    Generator local(model, options);
    local.prefill(context, logits);

    double largestProbability = 0, largestChosen = 0;
    int compared = 0, sameChoice = 0;
    for (size_t step = 0; step < answer.tokens.size(); ++step) {
        const std::span<const float> row =
            std::span<const float>(logits).subspan((prompt.size() - 1 + step) * vocab, vocab);
        const double lse = logSumExp(row);
        const GeneratedToken& token = answer.tokens[step];
        QCOMPARE(int(token.alternatives.size()), kTopN);
        for (const TokenCandidate& alternative : token.alternatives) {
            QVERIFY(alternative.id && alternative.logprob);
            const double ours = row[size_t(*alternative.id)] - lse;
            largestProbability = std::max(
                largestProbability, std::abs(std::exp(ours) - std::exp(*alternative.logprob)));
            ++compared;
        }
        const double ourChosen = row[size_t(chosen[step])] - lse;
        largestChosen = std::max(largestChosen, std::abs(ourChosen - *token.chosen.logprob));
        sameChoice += argmax(row) == chosen[step] ? 1 : 0;
    }
    qInfo(
        "remote vs local (SmolLM2 Q4_1, raw stage, %d top-%d entries): largest probability "
        "difference %.4f (tolerance %.2f), largest difference of the chosen token's "
        "log-probability %.3f nats (tolerance %.2f); greedy choice equal at %d of %zu steps",
        compared, kTopN, largestProbability, kProbabilityTolerance, largestChosen,
        kChosenLogprobTolerance, sameChoice, answer.tokens.size());
    QCOMPARE(compared, kTopN * int(answer.tokens.size()));
    QVERIFY2(largestProbability < kProbabilityTolerance,
             qPrintable(QString::number(largestProbability)));
    QVERIFY2(largestChosen < kChosenLogprobTolerance, qPrintable(QString::number(largestChosen)));
}

void TestRemoteLlamaServer::aStopClosesTheRequestAndTheNextOneWorks() {
    const RemoteConnection connection(optionsFor(server_->url()), "");
    GenerationControl control;
    RemoteGenerator generator(connection, nullptr, &control);
    int pieces = 0;
    generator.onText([&](std::string_view) {
        if (++pieces == 3)
            control.cancel();
    });
    QElapsedTimer clock;
    clock.start();
    const RemoteGeneration stopped = generator.complete(kPrompt, greedy(300));
    QVERIFY(stopped.reason == FinishReason::Cancelled);
    QVERIFY(stopped.tokens.size() >= 3 && stopped.tokens.size() < 300);
    QVERIFY2(clock.elapsed() < 20000, qPrintable(QString::number(clock.elapsed())));
    RemoteGenerator next(connection);
    const RemoteGeneration after = next.complete(kPrompt, greedy(8));
    QCOMPARE(after.tokens.size(), size_t(8));
    QVERIFY(after.reason == FinishReason::MaxTokens);
}

void TestRemoteLlamaServer::unreachableServersAndUnknownModelsAreClear() {
    const auto failure = [](const std::string& url, const std::string& model) {
        try {
            const RemoteConnection connection(optionsFor(url), model);
        } catch (const RemoteError& error) {
            return std::make_pair(error.kind(), std::string(error.what()));
        }
        return std::make_pair(RemoteErrorKind::Other, std::string("no error"));
    };
    const auto [badUrlKind, badUrl] = failure("htp:/nowhere", "");
    QVERIFY2(badUrlKind == RemoteErrorKind::InvalidUrl, badUrl.c_str());
    const auto [refusedKind, refused] =
        failure("http://127.0.0.1:" + std::to_string(freeLoopbackPort()), "");
    QVERIFY2(refusedKind == RemoteErrorKind::ConnectionRefused, refused.c_str());
    const auto [modelKind, model] = failure(server_->url(), "no-such-model");
    QVERIFY2(model.find("no-such-model") != std::string::npos &&
                 model.find("serves") != std::string::npos,
             model.c_str());
    Q_UNUSED(modelKind);
}

void TestRemoteLlamaServer::aWrongKeyIsRefused() {
    const auto keyed = startServer({"--api-key", "right-key"});
    HttpOptions options = optionsFor(keyed->url());
    options.apiKey = "wrong-key";
    try {
        const RemoteConnection connection(options, "");
        QFAIL("a wrong key was accepted");
    } catch (const RemoteError& error) {
        QVERIFY2(error.kind() == RemoteErrorKind::Unauthorized, error.what());
        QVERIFY2(std::string(error.what()).find("wrong-key") == std::string::npos, error.what());
    }
    options.apiKey = "right-key";
    const RemoteConnection connection(options, "");
    RemoteGenerator generator(connection);
    QCOMPARE(generator.complete(kPrompt, greedy(4)).tokens.size(), size_t(4));
}

void TestRemoteLlamaServer::killingTheServerMidAnswerKeepsWhatCame() {
    auto doomed = startServer();
    const RemoteConnection connection(optionsFor(doomed->url()), "");
    RemoteGenerator generator(connection);
    int pieces = 0;
    generator.onText([&](std::string_view) {
        if (++pieces == 5)
            doomed->kill();
    });
    try {
        generator.complete(kPrompt, greedy(300));
        QFAIL("no error when the server died");
    } catch (const RemoteError& error) {
        QVERIFY2(error.kind() == RemoteErrorKind::ConnectionLost, error.what());
        QVERIFY2(std::string(error.what()).find("tokens arrived") != std::string::npos,
                 error.what());
    }
}

void TestRemoteLlamaServer::aLongConversationIsFittedToTheServerContext() {
    const auto small = startServer({"-c", "256"});
    const RemoteConnection connection(optionsFor(small->url()), "");
    QCOMPARE(connection.contextLength().value_or(0), int64_t(256));
    std::vector<ChatMessage> messages{{"system", "Answer briefly."}};
    const std::string longTurn(300, 'a');  // about 40 tokens each way
    for (int round = 0; round < 6; ++round) {
        messages.push_back({"user", "Round " + std::to_string(round) + ": " + longTurn});
        messages.push_back({"assistant", longTurn});
    }
    messages.push_back({"user", "And now?"});
    const auto fitted = fitToServerContext(connection, messages, 64);
    QVERIFY(fitted.droppedRounds > 0);
    QVERIFY(fitted.promptTokens && *fitted.promptTokens + 64 <= 256);
    QCOMPARE(fitted.messages.front().role, std::string("system"));
    QCOMPARE(fitted.messages.back().content, std::string("And now?"));
    QCOMPARE(fitted.messages.size(), messages.size() - 2 * size_t(fitted.droppedRounds));
    RemoteGenerator generator(connection);
    QVERIFY(generator.chat(fitted.messages, greedy(8)).tokens.size() > 0);
}

void TestRemoteLlamaServer::theCliRunsOnTheServer() {
    const QString url = QString::fromStdString(server_->url());
    const CliResult generated = runCli({"generate", "--remote", url, "--prompt", kPrompt,
                                        "--temperature", "0", "--max-tokens", "12"});
    QVERIFY2(generated.exitCode == 0, qPrintable(generated.standardError));
    const RemoteConnection connection(optionsFor(server_->url()), "");
    RemoteGenerator generator(connection);
    QCOMPARE(generated.standardOutput.trimmed(),
             QString::fromStdString(generator.complete(kPrompt, greedy(12)).text).trimmed());

    const CliResult json = runCli({"generate", "--remote", url, "--prompt", kPrompt, "--json",
                                   "--temperature", "0", "--max-tokens", "4"});
    QVERIFY2(json.exitCode == 0, qPrintable(json.standardError));
    const QStringList lines = json.standardOutput.trimmed().split('\n');
    QCOMPARE(lines.size(), 5);  // four steps and the finish
    const auto step = nlohmann::json::parse(lines[0].toStdString());
    QVERIFY(step["sampling"].contains("server"));
    QCOMPARE(nlohmann::json::parse(lines[4].toStdString())["generated_tokens"].get<int>(), 4);

    QTemporaryDir dir;
    const QString tracePath = dir.filePath("trace.jsonl");
    const CliResult trace = runCli({"trace", "--remote", url, "--prompt", kPrompt, "--out",
                                    tracePath, "--max-tokens", "3", "--temperature", "0"});
    QVERIFY2(trace.exitCode == 0, qPrintable(trace.standardError));
    QFile traceFile(tracePath);
    QVERIFY(traceFile.open(QIODevice::ReadOnly));
    const QByteArray traced = traceFile.readAll();
    QVERIFY(traced.contains("\"tokenized\"") && traced.contains("\"server\""));

    QProcess chat;
    chat.start(QStringLiteral(INFERLENS_CLI_PATH),
               {"chat", "--remote", url, "--temperature", "0", "--max-tokens", "8"});
    chat.write("What is 2+2?\nAnd 3+3?\n");
    chat.closeWriteChannel();
    QVERIFY(chat.waitForFinished(60000));
    QCOMPARE(chat.exitCode(), 0);
    QCOMPARE(QString::fromUtf8(chat.readAllStandardOutput()).count('\n'), 2);  // two answers

    const CliResult bench = runCli({"bench", "--remote", url, "--runs", "2", "--prompt-tokens",
                                    "32", "--gen-tokens", "8", "--json"});
    QVERIFY2(bench.exitCode == 0, qPrintable(bench.standardError));
    const auto measured = nlohmann::json::parse(bench.standardOutput.toStdString());
    QVERIFY(measured["ttft_ms"].get<double>() > 0);
    QVERIFY(measured["server_decode_tokens_per_s"].get<double>() > 0);

    const CliResult local =
        runCli({"generate", "--remote", url, "--prompt", "x", "--device", "cpu"});
    QCOMPARE(local.exitCode, 2);
    QVERIFY2(local.standardError.contains("--device does not apply with --remote"),
             qPrintable(local.standardError));
    const CliResult refused =
        runCli({"generate", "--remote", QString("http://127.0.0.1:%1").arg(freeLoopbackPort()),
                "--prompt", "x"});
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.standardError.contains("refused") || refused.standardError.contains("connect"),
             qPrintable(refused.standardError));
}

void TestRemoteLlamaServer::faultsBetweenUsAndTheServerAreClear_data() {
    QTest::addColumn<int>("fault");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("says");
    QTest::newRow("500") << int(Fault::Status500) << int(RemoteErrorKind::Http)
                         << "injected fault: the model crashed";
    QTest::newRow("malformed event")
        << int(Fault::MalformedEvent) << int(RemoteErrorKind::Protocol) << "";
    QTest::newRow("stalled stream")
        << int(Fault::StallAfterFirstChunk) << int(RemoteErrorKind::Stalled) << "1 s";
}

// Each fault gives its own kind of error with a message that says what happened, keeps what had
// arrived, and the next request through the same path works.
void TestRemoteLlamaServer::faultsBetweenUsAndTheServerAreClear() {
    QFETCH(int, fault);
    QFETCH(int, kind);
    QFETCH(QString, says);
    FaultProxy proxy(server_->url());
    HttpOptions options = optionsFor(proxy.url());
    options.stallTimeout = std::chrono::milliseconds(1000);
    const RemoteConnection connection(options, "");
    proxy.setFault(Fault(fault));
    RemoteGenerator generator(connection);
    try {
        generator.complete(kPrompt, greedy(64));
        QFAIL("no error");
    } catch (const RemoteError& error) {
        qInfo("%s: %s", QTest::currentDataTag(), error.what());
        QVERIFY2(int(error.kind()) == kind, error.what());
        QVERIFY2(std::string(error.what()).find(says.toStdString()) != std::string::npos,
                 error.what());
    }
    proxy.setFault(Fault::None);
    const RemoteConnection healthy(optionsFor(proxy.url()), "");
    RemoteGenerator next(healthy);
    QCOMPARE(next.complete(kPrompt, greedy(4)).tokens.size(), size_t(4));
}

// inferlens-cli chat through the proxy: the turn that fails is reported and left out, the
// conversation before it stays, and the next turn is answered.
void TestRemoteLlamaServer::aChatGoesOnAfterAFault() {
    FaultProxy proxy(server_->url());
    proxy.setFault(Fault::Status500);
    QProcess chat;
    chat.start(QStringLiteral(INFERLENS_CLI_PATH),
               {"chat", "--remote", QString::fromStdString(proxy.url()), "--temperature", "0",
                "--max-tokens", "6"});
    QVERIFY(chat.waitForStarted());
    chat.write("First question?\n");
    QElapsedTimer clock;
    clock.start();
    QByteArray errors;
    while (!errors.contains("crashed") && clock.elapsed() < 30000) {
        chat.waitForReadyRead(100);
        errors += chat.readAllStandardError();
    }
    QVERIFY2(errors.contains("injected fault: the model crashed"), errors.constData());
    proxy.setFault(Fault::None);
    chat.write("Second question?\n");
    chat.closeWriteChannel();
    QVERIFY(chat.waitForFinished(60000));
    QCOMPARE(chat.exitCode(), 0);
    const QString answers = QString::fromUtf8(chat.readAllStandardOutput());
    QCOMPARE(answers.count('\n'), 2);  // the failed turn's empty line and the answer
    QVERIFY(!answers.trimmed().isEmpty());
}

QTEST_GUILESS_MAIN(TestRemoteLlamaServer)
#include "test_remote_llama_server.moc"
