// The desktop app end to end on the bundled model, offscreen: a chat message generates tokens that
// reach every panel step by step; the tokens shown are the tokens generated; a sampling change in
// the middle of a generation applies from the next token; pause and stop work mid-generation; the
// UI thread never stalls long; the attention panels get every head of the selected layer and the
// overview every head of the model, and a new selection recomputes the past rows; clicking a chip
// selects its step everywhere; while paused a slider re-shapes the current step; loading shows the
// memory plan; the language switches live; a generation's trace exports and replays without the
// model; forcing a sampling candidate branches the generation from the new prefix; the headless
// switches run a whole session (or a trace) and write a screenshot.

#include <QCheckBox>
#include <QDialog>
#include <QImage>
#include <QLabel>
#include <QMenu>
#include <QProcess>
#include <QPushButton>
#include <QScopeGuard>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

#include <QMenuBar>

#include "attention_head_grid_widget.h"
#include "attention_heatmap_widget.h"
#include "attention_overview_widget.h"
#include "backend/devices.h"
#include "branch_compare_widget.h"
#include "chat_view.h"
#include "core/error.h"
#include "double_loop_grid_widget.h"
#include "kv_cache_chart_widget.h"
#include "language.h"
#include "main_window.h"
#include "sampling_chart_widget.h"
#include "sampling_controls.h"
#include "support/app_windows.h"
#include "support/wall_clock_budget.h"
#include "token_strip_widget.h"
#include "trace_reader.h"

using namespace inferlens;
using namespace inferlens::gui;

namespace {}  // namespace

class TestGuiEndToEnd : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() { test::startFresh(); }

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
        MainWindow window(test::bundledWindow(12));
        QVERIFY(test::waitForModel(window));
        QSignalSpy tokenized(window.worker(), &EngineWorker::tokenized);
        QSignalSpy generated(window.worker(), &EngineWorker::tokenGenerated);
        QSignalSpy sampled(window.worker(), &EngineWorker::sampling);
        QSignalSpy kv(window.worker(), &EngineWorker::kvCache);
        QSignalSpy finished(window.worker(), &EngineWorker::generationFinished);
        window.samplingControls()->setTemperature(1.0);  // sampled: long enough to hit the limit
        window.chat()->send(QStringLiteral("Tell me a fortune."));
        QVERIFY(test::waitForSignals(finished, 60000));
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
        QVERIFY(window.longestStallMs() < test::kUiStallLimitMs);
    }

    void aSamplingChangeAppliesFromTheNextToken() {
        MainWindow window(test::bundledWindow(40));
        QVERIFY(test::waitForModel(window));
        window.samplingControls()->setTemperature(0);  // greedy: the chosen token has p = 1
        QSignalSpy sampled(window.worker(), &EngineWorker::sampling);
        QSignalSpy finished(window.worker(), &EngineWorker::generationFinished);
        window.worker()->control().pause();
        window.chat()->send(QStringLiteral("背一首李白的诗。"));
        window.worker()->control().stepToken();
        QVERIFY(test::waitForSignals(sampled, 30000));
        QCOMPARE(sampled.last().at(0).value<widgets::SamplingStep>().chosenProbability, 1.0f);
        window.samplingControls()->setTemperature(1.5);
        window.worker()->control().resume();
        QVERIFY(test::waitForSignals(finished, 60000));
        QVERIFY(sampled.count() >= 2);
        bool sampledAfterwards = false;
        for (int i = 1; i < sampled.count(); ++i)
            sampledAfterwards |=
                sampled.at(i).at(0).value<widgets::SamplingStep>().chosenProbability < 1.0f;
        QVERIFY(sampledAfterwards);
    }

    void theAttentionKernelIsChosenInTheDeviceMenuAndRemembered() {
        const auto greedyAnswer = [](MainWindow& window) {
            QSignalSpy finished(window.worker(), &EngineWorker::generationFinished);
            window.samplingControls()->setTemperature(0);
            window.chat()->send(QStringLiteral("Tell me a fortune."));
            return test::waitForSignals(finished, 60000) ? finished.at(0).at(0).toString()
                                                         : QString();
        };
        QFile::remove(ConversationStore().path());  // the same question in a new conversation
        QString fusedAnswer;
        {
            MainWindow window(test::bundledWindow(16));
            QVERIFY(test::waitForModel(window));
            auto* fused = window.findChild<QAction*>(QStringLiteral("fusedAttentionAction"));
            auto* reference =
                window.findChild<QAction*>(QStringLiteral("referenceAttentionAction"));
            QVERIFY(fused != nullptr && reference != nullptr);
            QVERIFY(fused->isChecked() && !reference->isChecked());
            QCOMPARE(window.worker()->attentionKernel(), AttentionKernel::Fused);
            fusedAnswer = greedyAnswer(window);
            QVERIFY(!fusedAnswer.isEmpty());
            reference->trigger();
            QVERIFY(reference->isChecked() && !fused->isChecked());
            QCOMPARE(window.worker()->attentionKernel(), AttentionKernel::Reference);
        }
        QFile::remove(ConversationStore().path());
        const auto restore = qScopeGuard([] { QSettings().remove("engine/attention"); });
        // A new window starts with the kernel chosen last; greedy decoding of the bundled model
        // gives the same answer with either kernel (they differ only by rounding).
        MainWindow window(test::bundledWindow(16));
        QVERIFY(test::waitForModel(window));
        QVERIFY(
            window.findChild<QAction*>(QStringLiteral("referenceAttentionAction"))->isChecked());
        QCOMPARE(window.worker()->attentionKernel(), AttentionKernel::Reference);
        QCOMPARE(greedyAnswer(window), fusedAnswer);
    }

    void aSecondTurnPrefillsOnlyWhatIsNewAndAnswersAsAFullPrefillWould() {
        // Two greedy turns; returns the second answer and the worker's figures for it.
        struct Turns {
            QString secondAnswer;
            qint64 cached = -1, promptTokens = -1;
            int firstStepTokens = -1;  // what the double-loop panel is told the prefill ran
        };
        const auto twoTurns = [](bool keepCache) {
            Turns turns;
            QFile::remove(ConversationStore().path());
            MainWindow window(test::bundledWindow(8));
            if (!test::waitForModel(window))
                return turns;
            auto* keep = window.findChild<QAction*>(QStringLiteral("keepCacheAction"));
            if (keep == nullptr)
                return turns;
            keep->setChecked(keepCache);
            window.samplingControls()->setTemperature(0);
            QSignalSpy finished(window.worker(), &EngineWorker::generationFinished);
            QSignalSpy timed(window.worker(), &EngineWorker::promptTimed);
            window.chat()->send(QStringLiteral("Tell me a fortune."));
            if (!test::waitForSignals(finished, 60000))
                return turns;
            QSignalSpy loop(window.worker(), &EngineWorker::loopTiming);
            window.chat()->send(QStringLiteral("And one more?"));
            if (!test::waitForSignals(finished, 60000, 2) || timed.count() != 2)
                return turns;
            turns.secondAnswer = finished.at(1).at(0).toString();
            turns.cached = timed.at(1).at(0).toLongLong();
            turns.promptTokens = timed.at(1).at(1).toLongLong();
            for (const QList<QVariant>& event : loop) {
                const auto timing = event.at(0).value<widgets::LoopTiming>();
                if (timing.step == 0)
                    turns.firstStepTokens = timing.tokenCount;
            }
            return turns;
        };
        const auto restore = qScopeGuard([] {
            QSettings().remove("engine/keepCache");
            QFile::remove(ConversationStore().path());
        });
        const Turns kept = twoTurns(true);
        const Turns full = twoTurns(false);
        QVERIFY(!kept.secondAnswer.isEmpty());
        // Turn 1's prompt and answer stay in the cache: only turn 2's text is prefilled.
        QVERIFY2(kept.cached > 10 && kept.cached < kept.promptTokens,
                 qPrintable(QString("%1 of %2").arg(kept.cached).arg(kept.promptTokens)));
        QCOMPARE(kept.firstStepTokens, int(kept.promptTokens - kept.cached));
        QCOMPARE(full.cached, qint64(0));
        QCOMPARE(full.firstStepTokens, int(full.promptTokens));
        QCOMPARE(kept.promptTokens, full.promptTokens);
        QCOMPARE(kept.secondAnswer, full.secondAnswer);
    }

    void theKvCacheLayoutIsChosenInTheDeviceMenuAndShownInThePanels() {
        QFile::remove(ConversationStore().path());
        const auto restore = qScopeGuard([] {
            QSettings settings;
            for (const char* key : {"engine/kvType", "engine/window", "engine/sinks"})
                settings.remove(key);
        });
        MainWindow window(test::bundledWindow(48));
        QVERIFY(test::waitForModel(window));
        auto* f32 = window.findChild<QAction*>(QStringLiteral("kvTypef32Action"));
        auto* int8 = window.findChild<QAction*>(QStringLiteral("kvTypeint8Action"));
        auto* slide = window.findChild<QAction*>(QStringLiteral("slidingWindowAction"));
        QVERIFY(f32 != nullptr && int8 != nullptr && slide != nullptr);
        QVERIFY(f32->isChecked());
        int8->trigger();
        QCOMPARE(window.worker()->kvCacheLayout().type, KvType::Int8);
        QCOMPARE(QSettings().value("engine/kvType").toString(), QStringLiteral("int8"));
        slide->trigger();
        auto* dialog = window.findChild<QDialog*>(QStringLiteral("slidingWindowDialog"));
        QVERIFY(dialog != nullptr);
        dialog->findChild<QCheckBox*>(QStringLiteral("slidesBox"))->setChecked(true);
        dialog->findChild<QSpinBox*>(QStringLiteral("windowBox"))->setValue(16);
        dialog->findChild<QSpinBox*>(QStringLiteral("sinksBox"))->setValue(2);
        dialog->accept();
        QCOMPARE(window.worker()->kvCacheLayout().window, qint64(16));
        QCOMPARE(window.worker()->kvCacheLayout().sinks, qint64(2));
        QVERIFY(slide->text().contains(QStringLiteral("16")));

        QSignalSpy kv(window.worker(), &EngineWorker::kvCache);
        QSignalSpy attention(window.worker(), &EngineWorker::attention);
        QSignalSpy finished(window.worker(), &EngineWorker::generationFinished);
        QSignalSpy compared(window.worker(), &EngineWorker::cacheCompared);
        window.samplingControls()->setTemperature(0);
        window.chat()->send(QStringLiteral("Tell me a fortune."));
        QVERIFY(test::waitForSignals(finished, 60000));
        QVERIFY(finished.at(0).at(2).toBool());
        // The cache stayed at its 18 tokens while the sequence ran past them.
        const auto last = kv.at(kv.count() - 1).at(0).value<widgets::KvCachePoint>();
        QVERIFY(last.slides);
        QCOMPARE(last.type, QStringLiteral("int8"));
        QCOMPARE(last.tokens, qint64(18));
        QVERIFY(last.evicted > 0);
        QCOMPARE(last.position, last.tokens + last.evicted);
        QVERIFY(last.bytesAsF32 > 3 * last.bytesUsed);
        const QString summary = window.findChild<widgets::KvCacheChartWidget*>()->summaryText();
        QVERIFY2(
            summary.contains(QStringLiteral("evicted")) && summary.contains(QStringLiteral("int8")),
            qPrintable(summary));
        // The attention panel's last row: the evicted keys are marked, the sinks attended.
        const auto matrix =
            attention.at(attention.count() - 1).at(0).value<widgets::AttentionMatrix>();
        // The last row (position p) sees positions 0, 1 and p − 15 .. p.
        const int lastRow = matrix.queryCount - 1, p = matrix.firstQuery + lastRow;
        for (int key = 0; key <= p; ++key)
            QCOMPARE(matrix.at(lastRow, key) == widgets::AttentionMatrix::kEvicted,
                     key >= 2 && key < p - 15);
        QVERIFY(matrix.at(lastRow, 0) > 0);

        // Another head: recomputed over the same window, so its excluded keys are marked too.
        QSignalSpy recomputed(window.worker(), &EngineWorker::attentionRecomputed);
        window.selectHead(1, 3);
        QVERIFY(test::waitForSignals(recomputed, 30000));
        QVERIFY(recomputed.last().at(1).toBool());
        widgets::AttentionHeatmapWidget* heatmap = window.attentionHeatmap();
        QTRY_COMPARE(heatmap->head(), 3);
        QTRY_COMPARE(heatmap->queryCount(), p + 1);
        QCOMPARE(heatmap->weight(p, 2), widgets::AttentionMatrix::kEvicted);
        QCOMPARE(heatmap->weight(p, p - 16), widgets::AttentionMatrix::kEvicted);
        QVERIFY(heatmap->weight(p, p - 15) >= 0);
        QVERIFY(heatmap->weight(p, 0) > 0);

        // The sampling panel's comparison with an exact cache.
        window.findChild<QPushButton*>(QStringLiteral("compareCacheButton"))->click();
        QVERIFY(test::waitForSignals(compared, 60000));
        const auto comparison = compared.at(0).at(0).value<CacheComparisonSummary>();
        QVERIFY2(comparison.error.isEmpty(), qPrintable(comparison.error));
        QVERIFY(comparison.klDivergence > 0);
        QVERIFY(comparison.cache.contains(QStringLiteral("int8")));
        QVERIFY(window.findChild<QLabel*>(QStringLiteral("cacheComparisonLabel"))
                    ->text()
                    .contains(QStringLiteral("KL")));
    }

    void stopEndsAGenerationMidway() {
        MainWindow window(test::bundledWindow(500));
        QVERIFY(test::waitForModel(window));
        QSignalSpy generated(window.worker(), &EngineWorker::tokenGenerated);
        QSignalSpy finished(window.worker(), &EngineWorker::generationFinished);
        window.worker()->control().pause();
        window.chat()->send(QStringLiteral("背一首李白的诗。"));  // a long answer
        window.worker()->control().stepToken();
        QVERIFY(test::waitForSignals(generated, 30000));
        window.worker()->control().cancel();
        window.worker()->control().resume();
        QVERIFY(test::waitForSignals(finished, 30000));
        QCOMPARE(finished.at(0).at(1).toString(), QStringLiteral("cancelled"));
        QVERIFY(window.tokensGenerated() < 500);
    }

    void closingMidGenerationIsClean() {
        auto* window = new MainWindow(test::bundledWindow(500));
        QVERIFY(test::waitForModel(*window));
        QSignalSpy generated(window->worker(), &EngineWorker::tokenGenerated);
        window->worker()->control().pause();
        window->chat()->send(QStringLiteral("Tell me a fortune."));
        window->worker()->control().stepToken();
        QVERIFY(test::waitForSignals(generated, 30000));
        QElapsedTimer clock;
        clock.start();
        delete window;  // cancels, wakes the paused worker and joins its thread
        QVERIFY(clock.elapsed() < 5000);
    }

    void attentionPanelsFollowTheSelection() {
        MainWindow window(test::bundledWindow(6));
        QVERIFY(test::waitForModel(window));
        window.samplingControls()->setTemperature(0);
        QSignalSpy finished(window.worker(), &EngineWorker::generationFinished);
        window.chat()->send(QStringLiteral("《春晓》"));
        QVERIFY(test::waitForSignals(finished, 60000));
        const int positions = window.tokenStrip()->tokenCount() - 1;  // the last token is not run

        // Layer 0, head 0 at full resolution; every head of layer 0 in the small multiples; every
        // head of every layer in the overview.
        widgets::AttentionHeatmapWidget* heatmap = window.attentionHeatmap();
        QCOMPARE(heatmap->layer(), 0);
        QCOMPARE(heatmap->head(), 0);
        QCOMPARE(heatmap->queryCount(), positions);
        QCOMPARE(window.attentionHeads()->headCount(), 8);
        widgets::AttentionOverviewWidget* overview = window.attentionOverview();
        QCOMPARE(overview->layerCount(), 4);
        QCOMPARE(overview->headCount(), 8);
        for (int layer = 0; layer < 4; ++layer)
            for (int head = 0; head < 8; ++head) {
                const float entropy = overview->value(layer, head);
                QVERIFY(std::isfinite(entropy));
                QVERIFY(entropy >= 0 && entropy <= std::log(float(positions)) + 1e-3f);
            }
        const float rowZeroWeight = heatmap->weight(positions - 1, 0);

        // Another layer and head: the heat map is recomputed over every position so far.
        QSignalSpy recomputed(window.worker(), &EngineWorker::attentionRecomputed);
        window.selectHead(2, 5);
        QVERIFY(test::waitForSignals(recomputed, 30000));
        QVERIFY(recomputed.last().at(1).toBool());
        QTRY_COMPARE(heatmap->queryCount(), positions);
        QCOMPARE(heatmap->layer(), 2);
        QCOMPARE(heatmap->head(), 5);
        QCOMPARE(window.attentionHeads()->layer(), 2);
        QCOMPARE(window.attentionHeads()->selectedHead(), 5);
        QCOMPARE(overview->selected(), std::make_pair(2, 5));
        for (int row = 0; row < positions; ++row) {
            double sum = 0;
            for (int key = 0; key <= row; ++key)
                sum += heatmap->weight(row, key);
            QVERIFY(std::abs(sum - 1.0) < 1e-4);
        }
        // Back to layer 0 head 0: the recomputation equals what was captured live.
        recomputed.clear();
        window.selectHead(0, 0);
        QVERIFY(test::waitForSignals(recomputed, 30000));
        QTRY_COMPARE(heatmap->queryCount(), positions);
        QVERIFY(std::abs(heatmap->weight(positions - 1, 0) - rowZeroWeight) < 1e-6f);
    }

    void clickingAChipSelectsItsStepEverywhere() {
        MainWindow window(test::bundledWindow(5));
        QVERIFY(test::waitForModel(window));
        window.samplingControls()->setTemperature(1.0);
        QSignalSpy tokenized(window.worker(), &EngineWorker::tokenized);
        QSignalSpy sampled(window.worker(), &EngineWorker::sampling);
        QSignalSpy finished(window.worker(), &EngineWorker::generationFinished);
        window.chat()->send(QStringLiteral("Tell me a fortune."));
        QVERIFY(test::waitForSignals(finished, 60000));
        QVERIFY(sampled.count() >= 2);
        const int prompt =
            int(tokenized.at(0).at(0).value<std::vector<widgets::TokenChip>>().size());

        // The second generated token: chosen by sampling step 1, run by decode step 2.
        widgets::TokenStripWidget* strip = window.tokenStrip();
        strip->resize(1200, 400);
        const QRect chip = strip->chipRect(prompt + 1);
        QTest::mouseClick(strip, Qt::LeftButton, {}, chip.center());
        QCOMPARE(strip->selectedPosition(), prompt + 1);
        QCOMPARE(window.attentionHeatmap()->selectedPosition(), prompt + 1);
        QCOMPARE(window.loopGrid()->selectedStep(), 2);
        const auto second = sampled.at(1).at(0).value<widgets::SamplingStep>();
        QCOMPARE(window.samplingChart()->step().step, second.step);
        QCOMPARE(window.samplingChart()->step().candidates.front().id,
                 second.candidates.front().id);
        // A prompt token: the prefill's step.
        QTest::mouseClick(strip, Qt::LeftButton, {}, strip->chipRect(1).center());
        QCOMPARE(window.loopGrid()->selectedStep(), 0);
    }

    void logitProcessorsAndStopStringsFromTheSamplingPanel() {
        // The conversation this leaves behind must not become the next test's history.
        const auto forget = qScopeGuard([] { QFile::remove(ConversationStore().path()); });
        MainWindow window(test::bundledWindow(60));
        QVERIFY(test::waitForModel(window));
        window.samplingControls()->setTemperature(0);  // greedy: the answer is known
        QSignalSpy finished(window.worker(), &EngineWorker::generationFinished);
        const auto ask = [&](const QString& question) {
            const int before = finished.count();
            window.chat()->setConversation({});  // each question on its own
            window.chat()->send(question);
            if (!QTest::qWaitFor([&] { return finished.count() > before && !window.generating(); },
                                 60000))
                return QString("(no answer)");
            return finished.last().at(0).toString();
        };
        const QString plain = ask(QStringLiteral("《春晓》"));
        QVERIFY2(plain.contains(QStringLiteral("春眠")), qPrintable(plain));

        // A banned text never appears, and the sampling panel names what it masked.
        window.samplingControls()->setBannedText(QStringLiteral("春眠"));
        const QString banned = ask(QStringLiteral("《春晓》"));
        QVERIFY2(!banned.contains(QStringLiteral("春眠")), qPrintable(banned));
        bool maskedShown = false;
        for (const widgets::SamplingStep& step : window.samplingSteps())
            for (const widgets::MaskedToken& masked : step.masked)
                maskedShown |= masked.maskedBy == QStringLiteral("banned text");
        QVERIFY(maskedShown);

        // A stop string ends the answer right before it.
        window.samplingControls()->setBannedText({});
        window.samplingControls()->setStopText(QStringLiteral("啼鸟"));
        const QString stopped = ask(QStringLiteral("《春晓》"));
        QCOMPARE(stopped, plain.left(plain.indexOf(QStringLiteral("啼鸟"))));
        QCOMPARE(finished.last().at(1).toString(), QString("stop_string"));

        // An entry that does not parse is left out and reported; a forced token always comes.
        window.samplingControls()->setStopText({});
        window.samplingControls()->setLogitBiasText(QStringLiteral("12=+inf, x=1"));
        QVERIFY(!window.samplingControls()->logitBiasProblem().isEmpty());
        QCOMPARE(window.samplingControls()->params().logitBias.size(), size_t(1));
        window.samplingControls()->setLogitBiasText({});

        // A grammar: the answer is one of its sentences, and the panel says how many tokens it
        // allowed at each step. One that does not compile is refused, keeping the one before.
        window.samplingControls()->setGrammar(
            QStringLiteral("root ::= \"春\" (\"眠\" | \"风\" [一-龥]) \"。\""), "spring.gbnf");
        QVERIFY_THROWS_EXCEPTION(Error, window.samplingControls()->setGrammar("root ::= (", "bad"));
        const QString constrained = ask(QStringLiteral("《春晓》"));
        QVERIFY2(constrained == QStringLiteral("春眠。") ||
                     (constrained.size() == 4 && constrained.startsWith(QStringLiteral("春风")) &&
                      constrained.endsWith(QStringLiteral("。"))),
                 qPrintable(constrained));
        QVERIFY(!window.samplingSteps().empty());
        for (const widgets::SamplingStep& step : window.samplingSteps())
            QVERIFY(step.grammarAllowed >= 1);
        window.samplingControls()->setGrammar({}, {});
        window.chat()->setConversation({});
    }

    void whilePausedASliderReshapesTheCurrentStep() {
        MainWindow window(test::bundledWindow(30));
        QVERIFY(test::waitForModel(window));
        window.samplingControls()->setTemperature(1.0);
        QSignalSpy sampled(window.worker(), &EngineWorker::sampling);
        QSignalSpy finished(window.worker(), &EngineWorker::generationFinished);
        window.pauseAction()->setChecked(true);
        window.chat()->send(QStringLiteral("背一首李白的诗。"));
        window.worker()->control().stepToken();
        QVERIFY(test::waitForSignals(sampled, 30000));
        QTest::qWait(100);  // the worker is paused again, before the next step
        const int samplesBefore = sampled.count();
        const auto live = sampled.last().at(0).value<widgets::SamplingStep>();
        QVERIFY(live.entropy > 0);

        // Greedy: the same step's distribution collapses onto its best token, without a new step.
        window.samplingControls()->setTemperature(0);
        const widgets::SamplingStep preview = window.samplingChart()->step();
        QCOMPARE(preview.step, live.step);
        QCOMPARE(preview.cutoffIndex, 1);
        QCOMPARE(preview.candidates.front().probability[widgets::kStageFinal], 1.0f);
        QCOMPARE(preview.candidates.front().id, live.candidates.front().id);
        // Raw probabilities come from the same logits.
        QCOMPARE(preview.candidates.front().probability[widgets::kStageRaw],
                 live.candidates.front().probability[widgets::kStageRaw]);
        QCOMPARE(sampled.count(), samplesBefore);  // the model did not run

        window.worker()->control().cancel();
        window.pauseAction()->setChecked(false);
        QVERIFY(test::waitForSignals(finished, 30000));
    }

    void loadingShowsTheMemoryPlan() {
        MainWindow window(test::bundledWindow(4));
        QVERIFY(test::waitForModel(window));
        // Announced before the model, to the window (a spy made now could miss the signal).
        QVERIFY(window.loadPlan().has_value());
        const LoadPlan plan = *window.loadPlan();
        QFileInfo weights(QStringLiteral(INFERLENS_BUNDLED_MODEL) + "/model.safetensors");
        QVERIFY(plan.weightBytes > weights.size() * 9 / 10 && plan.weightBytes <= weights.size());
        QCOMPARE(plan.contextSize, qint64(2048));
        // 4 layers × 2048 positions × 2 KV groups × 32 dims × (K and V) × 4 bytes.
        QCOMPARE(plan.kvCacheBytes, qint64(4) * 2048 * 2 * 32 * 2 * 4);
        QVERIFY(plan.availableBytes > plan.totalBytes());
    }

    void theDeviceMenuMovesTheModelAndAnUnusableGpuLeavesItOnTheCpu() {
        StartupOptions options = test::bundledWindow(4);
        options.device = QStringLiteral("cuda");
        MainWindow window(options);
        QVERIFY(test::waitForModel(window));
        const bool gpu = !queryCudaDevices().devices.empty();
        if (!gpu)  // the reason, and the model on the CPU
            QTRY_VERIFY2(window.statusBar()->currentMessage().contains("runs on the CPU"),
                         qPrintable(window.statusBar()->currentMessage()));
        QMenu* devices = nullptr;
        for (QAction* action : window.menuBar()->actions())
            if (action->text() == QStringLiteral("&Device"))
                devices = action->menu();
        QVERIFY(devices != nullptr);
        QList<QAction*> entries;  // the devices: what comes before the attention kernels
        for (QAction* action : devices->actions()) {
            if (action->isSeparator())
                break;
            entries.append(action);
        }
        QCOMPARE(entries.first()->text(), QStringLiteral("CPU"));
        if (!gpu) {
            QCOMPARE(entries.size(), 2);
            QVERIFY(entries.last()->text().startsWith(QStringLiteral("No GPU: ")));
            QVERIFY(!entries.last()->isEnabled());
        }
        // Choosing the CPU reloads the model there, and is remembered.
        entries.first()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(
            window.statusBar()->currentMessage().startsWith(QStringLiteral("Model loaded on CPU")),
            30000);
        QCOMPARE(QSettings().value("engine/device").toString(), QStringLiteral("cpu"));
        QSettings().remove("engine/device");
    }

    void theLanguageSwitchesLive() {
        MainWindow window(test::bundledWindow(4));
        QVERIFY(test::waitForModel(window));
        const auto fileMenuTitle = [&] { return window.menuBar()->actions().at(0)->text(); };
        QCOMPARE(fileMenuTitle(), QStringLiteral("&File"));
        window.switchLanguage(QStringLiteral("zh_CN"));
        QTRY_VERIFY(fileMenuTitle() != QStringLiteral("&File"));
        QVERIFY(fileMenuTitle().contains(QStringLiteral("文件")));
        QVERIFY(window.windowTitle() == QStringLiteral("InferLens") ||
                !window.windowTitle().isEmpty());
        window.switchLanguage(QStringLiteral("en"));
        QTRY_COMPARE(fileMenuTitle(), QStringLiteral("&File"));
        setLanguageSetting(QStringLiteral("system"));
    }

    void aTraceExportsAndReplaysIntoThePanels() {
        QTemporaryDir dir;
        const QString path = dir.filePath("run.jsonl");
        MainWindow window(test::bundledWindow(8));
        QVERIFY(test::waitForModel(window));
        window.samplingControls()->setTemperature(1.0);
        QSignalSpy sampled(window.worker(), &EngineWorker::sampling);
        QSignalSpy recorded(window.worker(), &EngineWorker::traceRecorded);
        QSignalSpy finished(window.worker(), &EngineWorker::generationFinished);
        QString error;
        QVERIFY(!window.exportTrace(path, &error));  // nothing generated yet
        window.chat()->send(QStringLiteral("Tell me a fortune."));
        QVERIFY(test::waitForSignals(finished, 60000));
        QVERIFY(test::waitForSignals(recorded, 5000));
        QVERIFY2(window.exportTrace(path, &error), qPrintable(error));
        const int tokens = window.tokensGenerated();
        const int shown = window.tokenStrip()->tokenCount();
        const int rows = window.attentionHeatmap()->queryCount();
        const float lastWeight = window.attentionHeatmap()->weight(rows - 1, 0);

        // The file is a trace the reader accepts, with the selected head's attention.
        const RecordedTrace trace = readTrace(path);
        int generatedInTrace = 0;
        for (const TraceEvent& event : trace.events) {
            generatedInTrace += std::holds_alternative<GeneratedToken>(event) ? 1 : 0;
            if (const auto* matrix = std::get_if<widgets::AttentionMatrix>(&event)) {
                QCOMPARE(matrix->layer, 0);
                QCOMPARE(matrix->head, 0);
            }
        }
        QCOMPARE(generatedInTrace, tokens);

        // Replayed: the panels show the same tokens, attention and sampling steps again.
        window.openTrace(path);
        QTRY_VERIFY_WITH_TIMEOUT(window.replaying(), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(!window.replaying(), 30000);
        QCOMPARE(window.tokensGenerated(), tokens);
        QCOMPARE(window.tokenStrip()->tokenCount(), shown);
        QCOMPARE(window.attentionHeatmap()->queryCount(), rows);
        QCOMPARE(window.attentionHeatmap()->weight(rows - 1, 0), lastWeight);
        QCOMPARE(window.samplingChart()->step().step,
                 sampled.last().at(0).value<widgets::SamplingStep>().step);
        QCOMPARE(window.stepsReceived(), tokens);
    }

    void forcingACandidateBranchesFromTheNewPrefix() {
        QTemporaryDir dir;
        MainWindow window(test::bundledWindow(6));
        QVERIFY(test::waitForModel(window));
        window.samplingControls()->setTemperature(0);  // greedy: the branch is the only change
        QSignalSpy tokenized(window.worker(), &EngineWorker::tokenized);
        QSignalSpy generated(window.worker(), &EngineWorker::tokenGenerated);
        QSignalSpy finished(window.worker(), &EngineWorker::generationFinished);
        window.chat()->send(QStringLiteral("Tell me a fortune."));
        QVERIFY(test::waitForSignals(finished, 60000));
        QVERIFY(generated.count() >= 4);
        const auto prompt = tokenized.at(0).at(0).value<std::vector<widgets::TokenChip>>();
        std::vector<int> answer;
        for (const auto& arguments : generated)
            answer.push_back(arguments.at(0).value<widgets::TokenChip>().id);
        QCOMPARE(window.branches()->branchCount(), 1);
        const int turns = window.chat()->conversation().size();

        // Show step 2 (it chose the answer's third token) and force its second candidate.
        window.selectPosition(int(prompt.size()) + 2);
        const widgets::SamplingStep step = window.samplingChart()->step();
        QCOMPARE(step.step, 2);
        const int forced = step.candidates.at(1).id;
        QVERIFY(forced != answer[2]);
        tokenized.clear();
        generated.clear();
        finished.clear();
        window.forceCandidate(1);
        QVERIFY(test::waitForSignals(finished, 60000));
        QVERIFY(finished.at(0).at(2).toBool());

        // The continuation starts from prompt + the first two answer tokens + the forced one.
        QCOMPARE(tokenized.count(), 1);
        const auto prefix = tokenized.at(0).at(0).value<std::vector<widgets::TokenChip>>();
        QCOMPARE(prefix.size(), prompt.size() + 3);
        for (size_t i = 0; i < prompt.size(); ++i) {
            QCOMPARE(prefix[i].id, prompt[i].id);
            QVERIFY(!prefix[i].generated);
        }
        QCOMPARE(prefix[prompt.size()].id, answer[0]);
        QCOMPARE(prefix[prompt.size() + 1].id, answer[1]);
        QCOMPARE(prefix[prompt.size() + 2].id, forced);
        QVERIFY(prefix[prompt.size() + 2].generated);
        // Its exported trace starts from the same prefix.
        QString error;
        const QString path = dir.filePath("branch.jsonl");
        QTRY_VERIFY(window.exportTrace(path, &error));
        const RecordedTrace trace = readTrace(path);
        const auto& traced = std::get<std::vector<widgets::TokenChip>>(trace.events.front());
        QCOMPARE(traced.size(), prefix.size());
        QCOMPARE(traced.back().id, forced);

        // The branch is recorded beside the answer, the forced token marked; the chat is unchanged.
        QCOMPARE(window.branches()->branchCount(), 2);
        QCOMPARE(window.branches()->compared(), std::make_pair(1, 0));
        const widgets::BranchRecord& branch = window.branches()->branch(1);
        QCOMPARE(branch.parent, 0);
        QCOMPARE(branch.divergeAt, 2);
        QVERIFY(branch.tokens.at(2).forced);
        QCOMPARE(int(branch.tokens.size()), 3 + generated.count());
        QCOMPARE(window.chat()->conversation().size(), turns);
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
                       "--max-tokens", "16", "--window-size", "1600x1000", "--screenshot", png,
                       "--quit-after-generation"});
        QVERIFY(process.waitForFinished(120000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        QVERIFY(QString::fromUtf8(process.readAllStandardOutput()).contains("longest UI stall"));
        const QImage shot(png);
        QCOMPARE(shot.size(), QSize(1600, 1000));

        // This run's KV cache, and the comparison with an exact one before the screenshot.
        process.start(QStringLiteral(INFERLENS_GUI_PATH),
                      {"--model", QStringLiteral(INFERLENS_BUNDLED_MODEL), "--prompt", "《春晓》",
                       "--max-tokens", "16", "--kv-type", "int8", "--window", "8", "--sinks", "2",
                       "--compare-cache", "--screenshot", png, "--quit-after-generation"});
        QVERIFY(process.waitForFinished(120000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        process.start(QStringLiteral(INFERLENS_GUI_PATH),
                      {"--model", QStringLiteral(INFERLENS_BUNDLED_MODEL), "--prompt", "x",
                       "--kv-type", "q4", "--quit-after-generation"});
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 1);
        QVERIFY(process.readAllStandardError().contains("unknown KV cache type 'q4'"));

        process.start(
            QStringLiteral(INFERLENS_GUI_PATH),
            {"--model", dir.filePath("missing.gguf"), "--prompt", "x", "--quit-after-generation"});
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 1);
        QVERIFY(process.readAllStandardError().contains("missing.gguf"));

        // A trace replays without any model; a broken one is reported with its line.
        const QString trace = dir.filePath("trace.jsonl");
        process.start(
            QStringLiteral(INFERLENS_CLI_PATH),
            {"trace", "--model", QStringLiteral(INFERLENS_BUNDLED_MODEL), "--prompt", "《春晓》",
             "--chat", "--max-tokens", "6", "--attention", "1:2", "--out", trace});
        QVERIFY(process.waitForFinished(60000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        const QString replayShot = dir.filePath("replay.png");
        process.start(QStringLiteral(INFERLENS_GUI_PATH),
                      {"--trace", trace, "--window-size", "1600x1000", "--screenshot", replayShot,
                       "--quit-after-generation"});
        QVERIFY(process.waitForFinished(60000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        QVERIFY(QString::fromUtf8(process.readAllStandardOutput()).contains("generated 6 tokens"));
        QCOMPARE(QImage(replayShot).size(), QSize(1600, 1000));
        QFile broken(trace);
        QVERIFY(broken.open(QIODevice::Append));
        broken.write("{not json\n");
        broken.close();
        process.start(QStringLiteral(INFERLENS_GUI_PATH),
                      {"--trace", trace, "--quit-after-generation"});
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 1);
        QVERIFY(process.readAllStandardError().contains("line"));
    }
};

QTEST_MAIN(TestGuiEndToEnd)
#include "test_gui_end_to_end.moc"
