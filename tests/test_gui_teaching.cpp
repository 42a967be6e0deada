// The teaching mode. The guided tour quotes the right shapes and costs for a ChatGLM2-6B
// configuration (no weights needed) and leaves no placeholder; on the bundled model, after a real
// generation, every step resolves to live figures and to a dock it highlights; the logit lens's
// last layer is the model's real next-token distribution; the KV on/off experiment gives identical
// tokens and one time per token for each run; the shapes-and-costs table follows the steps.

#include <QDockWidget>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTest>

#include "attention_kernels_view.h"
#include "chat_view.h"
#include "guided_tour.h"
#include "kv_experiment_chart_widget.h"
#include "logit_lens_widget.h"
#include "main_window.h"
#include "models/shape_presets.h"
#include "sampling_controls.h"
#include "step_costs_view.h"
#include "support/app_windows.h"
#include "support/test_models.h"
#include "teaching_views.h"
#include "tour_panel.h"

using namespace inferlens;
using namespace inferlens::gui;

namespace {

QString allText(const std::vector<TourStep>& steps) {
    QString text;
    for (const TourStep& step : steps)
        text += step.title + '\n' + step.body + '\n';
    return text;
}

bool hasPlaceholder(const QString& text) {
    return text.contains(QRegularExpression(QStringLiteral("%\\d")));
}

bool generate(MainWindow& window, const QString& message) {
    if (!QTest::qWaitFor([&] { return window.modelReady(); }, 60000))
        return false;
    QSignalSpy finished(window.worker(), &EngineWorker::generationFinished);
    window.chat()->send(message);
    return test::waitForSignals(finished, 60000) && finished.at(0).at(2).toBool();
}

}  // namespace

class TestGuiTeaching : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() { test::startFresh(); }

    void tourFiguresForChatGlm2_6b() {
        TourFacts facts;
        facts.config = shapePreset("chatglm2-6b");
        facts.contextSize = 4096;
        facts.chatTemplate = QStringLiteral("chatglm2");
        facts.promptTokens = 17;
        facts.promptPieces = {QStringLiteral("[gMASK]"), QStringLiteral("sop")};
        facts.generatedTokens = 40;
        facts.firstToken = QStringLiteral("床");
        facts.firstTokenProbability = 0.4f;
        facts.firstTokenCandidates = 12;
        facts.finishReason = QStringLiteral("eos");
        const std::vector<TourStep> steps = buildTour(facts);
        QCOMPARE(steps.size(), size_t(13));
        const QString text = allText(steps);
        QVERIFY2(!hasPlaceholder(text), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("[17, 1, 4096]")));     // hidden states
        QVERIFY(text.contains(QStringLiteral("[17, 1, 32, 128]")));  // query
        QVERIFY(text.contains(QStringLiteral("[17, 1, 2, 128]")));   // key and value
        QVERIFY(text.contains(QStringLiteral("65,024")));            // logits
        QVERIFY(text.contains(QStringLiteral("28 KiB")));            // KV per token at fp16
        QVERIFY(text.contains(QStringLiteral("448 KiB")));           // the same without MQA
        QVERIFY(text.contains(QStringLiteral("17 tokens")));
        QVERIFY(text.contains(QStringLiteral("28 layers")));
        for (const TourStep& step : steps)
            QVERIFY(!step.panel.isEmpty() && !step.title.isEmpty() && !step.body.isEmpty());
        // Before any generation the tour still reads, without inventing figures.
        facts.promptTokens = 0;
        const QString before = allText(buildTour(facts));
        QVERIFY(!hasPlaceholder(before));
        QVERIFY(before.contains(QStringLiteral("Send a message")));
    }

    void tourResolvesToLiveFiguresAndPanels() {
        MainWindow window(test::bundledWindow(6));
        QVERIFY(generate(window, QStringLiteral("《春晓》")));
        const std::vector<TourStep>& steps = window.teaching()->tour()->steps();
        QCOMPARE(steps.size(), size_t(13));
        const QString text = allText(steps);
        QVERIFY2(!hasPlaceholder(text), qPrintable(text));
        QVERIFY(!text.contains(QStringLiteral("Send a message")));
        // The bundled model's own numbers: hidden 256, 8 heads of 32, 2 KV groups, 4032 logits.
        QVERIFY(text.contains(QStringLiteral(", 1, 256]")));
        QVERIFY(text.contains(QStringLiteral(", 1, 8, 32]")));
        QVERIFY(text.contains(QStringLiteral(", 1, 2, 32]")));
        QVERIFY(text.contains(QStringLiteral("4,032")));
        QVERIFY(text.contains(QStringLiteral("4 layers")));
        for (size_t i = 0; i < steps.size(); ++i) {
            QVERIFY2(window.findChild<QDockWidget*>(steps[i].panel) != nullptr,
                     qPrintable(steps[i].panel));
            window.teaching()->tour()->show(int(i));
            QCOMPARE(window.highlightedPanel(), steps[i].panel);
        }
    }

    void logitLensLastLayerIsTheRealDistribution() {
        MainWindow window(test::bundledWindow(4));
        QVERIFY(QTest::qWaitFor([&] { return window.modelReady(); }, 60000));
        window.teaching()->setLensEnabled(true);
        window.samplingControls()->setTemperature(0);
        QSignalSpy lens(window.worker(), &EngineWorker::lensStep);
        QSignalSpy sampled(window.worker(), &EngineWorker::sampling);
        QVERIFY(generate(window, QStringLiteral("Tell me a fortune.")));
        // The rows of each step arrive layer by layer: the prefill's first four snapshots.
        QVERIFY(lens.count() >= 4);
        for (int i = 0; i < 4; ++i)
            QCOMPARE(int(lens.at(i).at(0).value<widgets::LensSnapshot>().layers.size()), i + 1);
        // The prefill's lens against the prefill's sampling step (step 0): same distribution.
        const auto snapshot = lens.at(3).at(0).value<widgets::LensSnapshot>();
        const auto step = sampled.at(0).at(0).value<widgets::SamplingStep>();
        QCOMPARE(snapshot.step, 0);
        QCOMPARE(int(snapshot.layers.size()), 4);
        const widgets::LensLayer& last = snapshot.layers.back();
        QCOMPARE(last.top.size(), size_t(5));
        QCOMPARE(last.top[0].label, step.candidates[0].label);
        QVERIFY(std::abs(last.top[0].probability - step.candidates[0].probability[0]) < 1e-5f);
        for (const widgets::LensLayer& layer : snapshot.layers) {
            QVERIFY(layer.residualNorm > 0);
            QVERIFY(std::isfinite(layer.attentionEntropy));
            for (size_t i = 1; i < layer.top.size(); ++i)
                QVERIFY(layer.top[i].probability <= layer.top[i - 1].probability);
        }
        QTRY_COMPARE(window.teaching()->lens()->rowCount(), 4);
    }

    void kvExperimentGivesIdenticalTokensAndATimePerToken() {
        MainWindow window(test::bundledWindow(4));
        QVERIFY(generate(window, QStringLiteral("《春晓》")));
        QSignalSpy finished(window.teaching(), &TeachingViews::experimentFinished);
        QVERIFY(window.teaching()->runExperiment(10));
        QVERIFY(window.generating());                    // nothing else runs meanwhile
        QVERIFY(!window.teaching()->runExperiment(10));  // one at a time
        QVERIFY(test::waitForSignals(finished, 120000));
        QVERIFY(!window.generating());
        const widgets::KvExperimentChartWidget* chart = window.teaching()->experimentChart();
        const QString summary = finished.at(0).at(0).toString();
        QVERIFY2(summary == chart->summaryText(), qPrintable(summary));  // not an error message
        QVERIFY(chart->data().identical);
        QCOMPARE(chart->pointCount(true), 10);
        QCOMPARE(chart->pointCount(false), 10);
        QVERIFY(chart->flopRatioAt(10).value_or(0) > 1);
    }

    void attentionKernelsAreTimedSideBySideAndStopCancels() {
        MainWindow window(test::bundledWindow(2));
        QVERIFY(generate(window, QStringLiteral("《春晓》")));
        AttentionKernelsView* view = window.teaching()->attentionKernels();
        QSignalSpy progress(window.worker(), &EngineWorker::attentionKernelProgress);
        QSignalSpy finished(window.teaching(), &TeachingViews::experimentFinished);

        // Stop during the first length: the reference run at 8,192 tokens never completes.
        QVERIFY(window.teaching()->runAttentionKernels());
        QVERIFY(window.generating());
        QVERIFY(!window.teaching()->runAttentionKernels());  // one at a time
        QVERIFY(test::waitForSignals(progress, 60000));
        window.worker()->control().cancel();
        QVERIFY(test::waitForSignals(finished, 60000));
        QVERIFY(!window.generating());
        QVERIFY2(finished.at(0).at(0).toString().contains(QStringLiteral("cancelled")),
                 qPrintable(finished.at(0).at(0).toString()));
        QVERIFY(view->rowCount() < 3);

        QVERIFY(window.teaching()->runAttentionKernels());
        QVERIFY(test::waitForSignals(finished, 300000, 2));
        QCOMPARE(finished.at(1).at(0).toString(), view->summaryText());  // not an error message
        QCOMPARE(view->rowCount(), 3);
        const std::vector<int64_t> lengths{512, 2048, 8192};
        for (size_t i = 0; i < lengths.size(); ++i) {
            const AttentionKernelTiming& timing = view->timings()[i];
            QCOMPARE(timing.tokens, lengths[i]);
            QVERIFY(timing.fusedSeconds > 0 && timing.referenceSeconds > 0);
            QVERIFY2(timing.difference < 1e-5, qPrintable(QString::number(timing.difference)));
        }
    }

    void shapesAndCostsFollowTheSteps() {
        MainWindow window(test::bundledWindow(3));
        QVERIFY(generate(window, QStringLiteral("《春晓》")));
        const StepCostsView* costs = window.teaching()->costs();
        QVERIFY(costs->costs().has_value());
        QCOMPARE(costs->costs()->tokens, int64_t(1));  // the last step was a decode step
        QVERIFY(costs->costs()->firstPosition > 0);
        QCOMPARE(costs->table()->rowCount(), int(costs->costs()->stages.size()));
        QVERIFY(costs->summaryText().contains(QStringLiteral("memory-bound")));
        QVERIFY(!window.teaching()->kvLesson()->text().isEmpty());
        QVERIFY(
            window.teaching()->kvLesson()->text().contains(QStringLiteral("2 key/value groups")));
        // The machine measured in the background, the last (decode) step against its bandwidth.
        QTRY_VERIFY_WITH_TIMEOUT(costs->limitsText().contains(QStringLiteral("read bandwidth")),
                                 20000);
    }

    // A step's distance to the machine's limits: weight bytes per second of the read bandwidth for
    // a decode step, weight-product operations per second of the int8 peak for a prefill.
    void shapesAndCostsGiveTheShareOfTheMachinesLimits() {
        StepCostsView view;
        view.resize(240, 600);  // a narrow column: the texts wrap
        const ModelConfig config = shapePreset("tinyllama-1.1b");
        view.setModel(config, 0.5625, true);
        QTRY_VERIFY_WITH_TIMEOUT(view.machineLimits().has_value(), 20000);
        const MachineLimits limits = *view.machineLimits();
        QVERIFY(limits.readBytesPerSecond > 0 && limits.int8OpsPerSecond > 0);

        widgets::LoopTiming decode;
        decode.step = 7;
        decode.tokenCount = 1;
        decode.stepSeconds = 0.04;
        view.showStep(decode, 20);
        const double decodeShare =
            view.costs()->weightBytes / 0.04 / limits.readBytesPerSecond * 100;
        QVERIFY2(view.limitsText().contains(QString::number(decodeShare, 'f', 1) + '%'),
                 qPrintable(view.limitsText()));

        widgets::LoopTiming prefill;
        prefill.step = 0;
        prefill.prefill = true;
        prefill.tokenCount = 64;
        prefill.stepSeconds = 0.8;
        view.showStep(prefill, 0);
        const double prefillShare =
            view.costs()->productFlops / 0.8 / limits.int8OpsPerSecond * 100;
        QVERIFY2(view.limitsText().contains(QString::number(prefillShare, 'f', 1) + '%') &&
                     view.limitsText().contains(QStringLiteral("int8 peak")),
                 qPrintable(view.limitsText()));

        // On a GPU the CPU's limits say nothing about the step.
        view.setModel(config, 0.5625, false);
        view.showStep(decode, 20);
        QVERIFY(view.limitsText().isEmpty());
    }
};

QTEST_MAIN(TestGuiTeaching)
#include "test_gui_teaching.moc"
