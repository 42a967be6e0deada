// The text commands of inferlens-cli end to end on a synthetic ChatGLM model: tokenize, generate
// (text and --json), chat, trace, bench, kv-experiment (on the bundled model), the default model,
// and their errors.

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include "backend/devices.h"
#include "support/test_models.h"

using namespace inferlens;

namespace {

constexpr int kLayers = 2;
constexpr int kVocab = 330;  // 321 pieces + 9 ChatGLM specials
constexpr int kGMask = 321 + 1, kSop = 321 + 3;

std::vector<QJsonObject> jsonLines(const QString& text) {
    std::vector<QJsonObject> objects;
    for (const QString& line : text.split('\n', Qt::SkipEmptyParts)) {
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(line.toUtf8(), &error);
        if (error.error != QJsonParseError::NoError || !document.isObject())
            return {};
        objects.push_back(document.object());
    }
    return objects;
}

}  // namespace

class TestCliGeneration : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        SyntheticModelOptions options;
        options.architecture = "chatglm";
        options.layers = kLayers;
        options.vocab = kVocab;
        model_ = QString::fromStdString(test::writeSynthetic(dir_, "glm.gguf", options));
    }

    void tokenizeShowsThePrefixAndSpans() {
        const auto result =
            test::runCli({"tokenize", "--model", model_, "--text", "the of", "--json"});
        QCOMPARE(result.exitCode, 0);
        const auto objects = jsonLines(result.standardOutput);
        QCOMPARE(objects.size(), size_t(1));
        const QJsonArray ids = objects[0]["ids"].toArray();
        QCOMPARE(ids.size(), 4);
        QCOMPARE(ids[0].toInt(), kGMask);
        QCOMPARE(ids[1].toInt(), kSop);
        const QJsonArray tokens = objects[0]["tokens"].toArray();
        QCOMPARE(tokens[2].toObject()["piece"].toString(), QString("▁the"));
        QCOMPARE(tokens[3].toObject()["piece"].toString(), QString("▁of"));
        QCOMPARE(tokens[3].toObject()["begin"].toInt(), 3);  // " of"
        QCOMPARE(tokens[3].toObject()["end"].toInt(), 6);
    }

    void generateIsSeededAndItsJsonMatchesItsText() {
        const QStringList common{"generate",     "--model",   model_,   "--prompt", "the",
                                 "--max-tokens", "6",         "--seed", "9",        "--temperature",
                                 "1.2",          "--threads", "1"};
        const auto text = test::runCli(common);
        QCOMPARE(text.exitCode, 0);
        QCOMPARE(test::runCli(common).standardOutput, text.standardOutput);  // seeded
        const auto other = test::runCli(QStringList(common).replaceInStrings("9", "10"));
        QVERIFY(other.standardOutput != text.standardOutput);

        const auto json = test::runCli(QStringList(common) << "--json");
        QCOMPARE(json.exitCode, 0);
        const auto steps = jsonLines(json.standardOutput);
        QCOMPARE(steps.size(), size_t(6 + 1));
        QString joined;
        for (size_t i = 0; i < 6; ++i) {
            QCOMPARE(steps[i]["step"].toInt(), int(i));
            const QJsonObject sampling = steps[i]["sampling"].toObject();
            QCOMPARE(sampling["chosen_id"].toInt(), steps[i]["token"].toInt());
            QVERIFY(sampling["candidates"].toArray().size() > 0);
            joined += steps[i]["text"].toString();
        }
        QCOMPARE(joined, text.standardOutput);
        QCOMPARE(steps.back()["event"].toString(), QString("finished"));
        QCOMPARE(steps.back()["reason"].toString(), QString("max_tokens"));
    }

    void logitProcessorsAndStopStringsOnTheCommandLine() {
        const QStringList common{"generate",     "--model",   model_,   "--prompt", "the",
                                 "--max-tokens", "16",        "--seed", "4",        "--temperature",
                                 "1.0",          "--threads", "1"};
        const auto plain = test::runCli(common);
        QCOMPARE(plain.exitCode, 0);
        // Two ASCII letters from the middle of the text as the stop string: the same run, cut
        // right before them.
        const QString text = plain.standardOutput;
        QString stop;
        for (int i = text.size() / 3; i + 1 < text.size() && stop.isEmpty(); ++i)
            if (text[i].isLetter() && text[i].unicode() < 128 && text[i + 1].isLetter() &&
                text[i + 1].unicode() < 128)
                stop = text.mid(i, 2);
        QVERIFY2(!stop.isEmpty(), qPrintable(text));
        const auto stopped = test::runCli(QStringList(common) << "--stop" << stop);
        QCOMPARE(stopped.exitCode, 0);
        QCOMPARE(stopped.standardOutput, text.left(text.indexOf(stop)));
        const auto stoppedJson = test::runCli(QStringList(common) << "--stop" << stop << "--json");
        QCOMPARE(jsonLines(stoppedJson.standardOutput).back()["reason"].toString(),
                 QString("stop_string"));

        // --ban: the stop string's letters never appear, seed after seed.
        for (const QString seed : {"4", "5", "6", "7"}) {
            QStringList arguments =
                QStringList(common).replaceInStrings(QRegularExpression("^4$"), seed);
            const auto banned = test::runCli(arguments << "--ban" << stop);
            QCOMPARE(banned.exitCode, 0);
            QVERIFY2(!banned.standardOutput.contains(stop), qPrintable(banned.standardOutput));
        }

        // --logit-bias: +inf forces a token at every step.
        const auto forced = test::runCli(QStringList(common) << "--json"
                                                             << "--logit-bias"
                                                             << "77=+inf");
        QCOMPARE(forced.exitCode, 0);
        const auto steps = jsonLines(forced.standardOutput);
        QCOMPARE(steps.size(), size_t(16 + 1));
        for (size_t i = 0; i < 16; ++i)
            QCOMPARE(steps[i]["token"].toInt(), 77);

        // --min-tokens: the end of sequence (id 2), strongly favoured, comes first at the minimum.
        const QStringList greedyEos =
            QStringList(common).replaceInStrings(QRegularExpression("^1.0$"), "0") << "--json"
                                                                                   << "--logit-bias"
                                                                                   << "2=30";
        const auto early = test::runCli(greedyEos);
        QCOMPARE(jsonLines(early.standardOutput).back()["generated_tokens"].toInt(), 1);
        const auto late = test::runCli(QStringList(greedyEos) << "--min-tokens"
                                                              << "5");
        const auto lateSteps = jsonLines(late.standardOutput);
        QCOMPARE(lateSteps.back()["generated_tokens"].toInt(), 6);
        QCOMPARE(lateSteps.back()["reason"].toString(), QString("eos"));
        QCOMPARE(lateSteps[0]["sampling"]
                     .toObject()["masked"]
                     .toArray()[0]
                     .toObject()["masked_by"]
                     .toString(),
                 QString("min-new-tokens"));
    }

    void beamSearchOnTheCommandLine() {
        const QStringList common{"generate",     "--model", model_,      "--prompt", "the",
                                 "--max-tokens", "8",       "--threads", "1"};
        // Width 1 is greedy decoding.
        const auto greedy = test::runCli(QStringList(common) << "--temperature"
                                                             << "0");
        const auto one = test::runCli(QStringList(common) << "--beams"
                                                          << "1");
        QCOMPARE(one.exitCode, 0);
        QCOMPARE(one.standardOutput, greedy.standardOutput);
        // --json: the hypotheses best first, the best one's text is what plain output prints, and
        // the tree's nodes chain up to the prompt.
        const auto plain = test::runCli(QStringList(common) << "--beams"
                                                            << "3");
        const auto json = test::runCli(QStringList(common) << "--beams"
                                                           << "3"
                                                           << "--json");
        QCOMPARE(json.exitCode, 0);
        const auto objects = jsonLines(json.standardOutput);
        QCOMPARE(objects.size(), size_t(1));
        const QJsonObject search = objects[0];
        QCOMPARE(search["event"].toString(), QString("beam_search"));
        const QJsonArray hypotheses = search["hypotheses"].toArray();
        QCOMPARE(hypotheses.size(), 3);
        QCOMPARE(hypotheses[0].toObject()["text"].toString(), plain.standardOutput);
        for (int i = 1; i < 3; ++i)
            QVERIFY(hypotheses[i - 1].toObject()["score"].toDouble() >=
                    hypotheses[i].toObject()["score"].toDouble());
        const QJsonArray nodes = search["nodes"].toArray();
        QVERIFY(search["kv_cache_slots"].toInt() <= 3);
        int node = hypotheses[0].toObject()["node"].toInt();
        int depth = 0;
        while (node >= 0) {
            node = nodes[node].toObject()["parent"].toInt();
            ++depth;
        }
        QCOMPARE(depth, hypotheses[0].toObject()["tokens"].toArray().size());
        const auto bad = test::runCli(QStringList(common) << "--beams"
                                                          << "0");
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.standardError.contains("--beams"));
    }

    void greedyOutputIsTheSameWithoutTheCache() {
        QStringList arguments{"generate", "--model",         model_,
                              "--prompt", "hello the world", "--max-tokens",
                              "5",        "--temperature",   "0"};
        const auto cached = test::runCli(arguments);
        const auto recomputed = test::runCli(QStringList(arguments) << "--no-cache");
        QCOMPARE(cached.exitCode, 0);
        QCOMPARE(recomputed.standardOutput, cached.standardOutput);
        // Fused attention is the default; the reference path keeps every probability.
        const auto reference = test::runCli(arguments << "--attention"
                                                      << "reference");
        QCOMPARE(reference.exitCode, 0);
        QCOMPARE(reference.standardOutput, cached.standardOutput);
    }

    void aSlidingWindowEqualsTheFullCacheUntilItSlidesAndThenRunsOn() {
        const QStringList arguments{"generate",        "--model",       model_, "--prompt",
                                    "hello the world", "--temperature", "0"};
        const auto full = test::runCli(QStringList(arguments) << "--max-tokens"
                                                              << "20");
        const auto roomy = test::runCli(QStringList(arguments) << "--max-tokens"
                                                               << "20"
                                                               << "--window"
                                                               << "200");
        QCOMPARE(full.exitCode, 0);
        QCOMPARE(roomy.standardOutput, full.standardOutput);
        // 100 new tokens through a 24-token cache (4 sinks + 20).
        const auto sliding = test::runCli(QStringList(arguments) << "--max-tokens"
                                                                 << "100"
                                                                 << "--min-tokens"
                                                                 << "100"
                                                                 << "--window"
                                                                 << "20"
                                                                 << "--kv-type"
                                                                 << "int8"
                                                                 << "--json");
        QVERIFY2(sliding.exitCode == 0, qPrintable(sliding.standardError));
        const auto steps = jsonLines(sliding.standardOutput);
        QCOMPARE(steps.size(), size_t(100 + 1));
        QCOMPARE(steps.back()["reason"].toString(), QString("max_tokens"));
        const auto bench =
            test::runCli({"bench", "--model", model_, "--prompt-tokens", "50", "--gen-tokens", "30",
                          "--window", "16", "--sinks", "2", "--kv-type", "f16", "--json"});
        QVERIFY2(bench.exitCode == 0, qPrintable(bench.standardError));
        const auto figures = jsonLines(bench.standardOutput).at(0);
        QCOMPARE(figures["kv_type"].toString(), QString("f16"));
        QCOMPARE(figures["window"].toInt(), 16);
        QCOMPARE(figures["kv_cache_tokens"].toInt(), 18);
    }

    void chatAnswersEveryLine() {
        const auto result = chat({"--system", "be brief"}, "hello\nthe world\n");
        QCOMPARE(result.exitCode, 0);
        QCOMPARE(result.standardOutput.count('\n'), 2);  // one answer line per user line
        // With a sliding int8 cache far smaller than the conversation.
        const auto sliding = chat({"--window", "8", "--sinks", "2", "--kv-type", "int8"},
                                  "hello\nthe world\nand again\n");
        QVERIFY2(sliding.exitCode == 0, qPrintable(sliding.standardError));
        QVERIFY(sliding.standardOutput.count('\n') >= 3);  // an answer may hold a newline too
    }

    // The bundled model (a miniature ChatGLM2) runs on, greedily, into a made-up next round inside
    // its second answer — shown here by continuing the same prompt with `generate`. In `chat`
    // the chatglm2 template's next-round header is a stop string, so the answer ends there.
    void chatStopsWhereTheModelStartsTheTemplatesNextTurn() {
        const QString rounds = QString::fromUtf8(
            "[Round 1]\n\n问：《春晓》\n\n答：春眠不觉晓，处处闻啼鸟。\n夜来风雨声，花落知多少。"
            "\n\n[Round 2]\n\n问：背一首李白的诗。\n\n答：");
        const auto runOn = test::runCli({"generate", "--model", INFERLENS_BUNDLED_MODEL, "--prompt",
                                         rounds, "--temperature", "0", "--max-tokens", "120"});
        QVERIFY2(runOn.exitCode == 0, qPrintable(runOn.standardError));
        QVERIFY2(runOn.standardOutput.contains("[Round 2]"), qPrintable(runOn.standardOutput));
        const qsizetype madeUp = runOn.standardOutput.indexOf("[Round");

        QProcess process;
        process.start(QStringLiteral(INFERLENS_CLI_PATH),
                      {"chat", "--model", INFERLENS_BUNDLED_MODEL, "--temperature", "0",
                       "--max-tokens", "120"});
        process.waitForStarted();
        process.write(QString::fromUtf8("《春晓》\n背一首李白的诗。\n").toUtf8());
        process.closeWriteChannel();
        QVERIFY(process.waitForFinished(120000));
        const QString answers = QString::fromUtf8(process.readAllStandardOutput());
        QCOMPARE(process.exitCode(), 0);
        QVERIFY2(!answers.contains("[Round"), qPrintable(answers));
        // The second answer is the same text up to where the made-up round began.
        QVERIFY2(answers.contains(runOn.standardOutput.left(madeUp).trimmed()),
                 qPrintable(answers));
    }

    void chatTurnsKeepTheCacheAndAnswerAsAFullRecomputationWould() {
        // Each turn prefills only its new tokens; rerunning the whole sequence at every step
        // (--no-cache) must give the same answers, sampled with the same seed.
        const QByteArray input = "hello\nthe world\nhello the world\n";
        const auto kept = chat({}, input);
        const auto recomputed = chat({"--no-cache"}, input);
        QCOMPARE(kept.exitCode, 0);
        QVERIFY(kept.standardOutput.count('\n') >= 3);  // an answer may hold a newline too
        QCOMPARE(kept.standardOutput, recomputed.standardOutput);
    }

    void aChatLongerThanTheContextLeavesOutItsOldestRounds() {
        const auto result =
            chat({"--ctx-size", "48"},
                 "hello the world\nthe world hello\nhello hello the\nworld the world\n");
        QCOMPARE(result.exitCode, 0);
        QCOMPARE(result.standardOutput.count('\n'), 4);  // every line still answered
        QVERIFY2(result.standardError.contains("left out of the prompt"),
                 qPrintable(result.standardError));
    }

    void traceEventsAreCompleteAndInOrder() {
        const auto result = test::runCli({"trace", "--model", model_, "--prompt", "the hello",
                                          "--chat", "--max-tokens", "3", "--attention", "1:*"});
        QCOMPARE(result.exitCode, 0);
        const auto events = jsonLines(result.standardOutput);
        QVERIFY(!events.empty());
        QCOMPARE(events.front()["event"].toString(), QString("tokenized"));
        QCOMPARE(events.back()["event"].toString(), QString("finished"));
        int layers = 0, attention = 0, sampling = 0, steps = 0, chosenPieces = 0;
        for (const QJsonObject& event : events) {
            const QString kind = event["event"].toString();
            layers += kind == "layer_end";
            steps += kind == "step_end";
            if (kind == "sampling") {
                ++sampling;
                // Token text for a replay without the model: every candidate's piece, and the
                // chosen token's piece is the piece of its id.
                QVERIFY(event["chosen_piece"].isString());
                QVERIFY(event["chosen_special"].isBool());
                QVERIFY(event.contains("chosen_byte"));
                for (const QJsonValue& candidate : event["candidates"].toArray()) {
                    QVERIFY(candidate["piece"].isString());
                    if (candidate["id"].toInt() == event["chosen_id"].toInt()) {
                        QCOMPARE(candidate["piece"].toString(), event["chosen_piece"].toString());
                        ++chosenPieces;
                    }
                }
            }
            if (kind == "attention") {
                ++attention;
                QCOMPARE(event["layer"].toInt(), 1);
                for (const QJsonValue& row : event["weights"].toArray()) {
                    double sum = 0;
                    for (const QJsonValue& weight : row.toArray())
                        sum += weight.toDouble();
                    QVERIFY(std::abs(sum - 1.0) < 1e-4);
                }
            }
        }
        QCOMPARE(steps, 3);  // the prefill and two decode steps; the third token is not run
        QCOMPARE(layers, steps * kLayers);
        QCOMPARE(attention, steps * 4);  // 4 heads of layer 1
        QCOMPARE(sampling, 3);
        QVERIFY(chosenPieces > 0);
    }

    void benchReportsItsFigures() {
        const auto result =
            test::runCli({"bench", "--model", model_, "--prompt-tokens", "8", "--gen-tokens", "4",
                          "--attention", "reference", "--json"});
        QCOMPARE(result.exitCode, 0);
        const auto objects = jsonLines(result.standardOutput);
        QCOMPARE(objects.size(), size_t(1));
        QCOMPARE(objects[0]["attention"].toString(), QString("reference"));
        for (const char* key :
             {"prefill_tokens_per_s", "decode_tokens_per_s", "ttft_ms", "peak_rss_mb"})
            QVERIFY2(objects[0][key].toDouble() > 0, key);
        // The machine's ceilings, measured by the same run, and each phase's share of its own.
        const QJsonObject machine = objects[0]["machine"].toObject();
        const double bandwidth = machine["read_gb_per_s"].toDouble();
        QVERIFY2(bandwidth > 0.1 && bandwidth < 10'000, qPrintable(QString::number(bandwidth)));
        const double peak = machine["int8_peak_gops_per_s"].toDouble();
        QVERIFY2(peak > 1, qPrintable(QString::number(peak)));
        // Decode: the file's weight bytes × tokens/s over the bandwidth; the tiny model's weights
        // stay in the caches, so the share may pass 1.
        const double weightRate = objects[0]["weight_bytes"].toDouble() *
                                  objects[0]["decode_tokens_per_s"].toDouble() / 1e9;
        QVERIFY(weightRate > 0);
        QVERIFY(qFuzzyCompare(objects[0]["decode_fraction_of_read_bandwidth"].toDouble(),
                              weightRate / bandwidth));
        const double products = objects[0]["prefill_product_gops_per_s"].toDouble();
        QVERIFY(products > 0 && products <= peak);
        QVERIFY(
            qFuzzyCompare(objects[0]["prefill_fraction_of_int8_peak"].toDouble(), products / peak));

        const auto text =
            test::runCli({"bench", "--model", model_, "--prompt-tokens", "8", "--gen-tokens", "4"});
        QVERIFY2(text.exitCode == 0, qPrintable(text.standardError));
        QVERIFY2(text.standardOutput.contains("of the read bandwidth") &&
                     text.standardOutput.contains("of the int8 peak") &&
                     text.standardOutput.contains("machine: read bandwidth"),
                 qPrintable(text.standardOutput));
    }

    // --warmup runs the prefill and a decode step untimed, then empties the cache: the timed run's
    // cache holds what a cold run's does (the prompt, and the generated tokens but the last).
    void benchWarmsUpOnRequest() {
        for (const bool warmup : {false, true}) {
            QStringList words{"bench", "--model",      model_, "--prompt-tokens",
                              "8",     "--gen-tokens", "4",    "--json"};
            if (warmup)
                words << "--warmup";
            const auto result = test::runCli(words);
            QVERIFY2(result.exitCode == 0, qPrintable(result.standardError));
            const auto figures = jsonLines(result.standardOutput).at(0);
            QCOMPARE(figures["warmup"].toBool(), warmup);
            QCOMPARE(figures["kv_cache_tokens"].toInt(), 8 + 3);
            QVERIFY(figures["prefill_tokens_per_s"].toDouble() > 0);
        }
        const auto text = test::runCli(
            {"bench", "--model", model_, "--prompt-tokens", "8", "--gen-tokens", "4", "--warmup"});
        QVERIFY2(text.standardOutput.contains("after an untimed warm-up run"),
                 qPrintable(text.standardOutput));
    }

    void kvExperimentOnTheBundledModel() {
        const auto result =
            test::runCli({"kv-experiment", "--model", INFERLENS_BUNDLED_MODEL, "--prompt", "the",
                          "--tokens", "8", "--threads", "1", "--json"});
        QVERIFY2(result.exitCode == 0, qPrintable(result.standardError));
        const auto objects = jsonLines(result.standardOutput);
        QCOMPARE(objects.size(), size_t(1));
        const QJsonObject& json = objects[0];
        QCOMPARE(json["identical"].toBool(), true);
        QCOMPARE(json["new_tokens"].toInt(), 8);
        for (const char* run : {"with_cache", "without_cache"}) {
            const QJsonObject series = json[run].toObject();
            QCOMPARE(series["tokens"].toArray().size(), 8);
            QCOMPARE(series["seconds"].toArray().size(), 8);
            QCOMPARE(series["flops"].toArray().size(), 8);
        }
        QCOMPARE(json["with_cache"]["tokens"], json["without_cache"]["tokens"]);
        const QJsonArray table = json["table"].toArray();
        QCOMPARE(table.size(), 1);  // fewer than 32 tokens: one row, for all 8
        QCOMPARE(table[0]["n"].toInt(), 8);
        QVERIFY(table[0]["flop_ratio"].toDouble() > 1);
    }

    void theDefaultModelComesFromTheEnvironment() {
        QProcess process;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert("INFERLENS_MODEL", model_);
        process.setProcessEnvironment(environment);
        process.setWorkingDirectory(QDir::rootPath());  // any working directory
        process.start(QStringLiteral(INFERLENS_CLI_PATH), {"info"});
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 0);
        QVERIFY(
            QString::fromUtf8(process.readAllStandardOutput()).contains("architecture: chatglm"));

        environment.insert("INFERLENS_MODEL", dir_.filePath("missing.gguf"));
        process.setProcessEnvironment(environment);
        process.start(QStringLiteral(INFERLENS_CLI_PATH), {"tokenize", "--text", "x"});
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 1);
        QVERIFY(QString::fromUtf8(process.readAllStandardError()).contains("missing.gguf"));
    }

    void errors_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        QTest::newRow("no prompt") << QStringList{"generate"} << 2 << "--prompt is required";
        QTest::newRow("negative temperature")
            << QStringList{"generate", "--prompt", "a", "--temperature", "-1"} << 1
            << "temperature";
        QTest::newRow("top-p above 1")
            << QStringList{"generate", "--prompt", "a", "--top-p", "1.5"} << 1 << "top";
        QTest::newRow("bad device")
            << QStringList{"generate", "--prompt", "a", "--device", "tpu"} << 2 << "--device";
        QTest::newRow("bad attention kernel")
            << QStringList{"generate", "--prompt", "a", "--attention", "flash"} << 2
            << "--attention: unknown attention kernel 'flash'";
        QTest::newRow("bad KV cache type")
            << QStringList{"generate", "--prompt", "a", "--kv-type", "q4"} << 2
            << "--kv-type: unknown KV cache type 'q4'";
        QTest::newRow("beams with a window")
            << QStringList{"generate", "--prompt", "a", "--beams", "2", "--window", "8"} << 2
            << "cannot be combined with --window";
        QTest::newRow("sinks without a window")
            << QStringList{"logits", "--ids", "1,2", "--out", "x.npy", "--sinks", "4"} << 2
            << "--sinks needs a --window";
        QTest::newRow("prompt longer than the context")
            << QStringList{"generate", "--prompt", QString("hello the world ").repeated(40),
                           "--ctx-size", "32"}
            << 1 << "the context holds 32";
        QTest::newRow("bad device index")
            << QStringList{"logits", "--ids", "3", "--out", "/dev/null", "--device", "cuda:-1"} << 2
            << "cuda:N";
        QTest::newRow("synthetic bench without a GPU")
            << QStringList{"bench", "--synth", "chatglm2-6b"} << 2 << "--synth";
        QTest::newRow("unknown template")
            << QStringList{"chat", "--template", "gpt4"} << 1 << "chatglm2";
        QTest::newRow("system on chatglm2")
            << QStringList{"chat", "--template", "chatglm2", "--system", "x"} << 2
            << "no system prompt";
        QTest::newRow("kv-experiment without a prompt")
            << QStringList{"kv-experiment"} << 2 << "--prompt is required";
        QTest::newRow("kv-experiment without tokens")
            << QStringList{"kv-experiment", "--prompt", "a", "--tokens", "0"} << 2 << "--tokens";
        QTest::newRow("logit bias without a value")
            << QStringList{"generate", "--prompt", "a", "--logit-bias", "12"} << 2 << "ID=VALUE";
        QTest::newRow("logit bias outside the vocabulary")
            << QStringList{"generate", "--prompt", "a", "--logit-bias", "4000=1"} << 2
            << "outside the vocabulary";
        QTest::newRow("empty stop string")
            << QStringList{"generate", "--prompt", "a", "--stop", ""} << 2 << "--stop";
        QTest::newRow("forcing the end while a minimum holds")
            << QStringList{"generate", "--prompt",     "a", "--logit-bias",
                           "2=+inf",   "--min-tokens", "3"}
            << 1 << "min-new-tokens";
        QTest::newRow("bad attention spec")
            << QStringList{"trace", "--prompt", "a", "--attention", "1-2"} << 2 << "LAYER:HEAD";
    }

    void errors() {
        QFETCH(QStringList, arguments);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        arguments << "--model" << model_;
        const auto result = test::runCli(arguments);
        QCOMPARE(result.exitCode, exitCode);
        QVERIFY2(result.standardError.contains(message), qPrintable(result.standardError));
    }

    void cudaRequestRunsOnTheGpuOrFallsBackToTheCpuWithAMessage() {
        const QStringList run{"generate", "--model", model_, "--prompt", "a", "--max-tokens", "4"};
        const auto cuda = test::runCli(run + QStringList{"--device", "cuda"});
        const auto cpu = test::runCli(run + QStringList{"--device", "cpu"});
        QCOMPARE(cuda.exitCode, 0);
        QCOMPARE(cpu.exitCode, 0);
        if (queryCudaDevices().devices.empty()) {
            // Without a GPU: the reason on stderr, the CPU's text on stdout.
            QVERIFY2(cuda.standardError.contains("running on the CPU"),
                     qPrintable(cuda.standardError));
            QCOMPARE(cuda.standardOutput, cpu.standardOutput);
        } else {
            QVERIFY2(cuda.standardError.contains("running on cuda:0"),
                     qPrintable(cuda.standardError));
        }
        QVERIFY(!cpu.standardError.contains("running on"));
    }

  private:
    // `inferlens-cli chat` (chatglm3, 4 tokens per answer) with `input` on stdin.
    test::CliResult chat(const QStringList& more, const QByteArray& input) const {
        QProcess process;
        process.start(QStringLiteral(INFERLENS_CLI_PATH),
                      QStringList{"chat", "--model", model_, "--max-tokens", "4", "--seed", "1",
                                  "--template", "chatglm3"} +
                          more);
        process.waitForStarted();
        process.write(input);
        process.closeWriteChannel();
        process.waitForFinished(60000);
        return {process.exitCode(), QString::fromUtf8(process.readAllStandardOutput()),
                QString::fromUtf8(process.readAllStandardError())};
    }

    QTemporaryDir dir_;
    QString model_;
};

QTEST_GUILESS_MAIN(TestCliGeneration)
#include "test_cli_generation.moc"
