// The desktop app end to end on the bundled model, offscreen: a chat message generates tokens that
// reach every panel step by step; the tokens shown are the tokens generated; a sampling change in
// the middle of a generation applies from the next token; pause and stop work mid-generation; the
// UI thread never stalls long; the headless switches run a whole session and write a screenshot.

#include <QImage>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "chat_view.h"
#include "main_window.h"
#include "sampling_controls.h"
#include "token_strip_widget.h"

using namespace inferlens;
using namespace inferlens::gui;

namespace {

constexpr double kStallLimitMs = 250;

StartupOptions bundled(int maxTokens) {
    StartupOptions options;
    options.model = QStringLiteral(INFERLENS_BUNDLED_MODEL);
    options.maxTokens = maxTokens;
    return options;
}

// The worker may announce the model before a spy could connect: ask the window instead.
bool waitForModel(const MainWindow& window) {
    return QTest::qWaitFor([&] { return window.modelReady(); }, 60000);
}

}  // namespace

class TestGuiEndToEnd : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();  // no conversation or layout left by an earlier run
    }

    void anUnansweredQuestionIsSupersededByTheNextOne() {
        ChatView chat;
        QSignalSpy requested(&chat, &ChatView::answerRequested);
        chat.setConversation({{true, "left over"}});
        chat.send("new question");
        QCOMPARE(requested.count(), 1);
        const auto turns = requested.at(0).at(0).value<QList<ChatTurn>>();
        QCOMPARE(turns.size(), 1);
        QCOMPARE(turns[0].text, QString("new question"));
    }

    void everyPanelReceivesEveryStep() {
        MainWindow window(bundled(12));
        QVERIFY(waitForModel(window));
        QSignalSpy tokenized(window.worker(), &EngineWorker::tokenized);
        QSignalSpy generated(window.worker(), &EngineWorker::tokenGenerated);
        QSignalSpy sampled(window.worker(), &EngineWorker::sampling);
        QSignalSpy kv(window.worker(), &EngineWorker::kvCache);
        QSignalSpy finished(window.worker(), &EngineWorker::generationFinished);
        window.samplingControls()->setTemperature(1.0);  // sampled: long enough to hit the limit
        window.chat()->send(QStringLiteral("Tell me a fortune."));
        QVERIFY(finished.count() > 0 || finished.wait(60000));
        QVERIFY(finished.at(0).at(2).toBool());

        const int tokens = window.tokensGenerated();
        QCOMPARE(generated.count(), tokens);
        QVERIFY(tokens >= 1 && tokens <= 12);
        QCOMPARE(sampled.count(), tokens);
        // One step for the prompt, then one per generated token except the last (it is chosen,
        // not run).
        QCOMPARE(window.stepsReceived(), tokens);
        QCOMPARE(kv.count(), tokens);
        QCOMPARE(tokenized.count(), 1);
        const auto promptChips = tokenized.at(0).at(0).value<std::vector<widgets::TokenChip>>();
        QCOMPARE(window.tokenStrip()->tokenCount(), int(promptChips.size()) + tokens);
        qInfo("%d tokens; longest UI stall %.1f ms", tokens, window.longestStallMs());
        QVERIFY(window.longestStallMs() < kStallLimitMs);
    }

    void aSamplingChangeAppliesFromTheNextToken() {
        MainWindow window(bundled(40));
        QVERIFY(waitForModel(window));
        window.samplingControls()->setTemperature(0);  // greedy: the chosen token has p = 1
        QSignalSpy sampled(window.worker(), &EngineWorker::sampling);
        QSignalSpy finished(window.worker(), &EngineWorker::generationFinished);
        window.worker()->control().pause();
        window.chat()->send(QStringLiteral("背一首李白的诗。"));
        window.worker()->control().stepToken();
        QVERIFY(sampled.count() > 0 || sampled.wait(30000));
        QCOMPARE(sampled.last().at(0).value<widgets::SamplingStep>().chosenProbability, 1.0f);
        window.samplingControls()->setTemperature(1.5);
        window.worker()->control().resume();
        QVERIFY(finished.count() > 0 || finished.wait(60000));
        QVERIFY(sampled.count() >= 2);
        bool sampledAfterwards = false;
        for (int i = 1; i < sampled.count(); ++i)
            sampledAfterwards |=
                sampled.at(i).at(0).value<widgets::SamplingStep>().chosenProbability < 1.0f;
        QVERIFY(sampledAfterwards);
    }

    void stopEndsAGenerationMidway() {
        MainWindow window(bundled(500));
        QVERIFY(waitForModel(window));
        QSignalSpy generated(window.worker(), &EngineWorker::tokenGenerated);
        QSignalSpy finished(window.worker(), &EngineWorker::generationFinished);
        window.worker()->control().pause();
        window.chat()->send(QStringLiteral("背一首李白的诗。"));  // a long answer
        window.worker()->control().stepToken();
        QVERIFY(generated.count() > 0 || generated.wait(30000));
        window.worker()->control().cancel();
        window.worker()->control().resume();
        QVERIFY(finished.count() > 0 || finished.wait(30000));
        QCOMPARE(finished.at(0).at(1).toString(), QStringLiteral("cancelled"));
        QVERIFY(window.tokensGenerated() < 500);
    }

    void closingMidGenerationIsClean() {
        auto* window = new MainWindow(bundled(500));
        QVERIFY(waitForModel(*window));
        QSignalSpy generated(window->worker(), &EngineWorker::tokenGenerated);
        window->worker()->control().pause();
        window->chat()->send(QStringLiteral("Tell me a fortune."));
        window->worker()->control().stepToken();
        QVERIFY(generated.count() > 0 || generated.wait(30000));
        QElapsedTimer clock;
        clock.start();
        delete window;  // cancels, wakes the paused worker and joins its thread
        QVERIFY(clock.elapsed() < 5000);
    }

    void headlessSwitchesRunASessionAndSaveAScreenshot() {
        QTemporaryDir dir;
        const QString png = dir.filePath("shot.png");
        QProcess process;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert("QT_QPA_PLATFORM", "offscreen");
        environment.insert("XDG_CONFIG_HOME", dir.path());  // leave the user's settings alone
        process.setProcessEnvironment(environment);
        process.start(QStringLiteral(INFERLENS_GUI_PATH),
                      {"--model", QStringLiteral(INFERLENS_BUNDLED_MODEL), "--prompt", "《春晓》",
                       "--max-tokens", "16", "--screenshot", png, "--quit-after-generation"});
        QVERIFY(process.waitForFinished(120000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        QVERIFY(QString::fromUtf8(process.readAllStandardOutput()).contains("longest UI stall"));
        const QImage shot(png);
        QCOMPARE(shot.size(), QSize(1600, 1000));

        process.start(
            QStringLiteral(INFERLENS_GUI_PATH),
            {"--model", dir.filePath("missing.gguf"), "--prompt", "x", "--quit-after-generation"});
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 1);
        QVERIFY(process.readAllStandardError().contains("missing.gguf"));
    }
};

QTEST_MAIN(TestGuiEndToEnd)
#include "test_gui_end_to_end.moc"
