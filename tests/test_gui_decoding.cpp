// Decoding strategies in the app, on the bundled model, offscreen. With Beams above 1 the answer
// is a beam search's: the tree panel grows one step per beamStep, the chat gets the best
// hypothesis, which equals what the engine's own beam search finds for the same prompt, the
// winner's path is highlighted, the KV panel counts the other beams' caches, and Stop ends the
// search with its live beams. A JSON schema given to the app makes every answer parse. A grammar
// file that cannot be read ends a headless run with its reason.

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "beam_tree_panel.h"
#include "beam_tree_widget.h"
#include "chat_view.h"
#include "decoding/beam_search.h"
#include "generator.h"
#include "main_window.h"
#include "sampling_chart_widget.h"
#include "sampling_controls.h"
#include "support/app_windows.h"
#include "tokenizer/chat_template.h"
#include "tokenizer/tokenizer.h"

using namespace inferlens;
using namespace inferlens::gui;

namespace {

// The engine's own beam search on the same prompt, without the app.
BeamSearchResult engineBeamSearch(const std::vector<int32_t>& prompt, int width, int maxTokens) {
    const Model model = Model::open(INFERLENS_BUNDLED_MODEL);
    const Tokenizer tokenizer(model.files());
    const ChatTemplate chat(chooseChatTemplate(model.files(), "").kind, tokenizer);
    GeneratorOptions generatorOptions;
    generatorOptions.threads = 1;
    generatorOptions.contextSize = int64_t(prompt.size()) + maxTokens + 1;
    const auto backend = makeForwardBackend(model, generatorOptions);
    BackendBeamScorer scorer(*backend);
    BeamSearchOptions options;
    options.width = width;
    options.maxNewTokens = maxTokens;
    options.stopIds = chat.stopIds();
    options.sampleableCount = tokenizer.tokenCount();
    return beamSearch(scorer, prompt, options);
}

}  // namespace

class TestGuiDecoding : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() { test::startFresh(); }

    void beamSearchAnswersAndItsTreeGrows() {
        MainWindow window(test::bundledWindow(6));
        QVERIFY(test::waitForModel(window));
        window.samplingControls()->setBeamWidth(3);
        // The sampler's settings do not apply to beam search: greyed out.
        QVERIFY(!window.samplingControls()->findChildren<QSlider*>().front()->isEnabled());
        QSignalSpy tokenized(window.worker(), &EngineWorker::tokenized);
        QSignalSpy steps(window.worker(), &EngineWorker::beamStep);
        QSignalSpy searched(window.worker(), &EngineWorker::beamSearchFinished);
        QSignalSpy generated(window.worker(), &EngineWorker::tokenGenerated);
        QSignalSpy kv(window.worker(), &EngineWorker::kvCache);
        QSignalSpy finished(window.worker(), &EngineWorker::generationFinished);
        window.chat()->send(QStringLiteral("《春晓》"));
        QVERIFY(test::waitForSignals(finished, 120000));
        QVERIFY(QTest::qWaitFor([&] { return !window.generating(); }, 10000));
        QVERIFY2(finished.at(0).at(2).toBool(), qPrintable(finished.at(0).at(1).toString()));
        QCOMPARE(searched.count(), 1);
        const auto summary = searched.at(0).at(0).value<BeamSearchSummary>();

        // The same search by the engine alone.
        std::vector<int32_t> prompt;
        for (const widgets::TokenChip& chip :
             tokenized.at(0).at(0).value<std::vector<widgets::TokenChip>>())
            prompt.push_back(chip.id);
        const BeamSearchResult expected = engineBeamSearch(prompt, 3, 6);
        QCOMPARE(summary.steps, expected.steps);
        QCOMPARE(summary.winner, expected.hypotheses.front().node);
        QCOMPARE(summary.hypotheses.size(), qsizetype(expected.hypotheses.size()));
        const std::vector<int32_t>& best = expected.hypotheses.front().tokens;
        QCOMPARE(generated.count(), qsizetype(best.size()));
        for (size_t i = 0; i < best.size(); ++i)
            QCOMPARE(generated.at(qsizetype(i)).at(0).value<widgets::TokenChip>().id, best[i]);
        QCOMPARE(finished.at(0).at(0).toString(), summary.hypotheses.front().text);

        // The tree: one beamStep per step, every node drawn into the panel, the winner lit.
        QCOMPARE(steps.count(), qsizetype(expected.steps));
        const widgets::BeamTreeWidget* tree = window.beamTree()->tree();
        QCOMPARE(tree->nodeCount(), int(expected.nodes.size()));
        QCOMPARE(tree->steps(), int(expected.steps));
        QCOMPARE(tree->winner(), summary.winner);
        for (const BeamNode& node : expected.nodes) {
            QCOMPARE(tree->node(node.id).parent, node.parent);
            QVERIFY(std::abs(tree->node(node.id).logProbability - node.logProbability) < 1e-9);
        }
        QVERIFY(window.beamTree()->summaryText().contains(
            summary.hypotheses.front().text.toHtmlEscaped()));

        // The KV panel: every step counted the other beams' caches.
        QCOMPARE(kv.count(), qsizetype(expected.steps));
        const auto last = kv.at(kv.count() - 1).at(0).value<widgets::KvCachePoint>();
        QCOMPARE(last.beams, 3);
        QVERIFY(last.bytesOtherBeams > 0);
        QCOMPARE(last.tokens, qint64(prompt.size()) + expected.steps - 1);

        // Back to one beam: sampling again, and its panels fill as before.
        window.samplingControls()->setBeamWidth(1);
        window.samplingControls()->setTemperature(0);
        QSignalSpy sampled(window.worker(), &EngineWorker::sampling);
        finished.clear();
        window.chat()->send(QStringLiteral("Tell me a fortune."));
        QVERIFY(test::waitForSignals(finished, 60000));
        QVERIFY(finished.at(0).at(2).toBool());
        QVERIFY(sampled.count() > 0);
        QCOMPARE(steps.count(), qsizetype(expected.steps));  // no beam search ran
    }

    void stopEndsABeamSearchWithItsLiveBeams() {
        MainWindow window(test::bundledWindow(200));
        QVERIFY(test::waitForModel(window));
        window.samplingControls()->setBeamWidth(4);
        QSignalSpy steps(window.worker(), &EngineWorker::beamStep);
        QSignalSpy searched(window.worker(), &EngineWorker::beamSearchFinished);
        QSignalSpy finished(window.worker(), &EngineWorker::generationFinished);
        window.worker()->control().pause();  // so that the stop comes mid-search
        window.chat()->send(QStringLiteral("《春晓》"));
        QVERIFY(test::waitForSignals(steps, 60000));
        emit window.chat()->stopRequested();
        QVERIFY(test::waitForSignals(finished, 60000));
        QVERIFY(QTest::qWaitFor([&] { return !window.generating(); }, 10000));
        QCOMPARE(finished.at(0).at(1).toString(), QStringLiteral("cancelled"));
        const auto summary = searched.at(0).at(0).value<BeamSearchSummary>();
        QVERIFY(summary.stopped);
        QCOMPARE(summary.steps, qint64(1));
        QVERIFY(!summary.hypotheses.isEmpty());
        QVERIFY(window.beamTree()->summaryText().contains(QStringLiteral("(stopped)")));
    }

    void aJsonSchemaMakesEveryAnswerParse() {
        QTemporaryDir dir;
        const QString schema = dir.filePath(QStringLiteral("person.json"));
        QFile file(schema);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(
            "{\"type\": \"object\", \"properties\": {\"name\": {\"type\": \"string\", "
            "\"maxLength\": 8}, \"age\": {\"type\": \"integer\"}}, "
            "\"required\": [\"name\", \"age\"]}");
        file.close();
        StartupOptions options = test::bundledWindow(40);
        options.grammar = schema;
        MainWindow window(options);
        QVERIFY(test::waitForModel(window));
        for (const int seed : {1, 2, 3}) {
            window.samplingControls()->setTemperature(1.0);
            QSignalSpy finished(window.worker(), &EngineWorker::generationFinished);
            window.chat()->send(QStringLiteral("Describe a person as JSON, seed %1").arg(seed));
            QVERIFY(test::waitForSignals(finished, 60000));
            QVERIFY(QTest::qWaitFor([&] { return !window.generating(); }, 10000));
            const QString answer = finished.at(0).at(0).toString();
            QJsonParseError error;
            const QJsonDocument json = QJsonDocument::fromJson(answer.toUtf8(), &error);
            QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(answer));
            QVERIFY(json.object().value("name").isString());
            QVERIFY(json.object().value("age").isDouble());
            for (const widgets::SamplingStep& step : window.samplingSteps())
                QVERIFY(step.grammarAllowed > 0);
        }
    }

    void anUnreadableGrammarEndsAHeadlessRunWithItsReason() {
        QProcess app;
        app.setProcessChannelMode(QProcess::SeparateChannels);
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert("QT_QPA_PLATFORM", "offscreen");
        app.setProcessEnvironment(environment);
        app.start(INFERLENS_GUI_PATH,
                  {"--model", INFERLENS_BUNDLED_MODEL, "--grammar", "/nonexistent/g.gbnf",
                   "--prompt", "hi", "--quit-after-generation"});
        QVERIFY(app.waitForFinished(60000));
        QCOMPARE(app.exitCode(), 1);
        const QString error = QString::fromUtf8(app.readAllStandardError());
        QVERIFY2(error.contains("/nonexistent/g.gbnf: cannot read the file"), qPrintable(error));
    }
};

QTEST_MAIN(TestGuiDecoding)
#include "test_gui_decoding.moc"
