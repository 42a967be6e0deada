// The sampling chart: one group of four bars per shown candidate with the given probabilities, the
// cut-off line after the last kept candidate, the chosen candidate's band, the cumulative mass, and
// the entropy / chosen-probability history; a click on a candidate's bars reports that candidate.

#include <QSignalSpy>
#include <QTest>

#include "display_text.h"
#include "layout_checks.h"
#include "sampling_chart_widget.h"

using namespace inferlens::widgets;

namespace {

// `count` candidates with geometric probabilities; the first `kept` survive truncation.
SamplingStep makeStep(int count, int kept, int chosen) {
    SamplingStep step;
    step.step = 7;
    double total = 0;
    for (int i = 0; i < count; ++i) {
        total += std::pow(0.7, i);
    }
    double keptMass = 0;
    for (int i = 0; i < kept; ++i) {
        keptMass += std::pow(0.7, i) / total;
    }
    for (int i = 0; i < count; ++i) {
        SamplingCandidate c;
        c.id = 100 + i;
        c.label = QString(" tok%1").arg(i);
        const float p = float(std::pow(0.7, i) / total);
        c.probability = {p * 0.9f, p * 0.95f, p, i < kept ? float(p / keptMass) : 0.0f};
        c.kept = i < kept;
        step.candidates.push_back(c);
    }
    step.cutoffIndex = kept;
    step.nucleusMass = keptMass;
    step.chosenIndex = chosen;
    step.entropy = 1.7;
    step.chosenProbability = chosen >= 0 ? step.candidates[size_t(chosen)].probability[3] : 0.01f;
    return step;
}

// Twelve candidates as a poem's continuation might have them: 6 to 10 characters, Chinese among
// them, the chosen one fourth and the cut-off right after it; and a history of 40 steps.
SamplingStep poemStep() {
    const QStringList labels = {" bright",   "春晓孟浩然诗", " moonlit",     "床前明月光啊",
                                " river!",   " flowers",     "夜来风雨声呀", " falling",
                                " mountain", "举头望明月光", " dreams",      " tonight"};
    SamplingStep step = makeStep(int(labels.size()), 4, 3);
    for (int i = 0; i < labels.size(); ++i) {
        step.candidates[size_t(i)].label = labels[i];
    }
    step.masked = {{" banned", 0.12f, "banned text"}};
    return step;
}

// The legend's entries (its grid may hold empty cells when it wraps into rows).
int legendEntries(const SamplingChartWidget& chart) {
    int entries = 0;
    for (int i = 0; i < chart.legend->itemCount(); ++i)
        entries += chart.legend->item(i) != nullptr;
    return entries;
}

void fillHistory(SamplingChartWidget& chart) {
    for (int step = 0; step < 40; ++step) {
        chart.appendHistory(step, 2.5 - step * 0.04, 0.2 + step * 0.015);
    }
}

}  // namespace

class TestWidgetSamplingChart : public QObject {
    Q_OBJECT
  private slots:
    void showsTheTopCandidatesAsBars() {
        SamplingChartWidget chart;
        chart.resize(640, 480);
        chart.setTopN(12);
        const SamplingStep step = makeStep(20, 5, 2);
        chart.setStep(step);
        QCOMPARE(chart.barCount(), 12);
        QCOMPARE(chart.cutoffIndex(), 5);
        QCOMPARE(chart.chosenIndex(), 2);
        for (int stage = 0; stage < kSamplingStageCount; ++stage) {
            for (int i : {0, 4, 11}) {
                QCOMPARE(chart.barValue(stage, i),
                         double(step.candidates[size_t(i)].probability[size_t(stage)]));
            }
        }
        QCOMPARE(chart.barValue(kStageFinal, 6), 0.0);  // cut: nothing left after truncation
        // The x axis names the candidates, whitespace made visible.
        const auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(chart.xAxis->ticker());
        QVERIFY(ticker);
        QCOMPARE(ticker->ticks().size(), 12);
        QCOMPARE(ticker->ticks().value(0), QString("\u2423tok0"));
        QCOMPARE(ticker->ticks().value(11), QString("\u2423tok11"));
        // Fewer candidates than N: all of them.
        chart.setStep(makeStep(4, 2, 0));
        QCOMPARE(chart.barCount(), 4);
        chart.setTopN(3);
        QCOMPARE(chart.barCount(), 3);
    }

    void clickingACandidateReportsIt() {
        SamplingChartWidget chart;
        chart.resize(640, 480);
        chart.setTopN(8);
        chart.setStep(makeStep(20, 5, 2));
        chart.replot();
        QSignalSpy clicked(&chart, &SamplingChartWidget::candidateClicked);
        const int y = int(chart.yAxis->coordToPixel(0.01));
        for (int index : {0, 3, 7}) {
            const QPoint bar(int(chart.xAxis->coordToPixel(index)), y);
            QCOMPARE(chart.candidateAt(bar), std::optional<int>(index));
            QTest::mouseClick(&chart, Qt::LeftButton, {}, bar);
            QCOMPARE(clicked.count(), 1);
            QCOMPARE(clicked.takeFirst().at(0).toInt(), index);
        }
        // Past the last bar, and outside the distribution chart: nothing.
        QVERIFY(!chart.candidateAt(QPoint(int(chart.xAxis->coordToPixel(9)), y)));
        QVERIFY(!chart.candidateAt(QPoint(2, 2)));
        QTest::mouseClick(&chart, Qt::LeftButton, {}, QPoint(2, 2));
        QCOMPARE(clicked.count(), 0);
    }

    void cutoffLineSitsAfterTheLastKeptCandidate() {
        SamplingChartWidget chart;
        chart.resize(640, 480);
        chart.setStep(makeStep(10, 3, 1));
        QVERIFY(chart.cutoffLineX());
        QCOMPARE(*chart.cutoffLineX(), 2.5);
        chart.setStep(makeStep(10, 7, 1));
        QCOMPARE(*chart.cutoffLineX(), 6.5);
        // Every shown candidate kept: no line.
        chart.setStep(makeStep(10, 10, 1));
        QVERIFY(!chart.cutoffLineX());
    }

    void chosenCandidateIsHighlighted() {
        SamplingChartWidget chart;
        chart.resize(640, 480);
        chart.setStep(makeStep(10, 4, 3));
        QVERIFY(chart.chosenBandX());
        QCOMPARE(*chart.chosenBandX(), 3.0);
        chart.setStep(makeStep(10, 4, -1));
        QVERIFY(!chart.chosenBandX());
        chart.setTopN(5);
        chart.setStep(makeStep(10, 8, 7));  // chosen beyond the shown five
        QVERIFY(!chart.chosenBandX());
    }

    void cumulativeMassAddsUp() {
        SamplingChartWidget chart;
        const SamplingStep step = makeStep(6, 3, 0);
        chart.setStep(step);
        double mass = 0;
        for (int i = 0; i < 6; ++i) {
            mass += step.candidates[size_t(i)].probability[kStageTemperature];
            QCOMPARE(chart.cumulativeMass(i), mass);
        }
        QVERIFY(qAbs(chart.cumulativeMass(5) - 1.0) < 1e-6);
    }

    void maskedTokensAreNamedWithTheirProcessor() {
        SamplingChartWidget chart;
        SamplingStep step = makeStep(6, 3, 0);
        chart.setStep(step);
        QVERIFY(!chart.titleText().contains("Masked"));
        step.masked = {{"hello", 0.42f, "banned text"}, {"</s>", 0.1f, "min new tokens"}};
        chart.setStep(step);
        const QString title = chart.titleText();
        QVERIFY2(title.contains("“hello” 42.0% (banned text)"), qPrintable(title));
        QVERIFY2(title.contains("“</s>” 10.0% (min new tokens)"), qPrintable(title));
    }

    void historyGrowsAndClears() {
        SamplingChartWidget chart;
        chart.resize(640, 480);
        for (int step = 0; step < 30; ++step) {
            chart.appendHistory(step, 2.0 - step * 0.05, 0.3 + step * 0.01);
        }
        QCOMPARE(chart.historyCount(), 30);
        chart.setStep(makeStep(8, 3, 0));
        chart.replot();
        const QImage image = chart.grab().toImage();
        QVERIFY(!image.isNull());
        // Something is drawn: more than a handful of distinct colours.
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 3) {
            for (int x = 0; x < image.width(); x += 3) {
                colours.insert(image.pixel(x, y));
            }
        }
        QVERIFY(colours.size() > 5);
        chart.appendHistory(0, 1.0, 0.5);  // the next generation counts from 0 again
        QCOMPARE(chart.historyCount(), 1);
        chart.appendHistory(1, 1.0, 0.5);
        QCOMPARE(chart.historyCount(), 2);
        chart.clearHistory();
        QCOMPARE(chart.historyCount(), 0);
        chart.appendHistory(1, 1, 1);
        chart.clear();
        QCOMPARE(chart.historyCount(), 0);
        QCOMPARE(chart.barCount(), 0);
        QVERIFY(!chart.cutoffLineX());
    }

    // At every size a panel might get, no text the chart draws overprints another, leaves the
    // widget, or (a legend) covers a plot.
    void textsNeverOverprint_data() {
        QTest::addColumn<QSize>("size");
        for (const QSize size : {QSize(300, 200), QSize(320, 220), QSize(480, 360), QSize(560, 300),
                                 QSize(760, 520), QSize(1100, 700), QSize(1200, 800)}) {
            QTest::addRow("%dx%d", size.width(), size.height()) << size;
        }
    }
    void textsNeverOverprint() {
        QFETCH(QSize, size);
        SamplingChartWidget chart;
        chart.setStep(poemStep());
        fillHistory(chart);
        const QStringList problems = layout_checks::problemsAt(chart, size, [&] {
            return std::vector<QRect>{chart.dataArea(), chart.historyArea()};
        });
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
        // The title, "chosen" and "cut off" are there (the title wrapped, not cut).
        int annotations = 0;
        for (const DrawnText& text : chart.drawnTexts()) {
            annotations += text.kind == DrawnText::Kind::Annotation;
        }
        QCOMPARE(annotations, 2);
    }

    // The same between the sizes, with the chosen candidate first, in the middle and last.
    void textsNeverOverprintAtAnySize() {
        SamplingChartWidget chart;
        fillHistory(chart);
        for (const int chosen : {0, 5, 11}) {
            SamplingStep step = poemStep();
            step.chosenIndex = chosen;
            step.cutoffIndex = std::min(chosen + 1, 11);
            chart.setStep(step);
            const QStringList problems = layout_checks::problemsAtEverySize(chart, [&] {
                return std::vector<QRect>{chart.dataArea(), chart.historyArea()};
            });
            QVERIFY2(problems.isEmpty(), qPrintable(problems.mid(0, 10).join('\n')));
        }
    }

    // A server's step (remote/): only the raw bars, and after them one hatched bar for the rest
    // of the vocabulary with its unknown mass; switching back to a local step restores the stages.
    void aServerStepDrawsItsUnknownTail() {
        SamplingStep step = makeStep(5, 5, 1);
        double known = 0;
        for (SamplingCandidate& candidate : step.candidates) {
            candidate.probability = {candidate.probability[kStageRaw] * 0.6f, 0, 0, 0};
            known += candidate.probability[kStageRaw];
        }
        step.fromServer = true;
        step.unknownMass = 1 - known;
        SamplingChartWidget chart;
        chart.resize(700, 400);
        chart.setStep(step);
        chart.replot();
        QCOMPARE(chart.barCount(), 5);
        QVERIFY(chart.unknownTailValue());
        QCOMPARE(*chart.unknownTailValue(), step.unknownMass);
        QVERIFY2(chart.titleText().contains("unknown"), qPrintable(chart.titleText()));
        QCOMPARE(chart.cumulativeMass(4), known);
        QCOMPARE(legendEntries(chart), 3);  // raw, the rest, cumulative
        QVERIFY(!chart.cutoffLineX());
        const QStringList problems = layout_checks::problemsAtEverySize(chart, [&] {
            return std::vector<QRect>{chart.dataArea(), chart.historyArea()};
        });
        QVERIFY2(problems.isEmpty(), qPrintable(problems.mid(0, 10).join('\n')));

        // The sliders' preview of that step: every stage among the top-N, no tail, the title
        // saying so.
        SamplingStep preview = makeStep(5, 3, 1);
        preview.fromServer = preview.reshapedTopN = true;
        preview.unknownMass = step.unknownMass;
        chart.setStep(preview);
        QVERIFY(!chart.unknownTailValue());
        QCOMPARE(legendEntries(chart), 5);
        QVERIFY2(chart.titleText().contains("preview"), qPrintable(chart.titleText()));
        const QStringList previewProblems = layout_checks::problemsAtEverySize(
            chart, [&] { return std::vector<QRect>{chart.dataArea(), chart.historyArea()}; });
        QVERIFY2(previewProblems.isEmpty(), qPrintable(previewProblems.mid(0, 10).join('\n')));

        chart.setStep(makeStep(5, 3, 1));
        QVERIFY(!chart.unknownTailValue());
        QCOMPARE(legendEntries(chart), 5);  // four stages and cumulative
    }

    // With a data area of 360 × 220 px or more every one of the twelve candidates is labelled.
    void everyCandidateLabelledWhenThereIsRoom() {
        const SamplingStep step = poemStep();
        SamplingChartWidget chart;
        chart.setStep(step);
        fillHistory(chart);
        int checked = 0;
        for (int height = 360; height <= 800; height += 40) {
            for (int width = 420; width <= 900; width += 80) {
                QVERIFY(layout_checks::showAt(chart, QSize(width, height)));
                const QRect area = chart.dataArea();
                if (area.width() < 360 || area.height() < 220) {
                    continue;
                }
                ++checked;
                const DrawnTexts texts = chart.drawnTexts();
                for (const SamplingCandidate& candidate : step.candidates) {
                    const QString label = visibleWhitespace(candidate.label);
                    const bool labelled =
                        std::any_of(texts.begin(), texts.end(), [&](const DrawnText& text) {
                            return text.kind == DrawnText::Kind::TickLabel &&
                                   text.rect.top() > area.bottom() &&
                                   (text.text == label ||
                                    (text.text.endsWith(QChar(0x2026)) && text.text.size() >= 4 &&
                                     label.startsWith(text.text.chopped(1))));
                        });
                    QVERIFY2(labelled,
                             qPrintable(QString("%1 unlabelled at %2x%3 (data area %4x%5)")
                                            .arg(label)
                                            .arg(width)
                                            .arg(height)
                                            .arg(area.width())
                                            .arg(area.height())));
                }
            }
        }
        QVERIFY(checked > 0);
    }

    // The tick labels' boxes are computed, not read from QCustomPlot: they must hold the pixels
    // drawn in the tick labels' colour, level and upright ones alike.
    void tickLabelBoxesMatchTheRendering_data() {
        QTest::addColumn<QSize>("size");
        QTest::newRow("upright candidates") << QSize(480, 420);
        QTest::newRow("level candidates") << QSize(1200, 800);
    }
    void tickLabelBoxesMatchTheRendering() {
        QFETCH(QSize, size);
        SamplingChartWidget chart;
        chart.setStep(poemStep());
        fillHistory(chart);
        QVERIFY(layout_checks::showAt(chart, size));
        const QStringList problems = layout_checks::tickLabelPixelProblems(chart);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
    }
};

QTEST_MAIN(TestWidgetSamplingChart)
#include "test_widget_sampling_chart.moc"
