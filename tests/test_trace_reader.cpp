// The GUI's trace reader on a real trace: `inferlens-cli trace` on the bundled model, read back
// into panel data that must agree with what the CLI tokenizes and generates; and malformed traces,
// which must fail with the file and line named.

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>

#include "display_text.h"
#include "support/test_models.h"
#include "trace_reader.h"

using namespace inferlens;
using namespace inferlens::gui;

namespace {

const QString kModel = QStringLiteral(INFERLENS_BUNDLED_MODEL);
const QString kPrompt = QStringLiteral("Once upon a time, 你好");
const QStringList kRun{"--max-tokens",  "10",  "--seed",    "5",
                       "--temperature", "1.0", "--threads", "1"};

template <typename T>
std::vector<T> eventsOf(const RecordedTrace& trace) {
    std::vector<T> found;
    for (const TraceEvent& event : trace.events)
        if (const T* value = std::get_if<T>(&event))
            found.push_back(*value);
    return found;
}

}  // namespace

class TestTraceReader : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        tracePath_ = dir_.filePath("trace.jsonl");
        const auto result =
            test::runCli(QStringList{"trace", "--model", kModel, "--prompt", kPrompt, "--attention",
                                     "0:0", "--out", tracePath_}
                         << kRun);
        QVERIFY2(result.exitCode == 0, qPrintable(result.standardError));
        QFile file(tracePath_);
        QVERIFY(file.open(QIODevice::ReadOnly));
        lines_ = file.readAll().split('\n');
        if (lines_.back().isEmpty())
            lines_.removeLast();
        QVERIFY(lines_.size() > 10);
    }

    void thePromptIsWhatTheCliTokenizes() {
        const RecordedTrace trace = readTrace(tracePath_);
        const auto prompts = eventsOf<std::vector<widgets::TokenChip>>(trace);
        QCOMPARE(prompts.size(), size_t(1));
        QVERIFY(std::holds_alternative<std::vector<widgets::TokenChip>>(trace.events.front()));

        const auto tokenized =
            test::runCli({"tokenize", "--model", kModel, "--text", kPrompt, "--json"});
        QCOMPARE(tokenized.exitCode, 0);
        const QJsonArray ids =
            QJsonDocument::fromJson(tokenized.standardOutput.toUtf8())["ids"].toArray();
        QVERIFY(!ids.isEmpty());
        QCOMPARE(int(prompts[0].size()), ids.size());
        QByteArray text;
        for (size_t i = 0; i < prompts[0].size(); ++i) {
            QCOMPARE(prompts[0][i].id, ids[int(i)].toInt());
            QVERIFY(!prompts[0][i].generated);
            text += prompts[0][i].bytes;
        }
        QCOMPARE(QString::fromUtf8(text), kPrompt);  // the chips' spans cover the prompt
    }

    void everyStepHasItsTokenTimingAndAttention() {
        const RecordedTrace trace = readTrace(tracePath_);
        const auto generated = eventsOf<GeneratedToken>(trace);
        const auto sampling = eventsOf<widgets::SamplingStep>(trace);
        const auto timings = eventsOf<widgets::LoopTiming>(trace);
        int samplingLines = 0, stepLines = 0;
        for (const QByteArray& line : lines_) {
            const QString kind = QJsonDocument::fromJson(line)["event"].toString();
            samplingLines += kind == "sampling";
            stepLines += kind == "step_end";
        }
        QVERIFY(!generated.empty());
        QCOMPARE(int(generated.size()), samplingLines);
        QCOMPARE(sampling.size(), generated.size());
        // The prefill, then one decode step per token but the last (chosen, never run).
        QCOMPARE(int(timings.size()), stepLines);
        QCOMPARE(timings.size(), generated.size());
        QVERIFY(timings[0].prefill);
        QCOMPARE(std::count_if(timings.begin(), timings.end(),
                               [](const widgets::LoopTiming& t) { return !t.prefill; }),
                 std::ptrdiff_t(generated.size() - 1));
        QCOMPARE(trace.finishReason, QString("max_tokens"));

        QFile config(kModel + "/config.json");
        QVERIFY(config.open(QIODevice::ReadOnly));
        const int layers = QJsonDocument::fromJson(config.readAll())["num_layers"].toInt();
        QVERIFY(layers > 0);
        for (const widgets::LoopTiming& timing : timings) {
            QCOMPARE(int(timing.layerSeconds.size()), layers);
            QVERIFY(timing.stepSeconds > 0);
        }

        for (size_t i = 0; i < generated.size(); ++i) {
            QVERIFY(generated[i].chip.generated);
            // The token follows the sampling step that chose it.
            const int chosen = sampling[i].chosenIndex;
            if (chosen >= 0) {
                QCOMPARE(sampling[i].candidates[size_t(chosen)].id, generated[i].chip.id);
                // The candidate's label is what the chosen token's piece spells.
                QCOMPARE(sampling[i].candidates[size_t(chosen)].label,
                         widgets::tokenDisplayText(generated[i].chip.piece, {}, false));
            }
        }

        const auto attention = eventsOf<widgets::AttentionMatrix>(trace);
        QCOMPARE(attention.size(), timings.size());  // one head, one matrix per step
        for (const widgets::AttentionMatrix& matrix : attention) {
            QCOMPARE(matrix.layer, 0);
            QCOMPARE(matrix.head, 0);
            QCOMPARE(matrix.keyCount, matrix.firstQuery + matrix.queryCount);
            QCOMPARE(matrix.weights.size(), size_t(matrix.queryCount * matrix.keyCount));
            for (int row = 0; row < matrix.queryCount; ++row) {
                double sum = 0;
                for (int key = 0; key < matrix.keyCount; ++key) {
                    if (key > matrix.firstQuery + row)
                        QVERIFY(matrix.at(row, key) == 0.0f);  // the causal mask
                    sum += matrix.at(row, key);
                }
                QVERIFY2(std::abs(sum - 1.0) < 1e-4, qPrintable(QString::number(sum)));
            }
        }
    }

    void aSlidingInt8CacheReplaysAsItRan() {
        const QString path = dir_.filePath("sliding.jsonl");
        const auto result = test::runCli(
            QStringList{"trace", "--model", kModel, "--prompt", kPrompt, "--attention", "0:0",
                        "--kv-type", "int8", "--window", "8", "--sinks", "2", "--out", path}
            << kRun);
        QVERIFY2(result.exitCode == 0, qPrintable(result.standardError));
        const RecordedTrace trace = readTrace(path);
        const auto points = eventsOf<widgets::KvCachePoint>(trace);
        QVERIFY(!points.empty());
        const widgets::KvCachePoint& last = points.back();
        QVERIFY(last.slides);
        QCOMPARE(last.type, QStringLiteral("int8"));
        QCOMPARE(last.tokens, qint64(10));
        QCOMPARE(last.sinks, qint64(2));
        QVERIFY(last.evicted > 0);
        QVERIFY(last.bytesAsF32 > 3 * last.bytesUsed);
        const auto matrices = eventsOf<widgets::AttentionMatrix>(trace);
        QVERIFY(!matrices.empty());
        const widgets::AttentionMatrix& matrix = matrices.back();
        const int lastRow = matrix.queryCount - 1, p = matrix.firstQuery + lastRow;
        QCOMPARE(qint64(p + 1), last.tokens + last.evicted);
        for (int key = 0; key <= p; ++key)  // sinks 0, 1 and the window p − 7 .. p
            QCOMPARE(matrix.at(lastRow, key) == widgets::AttentionMatrix::kEvicted,
                     key >= 2 && key < p - 7);
    }

    // A Gemma 3 model's local layer (window 4): the replayed heat map names the keys before each
    // row's window as outside the layer's window; its global layer has none.
    void aLocalLayersWindowReplaysAsItRan() {
        const QString model = dir_.filePath("gemma3.gguf");
        const QString path = dir_.filePath("gemma3.jsonl");
        auto result =
            test::runCli({"synth", "--arch", "gemma3", "--layers", "2", "--sliding-window", "4",
                          "--sliding-pattern", "2", "--out", model});
        QVERIFY2(result.exitCode == 0, qPrintable(result.standardError));
        result = test::runCli(QStringList{"trace", "--model", model, "--prompt", "a b c d e f g h",
                                          "--attention", "0:0,1:0", "--out", path}
                              << kRun);
        QVERIFY2(result.exitCode == 0, qPrintable(result.standardError));
        const auto matrices = eventsOf<widgets::AttentionMatrix>(readTrace(path));
        QVERIFY(!matrices.empty());
        int outside = 0;
        for (const widgets::AttentionMatrix& matrix : matrices)
            for (int row = 0; row < matrix.queryCount; ++row)
                for (int key = 0; key <= matrix.firstQuery + row; ++key) {
                    const bool hidden = matrix.layer == 0 && key < matrix.firstQuery + row - 3;
                    QCOMPARE(matrix.at(row, key) == widgets::AttentionMatrix::kOutsideWindow,
                             hidden);
                    outside += hidden ? 1 : 0;
                }
        QVERIFY(outside > 10);
    }

    // The user's sliding cache (window 3, sinks 2) on top of a local layer's window of 6: the
    // narrower window wins and the sinks stay hidden on that layer (models/model.cpp), so every
    // key before the last three is labelled, the sinks as outside the layer's window, never shown
    // as an ordinary weight of 0.
    void userWindowOnALocalLayerHidesTheSinks() {
        const QString model = dir_.filePath("gemma3-w6.gguf");
        const QString path = dir_.filePath("gemma3-w6.jsonl");
        auto result =
            test::runCli({"synth", "--arch", "gemma3", "--layers", "2", "--sliding-window", "6",
                          "--sliding-pattern", "2", "--out", model});
        QVERIFY2(result.exitCode == 0, qPrintable(result.standardError));
        result = test::runCli(QStringList{"trace", "--model", model, "--prompt", "a b c d e f g h",
                                          "--attention", "0:0", "--window", "3", "--sinks", "2",
                                          "--out", path}
                              << kRun);
        QVERIFY2(result.exitCode == 0, qPrintable(result.standardError));
        const auto matrices = eventsOf<widgets::AttentionMatrix>(readTrace(path));
        QVERIFY(!matrices.empty());
        int hiddenSinks = 0;
        for (const widgets::AttentionMatrix& matrix : matrices)
            for (int row = 0; row < matrix.queryCount; ++row) {
                const int p = matrix.firstQuery + row;
                for (int key = 0; key <= p; ++key) {
                    const float cell = matrix.at(row, key);
                    const bool labelled = cell == widgets::AttentionMatrix::kOutsideWindow ||
                                          cell == widgets::AttentionMatrix::kEvicted;
                    QVERIFY2(
                        labelled == (key < p - 2),
                        qPrintable(
                            QString("position %1, key %2: %3").arg(p).arg(key).arg(double(cell))));
                    if (key < 2 && key < p - 2) {
                        QCOMPARE(cell, widgets::AttentionMatrix::kOutsideWindow);
                        ++hiddenSinks;
                    }
                }
            }
        QVERIFY(hiddenSinks > 4);
    }

    void theTokensSpellTheAnswerTheCliGenerates() {
        const auto answer =
            test::runCli(QStringList{"generate", "--model", kModel, "--prompt", kPrompt} << kRun);
        QCOMPARE(answer.exitCode, 0);
        const auto generated = eventsOf<GeneratedToken>(readTrace(tracePath_));
        QString text;
        for (const GeneratedToken& token : generated)
            text += token.text;
        // The reader keeps the "▁" that sentencepiece drops from the answer's first piece.
        const auto first = std::find_if(generated.begin(), generated.end(),
                                        [](auto& token) { return !token.chip.special; });
        const bool keepsSpace = first != generated.end() && !first->chip.byteFallback &&
                                first->chip.piece.startsWith(QStringLiteral("▁"));
        QCOMPARE(text, (keepsSpace ? QString(" ") : QString()) + answer.standardOutput);
    }

    void byteTokensAddWholeCharacters() {
        // The bundled model rarely picks byte pieces, so the real trace's choices are rewritten:
        // 你 as three byte pieces, a lead byte that a normal piece interrupts, a special, then lead
        // bytes only, the last left unfinished at the end.
        struct Choice {
            QString piece;
            QJsonValue byte;
            bool special;
        };
        const std::vector<Choice> choices{
            {"<0xE4>", 0xE4, false},           {"<0xBD>", 0xBD, false},
            {"<0xA0>", 0xA0, false},           {"<0xE5>", 0xE5, false},
            {"▁big", QJsonValue::Null, false}, {"</s>", QJsonValue::Null, true}};
        QByteArrayList lines = lines_;
        size_t sampling = 0;
        for (QByteArray& line : lines) {
            QJsonObject object = QJsonDocument::fromJson(line).object();
            if (object["event"].toString() != "sampling")
                continue;
            const Choice& choice = sampling < choices.size() ? choices[sampling] : choices[0];
            object["chosen_piece"] = choice.piece;
            object["chosen_byte"] = choice.byte;
            object["chosen_special"] = choice.special;
            line = QJsonDocument(object).toJson(QJsonDocument::Compact);
            ++sampling;
        }
        QVERIFY(sampling >= 7);
        const QString path = dir_.filePath("bytes.jsonl");
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(lines.join('\n'));
        file.close();

        const auto generated = eventsOf<GeneratedToken>(readTrace(path));
        QCOMPARE(generated.size(), sampling);
        QStringList texts;
        for (const GeneratedToken& token : generated)
            texts << token.text;
        const QString replacement(QChar(0xFFFD));
        // The interrupted E5 is charged to its own token; from the second lone lead byte on, each
        // shows that the one before will never complete; the end cuts the last one short.
        QStringList expected{"", "", "你", replacement, " big", "", ""};
        while (size_t(expected.size()) < sampling)
            expected << replacement;
        expected.last() += replacement;
        QCOMPARE(texts, expected);
        QCOMPARE(generated[0].chip.bytes, QByteArray("\xE4"));
        QVERIFY(generated[0].chip.byteFallback);
        QCOMPARE(generated[4].chip.bytes, QByteArray(" big"));
        QVERIFY(generated[5].chip.special);
        QVERIFY(generated[5].chip.bytes.isEmpty());
    }

    void malformedTracesNameTheLine_data() {
        QTest::addColumn<QByteArrayList>("lines");
        QTest::addColumn<int>("line");
        QTest::addColumn<QString>("problem");

        const int attentionLine = indexOf("attention");
        const int samplingLine = indexOf("sampling");
        QVERIFY(attentionLine > 0 && samplingLine > 0);
        auto replaced = [this](int index, const QByteArray& line) {
            QByteArrayList lines = lines_;
            lines[index] = line;
            return lines;
        };
        auto edited = [&](int index, auto edit) {
            QJsonObject object = QJsonDocument::fromJson(lines_[index]).object();
            edit(object);
            return replaced(index, QJsonDocument(object).toJson(QJsonDocument::Compact));
        };

        QTest::newRow("not JSON") << replaced(2, "{\"event\": \"step_begin\", ") << 3 << "JSON";
        QTest::newRow("binary garbage")
            << QByteArrayList{QByteArray("\x00\xff\x13\x80", 4)} << 1 << "JSON";
        QTest::newRow("unknown event")
            << edited(1, [](QJsonObject& o) { o["event"] = "step_start"; }) << 2 << "unknown event";
        QTest::newRow("attention row too short") << edited(attentionLine, [](QJsonObject& o) {
            QJsonArray rows = o["weights"].toArray();
            QJsonArray last = rows.last().toArray();
            last.removeLast();
            rows.replace(rows.size() - 1, last);
            o["weights"] = rows;
        }) << attentionLine + 1 << "row";
        QTest::newRow("missing piece")
            << edited(samplingLine, [](QJsonObject& o) { o.remove("chosen_piece"); })
            << samplingLine + 1 << "'chosen_piece' is missing";
        // A server's report (remote/) on a sampling event.
        QTest::newRow("server mass above 1") << edited(samplingLine, [](QJsonObject& o) {
            o["server"] =
                QJsonObject{{"known_mass", 1.5}, {"texts", QJsonArray{}}, {"chosen_text", "x"}};
        }) << samplingLine + 1 << "'known_mass'";
        QTest::newRow("server text not a string") << edited(samplingLine, [](QJsonObject& o) {
            o["server"] =
                QJsonObject{{"known_mass", 0.5}, {"texts", QJsonArray{1}}, {"chosen_text", "x"}};
        }) << samplingLine + 1 << "'texts'";
        QTest::newRow("ill-typed step")
            << edited(1, [](QJsonObject& o) { o["step"] = "0"; }) << 2 << "'step'";
        QTest::newRow("no tokenized event") << lines_.mid(1) << 1 << "before 'tokenized'";

        QByteArrayList cut = lines_.mid(0, 5);
        cut[4].truncate(cut[4].size() / 2);
        QTest::newRow("truncated inside a line") << cut << 5 << "JSON";
        QTest::newRow("truncated after a line")
            << lines_.mid(0, lines_.size() - 1) << int(lines_.size()) << "'finished'";
        QTest::newRow("empty") << QByteArrayList{} << 1 << "'tokenized'";
    }

    void malformedTracesNameTheLine() {
        QFETCH(QByteArrayList, lines);
        QFETCH(int, line);
        QFETCH(QString, problem);
        const QString path = dir_.filePath("bad.jsonl");
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(lines.join('\n'));
        file.close();
        try {
            readTrace(path);
            QFAIL("the trace was accepted");
        } catch (const std::exception& error) {
            const QString message = QString::fromUtf8(error.what());
            QVERIFY2(message.startsWith(path + ": line " + QString::number(line) + ": "),
                     qPrintable(message));
            QVERIFY2(message.contains(problem), qPrintable(message));
        }
    }

    void emptyLinesAreSkippedAndAMissingFileIsNamed() {
        QByteArrayList spaced = lines_;
        spaced.insert(1, "");
        spaced.insert(3, "  ");
        const QString path = dir_.filePath("spaced.jsonl");
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(spaced.join('\n') + '\n');
        file.close();
        QCOMPARE(readTrace(path).events.size(), readTrace(tracePath_).events.size());

        const QString missing = dir_.filePath("missing.jsonl");
        try {
            readTrace(missing);
            QFAIL("a missing file was read");
        } catch (const std::exception& error) {
            QVERIFY(QString::fromUtf8(error.what()).startsWith(missing));
        }
    }

  private:
    int indexOf(const char* event) const {
        for (int i = 0; i < lines_.size(); ++i)
            if (QJsonDocument::fromJson(lines_[i])["event"].toString() == event)
                return i;
        return -1;
    }

    QTemporaryDir dir_;
    QString tracePath_;
    QByteArrayList lines_;
};

QTEST_GUILESS_MAIN(TestTraceReader)
#include "test_trace_reader.moc"
