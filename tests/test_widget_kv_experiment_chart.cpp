// The KV cache experiment chart's layout: at every size a panel might get, the summary, the legend,
// the axes' tick labels and labels never overprint each other or leave the widget, the legend
// stays off the plot, and the tick labels' boxes hold what was rendered.

#include <QTest>

#include "kv_experiment_chart_widget.h"
#include "layout_checks.h"

using namespace inferlens::widgets;

namespace {

// 300 tokens with and without the cache: the second run's time grows with the position.
KvExperimentData experiment() {
    KvExperimentData data;
    data.promptTokens = 12;
    for (int i = 0; i < 300; ++i) {
        data.secondsWithCache.push_back(0.018 + 0.00001 * i);
        data.secondsWithoutCache.push_back(0.018 * (1 + i / 6.0));
        data.flopsWithCache.push_back(2.0e9);
        data.flopsWithoutCache.push_back(2.0e9 * (12 + i));
    }
    data.identical = false;  // the longest summary
    return data;
}

}  // namespace

class TestWidgetKvExperimentChart : public QObject {
    Q_OBJECT
  private slots:
    void textsNeverOverprint_data() {
        QTest::addColumn<QSize>("size");
        for (const QSize size : {QSize(300, 200), QSize(320, 220), QSize(480, 360), QSize(760, 520),
                                 QSize(1100, 700), QSize(1200, 800)}) {
            QTest::addRow("%dx%d", size.width(), size.height()) << size;
        }
    }
    void textsNeverOverprint() {
        QFETCH(QSize, size);
        KvExperimentChartWidget chart;
        chart.setData(experiment());
        const QStringList problems = layout_checks::problemsAt(chart, size);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
        const DrawnTexts texts = chart.drawnTexts();
        // The summary is all there, wrapped; or, on a panel too short for its lines, cut with an
        // ellipsis and whole in the tooltip.
        QString drawnSummary;
        for (const DrawnText& text : texts) {
            if (text.kind == DrawnText::Kind::Title) {
                drawnSummary = text.text;
            }
        }
        if (drawnSummary.endsWith(QChar(0x2026))) {
            QVERIFY(size.height() < 400);
            QCOMPARE(chart.toolTip(), chart.summaryText());
        } else {
            QCOMPARE(drawnSummary.simplified(), chart.summaryText().simplified());
        }
    }

    // The same between the sizes.
    void textsNeverOverprintAtAnySize() {
        KvExperimentChartWidget chart;
        chart.setData(experiment());
        const QStringList problems = layout_checks::problemsAtEverySize(
            chart, [&] { return std::vector<QRect>{chart.dataArea()}; });
        QVERIFY2(problems.isEmpty(), qPrintable(problems.mid(0, 10).join('\n')));
    }

    void tickLabelBoxesMatchTheRendering() {
        KvExperimentChartWidget chart;
        chart.setData(experiment());
        QVERIFY(layout_checks::showAt(chart, QSize(640, 420)));
        const QStringList problems = layout_checks::tickLabelPixelProblems(chart);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
    }
};

QTEST_MAIN(TestWidgetKvExperimentChart)
#include "test_widget_kv_experiment_chart.moc"
