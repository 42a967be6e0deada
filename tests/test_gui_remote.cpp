// The app on a model that a real llama-server serves (tools/build_llama_cpp.sh, SmolLM2-135M-
// Instruct from PyPI; without either the tests skip and say why): the answer streams into the chat
// and the panels that a server can feed, the others say why they are empty, local-only controls
// are greyed out, a server killed mid-answer leaves the conversation and a usable app, and 2,000
// streamed tokens keep the UI thread under the project's stall limit.

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QTimer>

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>

#include "branch_compare_widget.h"
#include "chat_view.h"
#include "connect_dialog.h"
#include "engine_worker.h"
#include "main_window.h"
#include "sampling_chart_widget.h"
#include "sampling_controls.h"
#include "support/app_windows.h"
#include "support/fault_proxy.h"
#include "support/llama_server_process.h"
#include "support/pypi_files.h"
#include "support/wall_clock_budget.h"
#include "token_arrival_widget.h"
#include "trace_reader.h"
#include "unavailable_note.h"

using namespace inferlens;
using namespace inferlens::gui;
using namespace inferlens::test;

namespace {

// 2,000 tokens in the normal build; under a sanitizer, whose GUI runs several times slower beside
// a server and another test on two cores, fewer (the memory checks see the same code).
constexpr int kStreamedTokens = kSanitizerSlowdown > 1 ? 400 : 2000;

StartupOptions remoteWindow(const std::string& url, int maxTokens) {
    StartupOptions options;
    options.remote = QString::fromStdString(url);
    options.maxTokens = maxTokens;
    return options;
}

// The note over a dock's panel, if the dock has one and it is shown.
bool noteShownOver(MainWindow& window, const char* dock) {
    const auto* panel = window.findChild<QDockWidget*>(dock)->widget();
    const auto* note = panel->findChild<UnavailableNote*>();
    return note != nullptr && note->isVisibleTo(panel);
}

// The text of the tokens that a spy on EngineWorker::tokenGenerated saw, in order.
QString streamedText(const QSignalSpy& generated) {
    QString text;
    for (const QList<QVariant>& token : generated)
        text += token.at(1).toString();
    return text;
}

// Whether a spy on EngineWorker::sampling saw exactly the steps 0, 1, …, count − 1, in order: one
// answer, counted without a gap or a restart.
bool stepsCountedInOrder(const QSignalSpy& sampled, int count) {
    if (sampled.count() != count)
        return false;
    for (int i = 0; i < count; ++i)
        if (sampled.at(i).at(0).value<widgets::SamplingStep>().step != i)
            return false;
    return true;
}

// The answer requests that went through `proxy` from its `from`-th posted body on (streamed chat
// completions; not the context fit's /apply-template or /tokenize), in order.
std::vector<nlohmann::json> answerRequests(const FaultProxy& proxy, size_t from = 0) {
    const std::vector<std::string> bodies = proxy.postedBodies();
    std::vector<nlohmann::json> answers;
    for (size_t i = from; i < bodies.size(); ++i) {
        nlohmann::json request = nlohmann::json::parse(bodies[i], nullptr, false);
        if (request.is_object() && request.contains("messages") && request.value("stream", false))
            answers.push_back(std::move(request));
    }
    return answers;
}

// Runs `fill` on the Connect dialog once File → Connect to server… has opened it (modal).
void whenConnectDialogOpens(const std::function<void(ConnectDialog&)>& fill) {
    auto* poll = new QTimer;
    QObject::connect(poll, &QTimer::timeout, [poll, fill] {
        if (auto* dialog = qobject_cast<ConnectDialog*>(QApplication::activeModalWidget())) {
            poll->deleteLater();
            poll->stop();
            fill(*dialog);
        }
    });
    poll->start(20);
}

QAction* connectAction(MainWindow& window) {
    for (QAction* action : window.findChildren<QAction*>())
        if (action->text() == QStringLiteral("&Connect to server…"))
            return action;
    return nullptr;
}

}  // namespace

class TestGuiRemote : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        startFresh();
        QString reason;
        const RealServerFiles files = findRealServerFiles(reason);
        if (files.model.isEmpty()) {
            if (reason.startsWith("FAILED"))
                QFAIL(qPrintable(reason));
            QSKIP(qPrintable(reason));
        }
        binary_ = files.binary;
        model_ = files.model;
        server_ = std::make_unique<LlamaServerProcess>(binary_, model_);
        QVERIFY2(server_->ready(), qPrintable(server_->output()));
    }

    // No conversation carried over from the test before (the app restores its last one).
    void init() { startFresh(); }

    void anAnswerFromTheServerReachesThePanels() {
        MainWindow window(remoteWindow(server_->url(), 24));
        QVERIFY(waitForModel(window));
        QVERIFY(noteShownOver(window, "attentionDock"));
        QVERIFY(noteShownOver(window, "kvCacheDock"));
        QVERIFY(!noteShownOver(window, "samplingDock"));
        int greyedWithReason = 0;  // beam width and min new tokens
        for (const QWidget* field : window.samplingControls()->findChildren<QWidget*>())
            greyedWithReason += !field->isEnabled() && field->toolTip().startsWith(
                                                           "Not available for a model on a server");
        QVERIFY(greyedWithReason >= 2);
        QSignalSpy sampled(window.worker(), &EngineWorker::sampling);
        QSignalSpy finished(window.worker(), &EngineWorker::generationFinished);
        QSignalSpy traced(window.worker(), &EngineWorker::traceRecorded);
        window.samplingControls()->setTemperature(0);
        window.chat()->send(QStringLiteral("Name three colours."));
        QVERIFY(waitForSignals(finished, 60000));
        QVERIFY2(finished.at(0).at(2).toBool(), qPrintable(finished.at(0).at(1).toString()));
        const int tokens = window.tokensGenerated();
        QVERIFY(tokens >= 1 && tokens <= 24);
        QCOMPARE(sampled.count(), tokens);
        const auto step = sampled.last().at(0).value<widgets::SamplingStep>();
        QVERIFY(step.fromServer);
        QVERIFY(step.unknownMass >= 0 && step.unknownMass < 1);
        QVERIFY(window.samplingChart()->unknownTailValue());
        const auto* arrival = window.findChild<widgets::TokenArrivalWidget*>();
        QVERIFY(arrival->firstTokenMs() > 0);
        QCOMPARE(int(arrival->waitsMs().size()), tokens - 1);
        QVERIFY(!finished.at(0).at(0).toString().isEmpty());
        // The run's trace (Export trace) reads back as the server's steps, the unknown rest kept.
        QCOMPARE(traced.count(), 1);
        const RecordedTrace recorded = readTrace(traced.at(0).at(0).toString());
        int serverSteps = 0;
        for (const TraceEvent& event : recorded.events)
            if (const auto* read = std::get_if<widgets::SamplingStep>(&event)) {
                serverSteps += read->fromServer;
                QVERIFY(read->unknownMass >= 0 && read->unknownMass < 1);
            }
        QCOMPARE(serverSteps, tokens);
        qInfo("%d tokens from the server; longest UI stall %.1f ms", tokens,
              window.longestStallMs());
        QVERIFY(window.longestStallMs() < kUiStallLimitMs);
    }

    // A click on another candidate continues the answer from there on the server: the branch
    // shares the answer's tokens up to the step, then has the forced one, then new ones.
    void aBranchContinuesFromTheForcedCandidate() {
        MainWindow window(remoteWindow(server_->url(), 12));
        QVERIFY(waitForModel(window));
        window.samplingControls()->setTemperature(0);
        QSignalSpy finished(window.worker(), &EngineWorker::generationFinished);
        window.chat()->send(QStringLiteral("Name three colours."));
        QVERIFY(waitForSignals(finished, 60000));
        QVERIFY(finished.at(0).at(2).toBool());
        QCOMPARE(window.branches()->branchCount(), 1);
        const widgets::SamplingStep step = window.samplingChart()->step();
        QVERIFY(step.candidates.size() >= 2);
        finished.clear();
        emit window.samplingChart()->candidateClicked(1);
        QVERIFY(waitForSignals(finished, 60000));
        QVERIFY2(finished.at(0).at(2).toBool(), qPrintable(finished.at(0).at(1).toString()));
        QCOMPARE(window.branches()->branchCount(), 2);
        const widgets::BranchRecord& answer = window.branches()->branch(0);
        const widgets::BranchRecord& branch = window.branches()->branch(1);
        QCOMPARE(branch.divergeAt, step.step);
        QVERIFY(branch.tokens.size() > size_t(step.step) + 1);  // new tokens after the forced one
        for (int i = 0; i < step.step; ++i)
            QCOMPARE(branch.tokens[size_t(i)].text, answer.tokens[size_t(i)].text);
        QVERIFY(branch.tokens[size_t(step.step)].forced);
        QVERIFY(branch.tokens[size_t(step.step)].probability > 0);
    }

    // A setting changed while the answer streams applies at once: the request ends and the app
    // asks again from the answer so far with the new setting; the panels go on with one answer.
    void aSettingChangedMidAnswerResumesTheAnswerWithIt() {
        FaultProxy proxy(server_->url());  // no fault: it shows what the app asked for
        MainWindow window(remoteWindow(proxy.url(), 48));
        QVERIFY(waitForModel(window));
        window.samplingControls()->setLogitBiasText(QStringLiteral("0=-inf, 1=-inf, 2=-inf"));
        window.samplingControls()->setTemperature(0);
        QSignalSpy generated(window.worker(), &EngineWorker::tokenGenerated);
        QSignalSpy sampled(window.worker(), &EngineWorker::sampling);
        QSignalSpy notices(window.worker(), &EngineWorker::notice);
        QSignalSpy finished(window.worker(), &EngineWorker::generationFinished);
        QSignalSpy traced(window.worker(), &EngineWorker::traceRecorded);
        window.chat()->send(QStringLiteral("Write a long story about a lighthouse."));
        QVERIFY(QTest::qWaitFor([&] { return generated.count() >= 4; }, 60000));
        window.samplingControls()->setTemperature(1.5);
        QVERIFY(waitForSignals(finished, 60000));
        QVERIFY2(finished.at(0).at(2).toBool(), qPrintable(finished.at(0).at(1).toString()));

        // One answer of the asked length, its steps counted without a gap or a restart.
        QCOMPARE(window.tokensGenerated(), 48);
        QVERIFY(stepsCountedInOrder(sampled, 48));
        const QString streamed = streamedText(generated);
        QCOMPARE(finished.at(0).at(0).toString(), streamed);
        bool told = false;
        for (const QList<QVariant>& notice : notices)
            told = told || notice.at(0).toString().startsWith("The settings changed at token");
        QVERIFY(told);

        // What was asked: the first request at temperature 0, then the answer so far as the
        // final assistant message to go on from, at the new temperature.
        const std::vector<nlohmann::json> chats = answerRequests(proxy);
        QVERIFY(chats.size() >= 2);
        QCOMPARE(chats.front().value("temperature", -1.0), 0.0);
        QCOMPARE(chats.back().value("temperature", -1.0), 1.5);
        const nlohmann::json& resumed = chats.back()["messages"].back();
        QCOMPARE(resumed.value("role", ""), std::string("assistant"));
        const QString answerSoFar = QString::fromStdString(resumed.value("content", ""));
        QVERIFY(!answerSoFar.isEmpty() && streamed.startsWith(answerSoFar));

        // The trace holds the one answer: every step once, in order.
        QCOMPARE(traced.count(), 1);
        int traceSteps = 0;
        for (const TraceEvent& event : readTrace(traced.at(0).at(0).toString()).events)
            if (const auto* step = std::get_if<widgets::SamplingStep>(&event))
                QCOMPARE(step->step, traceSteps++);
        QCOMPARE(traceSteps, 48);
    }

    // Pause on a server's answer: the request ends at once and nothing streams while paused;
    // Resume asks the server to go on from the answer so far, which stays one answer. Stop while
    // paused ends the answer as it is. Stepping is greyed out, with the reason.
    void pauseHoldsAServerAnswerUntilResume() {
        FaultProxy proxy(server_->url());
        MainWindow window(remoteWindow(proxy.url(), 48));
        QVERIFY(waitForModel(window));
        for (const char* name : {"stepTokenAction", "stepLayerAction"}) {
            const auto* step = window.findChild<QAction*>(QString::fromLatin1(name));
            QVERIFY(!step->isEnabled());
            QVERIFY(step->toolTip().startsWith("Not for a model on a server"));
        }
        window.samplingControls()->setLogitBiasText(QStringLiteral("0=-inf, 1=-inf, 2=-inf"));
        window.samplingControls()->setTemperature(0);
        QSignalSpy generated(window.worker(), &EngineWorker::tokenGenerated);
        QSignalSpy sampled(window.worker(), &EngineWorker::sampling);
        QSignalSpy notices(window.worker(), &EngineWorker::notice);
        QSignalSpy finished(window.worker(), &EngineWorker::generationFinished);
        const auto toldPause = [&] {
            for (const QList<QVariant>& notice : notices)
                if (notice.at(0).toString().startsWith("Paused at token"))
                    return true;
            return false;
        };
        window.chat()->send(QStringLiteral("Write a long story about a lighthouse."));
        QVERIFY(QTest::qWaitFor([&] { return generated.count() >= 4; }, 60000));
        window.pauseAction()->setChecked(true);
        QVERIFY(QTest::qWaitFor(toldPause, 30000));
        const int atPause = generated.count();
        QTest::qWait(2000);
        QCOMPARE(generated.count(), atPause);
        QCOMPARE(finished.count(), 0);
        const size_t requestsWhilePaused = proxy.postedBodies().size();
        window.pauseAction()->setChecked(false);
        QVERIFY(waitForSignals(finished, 60000));
        QVERIFY2(finished.at(0).at(2).toBool(), qPrintable(finished.at(0).at(1).toString()));
        QCOMPARE(window.tokensGenerated(), 48);
        QVERIFY(stepsCountedInOrder(sampled, 48));
        const QString streamed = streamedText(generated);
        QCOMPARE(finished.at(0).at(0).toString(), streamed);
        // The answer request after Resume goes on from the answer so far.
        const std::vector<nlohmann::json> resumed = answerRequests(proxy, requestsWhilePaused);
        QVERIFY(!resumed.empty());
        const nlohmann::json& last = resumed.back()["messages"].back();
        QCOMPARE(last.value("role", ""), std::string("assistant"));
        QVERIFY(streamed.startsWith(QString::fromStdString(last.value("content", ""))));

        // Stop while paused: the answer ends with what streamed, and the app goes on.
        generated.clear();
        finished.clear();
        notices.clear();
        window.chat()->send(QStringLiteral("And another one, about a harbour."));
        QVERIFY(QTest::qWaitFor([&] { return generated.count() >= 2; }, 60000));
        window.pauseAction()->setChecked(true);
        QVERIFY(QTest::qWaitFor(toldPause, 30000));
        window.worker()->control().cancel();  // what Stop does
        window.pauseAction()->setChecked(false);
        QVERIFY(waitForSignals(finished, 30000));
        QCOMPARE(finished.at(0).at(1).toString(), QStringLiteral("cancelled"));
        QCOMPARE(finished.at(0).at(0).toString(), streamedText(generated));
        QVERIFY(generated.count() < 48);
    }

    // File → Connect to server… against a real server that wants a key: the dialog lists its
    // models with the right key and says why it cannot with a wrong one or a closed port; the app
    // then connects; the address comes first next time, and the key is kept on disk only when
    // the person ticks the box.
    void theConnectDialogListsModelsAndKeepsTheKeyOnlyWhenTold() {
        LlamaServerProcess keyed(binary_, model_, {"--api-key", "right-key"});
        QVERIFY2(keyed.ready(), qPrintable(keyed.output()));
        const QString url = QString::fromStdString(keyed.url());
        {
            ConnectDialog dialog;
            auto* address = dialog.findChild<QComboBox*>("serverUrl");
            auto* key = dialog.findChild<QLineEdit*>("apiKey");
            auto* list = dialog.findChild<QPushButton*>("listModels");
            auto* status = dialog.findChild<QLabel*>("connectStatus");
            auto* models = dialog.findChild<QComboBox*>("serverModel");
            QCOMPARE(address->currentText(), QStringLiteral("http://127.0.0.1:8080"));
            QCOMPARE(address->count(), 0);  // no server used before
            const auto listed = [&](const QString& start) {
                list->click();
                return QTest::qWaitFor(
                    [&] { return list->isEnabled() && status->text().startsWith(start); }, 30000);
            };
            address->setEditText(url);
            key->setText(QStringLiteral("wrong-key"));
            QVERIFY2(listed("Cannot list the models: the server refused the API key"),
                     qPrintable(status->text()));
            QVERIFY(!status->text().contains("wrong-key"));
            key->setText(QStringLiteral("right-key"));
            QVERIFY2(listed("1 model served"), qPrintable(status->text()));
            QCOMPARE(models->count(), 1);
            QVERIFY(!models->currentText().isEmpty());
            address->setEditText("http://127.0.0.1:" + QString::number(freeLoopbackPort()));
            QVERIFY2(listed("Cannot list the models: cannot connect to 127.0.0.1:"),
                     qPrintable(status->text()));
        }

        MainWindow window(remoteWindow(server_->url(), 8));
        QVERIFY(waitForModel(window));
        QAction* action = connectAction(window);
        QVERIFY(action != nullptr);
        const auto connectThroughTheDialog = [&](bool rememberKey) {
            QSignalSpy loaded(window.worker(), &EngineWorker::modelLoaded);
            whenConnectDialogOpens([&](ConnectDialog& dialog) {
                dialog.findChild<QComboBox*>("serverUrl")->setEditText(url);
                dialog.findChild<QLineEdit*>("apiKey")->setText(QStringLiteral("right-key"));
                dialog.findChild<QCheckBox*>("rememberKey")->setChecked(rememberKey);
                dialog.accept();
            });
            action->trigger();
            return waitForSignals(loaded, 60000) &&
                   loaded.at(0).at(0).value<ModelSummary>().remote && waitForModel(window);
        };
        QVERIFY(connectThroughTheDialog(false));
        QSettings settings;
        QCOMPARE(settings.value("remote/recentServers").toStringList().value(0), url);
        settings.sync();
        QFile file(settings.fileName());
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(!file.readAll().contains("right-key"));  // not asked to: never written
        {
            ConnectDialog dialog;
            QCOMPARE(dialog.findChild<QComboBox*>("serverUrl")->currentText(), url);
            QVERIFY(dialog.findChild<QLineEdit*>("apiKey")->text().isEmpty());
            QVERIFY(!dialog.findChild<QCheckBox*>("rememberKey")->isChecked());
        }
        QVERIFY(connectThroughTheDialog(true));
        {
            ConnectDialog dialog;
            QCOMPARE(dialog.findChild<QLineEdit*>("apiKey")->text(), QStringLiteral("right-key"));
            QVERIFY(dialog.findChild<QCheckBox*>("rememberKey")->isChecked());
        }
        // Eight addresses are remembered, the newest first.
        for (int i = 0; i < 9; ++i)
            ConnectDialog::remember({QStringLiteral("http://host%1:8000").arg(i), {}, {}, {}},
                                    false);
        const QStringList recent = QSettings().value("remote/recentServers").toStringList();
        QCOMPARE(recent.size(), 8);
        QCOMPARE(recent.first(), QStringLiteral("http://host8:8000"));
        QVERIFY(!recent.contains(QStringLiteral("http://host0:8000")));
    }

    void aKilledServerLeavesTheConversationAndAUsableApp() {
        auto doomed = std::make_unique<LlamaServerProcess>(binary_, model_);
        QVERIFY(doomed->ready());
        MainWindow window(remoteWindow(doomed->url(), 1500));
        QVERIFY(waitForModel(window));
        QSignalSpy generated(window.worker(), &EngineWorker::tokenGenerated);
        QSignalSpy finished(window.worker(), &EngineWorker::generationFinished);
        window.chat()->send(QStringLiteral("Write a long story about a lighthouse."));
        QVERIFY(generated.count() >= 3 ||
                QTest::qWaitFor([&] { return generated.count() >= 3; }, 30000));
        doomed->kill();
        QVERIFY(waitForSignals(finished, 30000));
        QVERIFY(!finished.at(0).at(2).toBool());
        const QString message = finished.at(0).at(1).toString();
        QVERIFY2(message.contains("lost") || message.contains("connect"), qPrintable(message));
        const QList<ChatTurn> kept = window.chat()->conversation();
        QVERIFY(!kept.isEmpty());
        QCOMPARE(kept.first().text, QStringLiteral("Write a long story about a lighthouse."));
        QVERIFY(kept.first().user);

        // Usable: the next server takes the next question.
        QSignalSpy loaded(window.worker(), &EngineWorker::modelLoaded);
        QMetaObject::invokeMethod(window.worker(), "connectToServer", Qt::QueuedConnection,
                                  Q_ARG(QString, QString::fromStdString(server_->url())),
                                  Q_ARG(QString, QString()), Q_ARG(QString, QString()),
                                  Q_ARG(QString, QString()));
        QVERIFY(waitForSignals(loaded, 30000));
        QVERIFY(QTest::qWaitFor([&] { return window.modelReady(); }, 5000));
        finished.clear();
        window.chat()->send(QStringLiteral("And a short one?"));
        QVERIFY(waitForSignals(finished, 60000));
        QVERIFY2(finished.at(0).at(2).toBool(), qPrintable(finished.at(0).at(1).toString()));
    }

    // The end-of-turn tokens are banned (logit bias), so that the server streams all 2,000.
    void twoThousandStreamedTokensKeepTheUiFluid() {
        MainWindow window(remoteWindow(server_->url(), kStreamedTokens));
        QVERIFY(waitForModel(window));
        window.samplingControls()->setLogitBiasText(QStringLiteral("0=-inf, 1=-inf, 2=-inf"));
        QSignalSpy finished(window.worker(), &EngineWorker::generationFinished);
        window.chat()->send(QStringLiteral("Count from one onwards."));
        QVERIFY(waitForSignals(finished, int(wallClockBudgetMs(400000))));
        QVERIFY2(finished.at(0).at(2).toBool(), qPrintable(finished.at(0).at(1).toString()));
        qInfo("%d streamed tokens; longest UI stall %.1f ms (limit %.0f, goal 50)",
              window.tokensGenerated(), window.longestStallMs(), kUiStallLimitMs);
        QCOMPARE(window.tokensGenerated(), kStreamedTokens);
        QVERIFY(window.longestStallMs() < kUiStallLimitMs);
    }

  private:
    QString binary_, model_;
    std::unique_ptr<LlamaServerProcess> server_;
};

QTEST_MAIN(TestGuiRemote)
#include "test_gui_remote.moc"
