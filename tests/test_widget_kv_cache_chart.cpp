// The KV cache chart: its "bytes held" line ends at the last point given, the context limit line
// sits at the limit, per-layer lines come and go, a shrinking cache starts a new series, and the
// figures are written in binary units.

#include <QTest>

#include "display_text.h"
#include "kv_cache_chart_widget.h"
#include "layout_checks.h"

using namespace inferlens::widgets;

namespace {

// ChatGLM2-6B's cache at fp16: 28 KiB a token (28 layers × 1 KiB), 16 × that without MQA.
KvCachePoint glmPoint(qint64 tokens) {
    KvCachePoint p;
    p.tokens = tokens;
    p.position = tokens;
    p.bytesUsed = tokens * 28 * 1024;
    p.bytesAllocated = ((tokens + 255) / 256) * 256 * 28 * 1024;
    p.bytesFullMultiHead = p.bytesUsed * 16;
    p.bytesPerLayer.assign(28, tokens * 1024);
    return p;
}

// A chat of 120 tokens in a 2048-token context: the cache grows into MiB, stored as f16.
void fillChat(KvCacheChartWidget& chart) {
    chart.setContextLimit(2048);
    for (qint64 tokens = 1; tokens <= 120; tokens += 2) {
        KvCachePoint point = glmPoint(tokens);
        point.type = QStringLiteral("f16");
        point.bytesAsF32 = 2 * point.bytesUsed;
        chart.appendPoint(point);
    }
}

}  // namespace

class TestWidgetKvCacheChart : public QObject {
    Q_OBJECT
  private slots:
    void lastPointIsTheLastBytesHeld() {
        KvCacheChartWidget chart;
        chart.resize(640, 400);
        QVERIFY(!chart.lastPoint());
        for (qint64 tokens : {17, 18, 19, 20}) {
            chart.appendPoint(glmPoint(tokens));
        }
        QCOMPARE(chart.pointCount(), 4);
        QVERIFY(chart.lastPoint());
        QCOMPARE(*chart.lastPoint(), QPointF(20, 20 * 28 * 1024));
        chart.clear();
        QVERIFY(!chart.lastPoint());
    }

    void summaryInBinaryUnits() {
        KvCacheChartWidget chart;
        chart.setContextLimit(2048);
        chart.appendPoint(glmPoint(64));
        const QString text = chart.summaryText();
        QVERIFY2(text.contains("1.75 MiB"), qPrintable(text));  // 64 × 28 KiB held
        QVERIFY2(text.contains("7.00 MiB"), qPrintable(text));  // 256 tokens allocated
        QVERIFY2(text.contains("28.0 KiB per token"), qPrintable(text));
        QVERIFY2(text.contains("28.0 MiB (16×)"), qPrintable(text));
        QVERIFY2(text.contains("64 of 2048 tokens (3.1%)"), qPrintable(text));
        QCOMPARE(formatBytes(512), QString("512 B"));
        QCOMPARE(formatBytes(1536), QString("1.50 KiB"));
        QCOMPARE(formatBytes(28 * 1024), QString("28.0 KiB"));
        QCOMPARE(formatBytes(qint64(448) * 1024 * 1024), QString("448 MiB"));
    }

    void beamsCachesAreAddedUpAndNamed() {
        KvCacheChartWidget chart;
        chart.resize(640, 400);
        chart.appendPoint(glmPoint(40));
        QVERIFY(!chart.showsBeams());
        QVERIFY(!chart.summaryText().contains("beam"));
        KvCachePoint point = glmPoint(41);
        point.beams = 3;
        point.bytesOtherBeams = 2 * point.bytesAllocated;
        chart.appendPoint(point);
        QVERIFY(chart.showsBeams());
        const QString text = chart.summaryText();
        // 256 tokens allocated per cache: 7 MiB, the other two 14 MiB.
        QVERIFY2(text.contains("beam search: 3 caches, 14.0 MiB more for the other 2 beam(s)"),
                 qPrintable(text));
        QVERIFY(chart.yAxis->range().upper >= 3 * 7 * 1024 * 1024);
        chart.clear();
        QVERIFY(!chart.showsBeams());
    }

    void contextLimitLine() {
        KvCacheChartWidget chart;
        chart.resize(640, 400);
        QVERIFY(!chart.contextLimitLineX());
        chart.setContextLimit(4096);
        QVERIFY(chart.contextLimitLineX());
        QCOMPARE(*chart.contextLimitLineX(), 4096.0);
        chart.appendPoint(glmPoint(100));
        // The axis follows the data unless asked to show the whole context.
        QVERIFY(chart.xAxis->range().upper < 4096);
        chart.setShowWholeContext(true);
        QVERIFY(chart.xAxis->range().upper >= 4096);
        chart.setShowWholeContext(false);
        // Half full: the limit comes into view by itself.
        chart.setContextLimit(180);
        QVERIFY(chart.xAxis->range().upper >= 180);
        chart.setContextLimit(0);
        QVERIFY(!chart.contextLimitLineX());
    }

    void perLayerLinesAndNewSeries() {
        KvCacheChartWidget chart;
        chart.resize(640, 400);
        const int baseGraphs = chart.graphCount();
        for (qint64 tokens = 10; tokens < 20; ++tokens) {
            chart.appendPoint(glmPoint(tokens));
        }
        chart.setShowPerLayer(true);
        QCOMPARE(chart.graphCount(), baseGraphs + 28);
        QCOMPARE(chart.graph(baseGraphs + 27)->data()->size(), 10);
        chart.appendPoint(glmPoint(20));
        QCOMPARE(chart.graph(baseGraphs + 5)->data()->size(), 11);
        chart.setShowPerLayer(false);
        QCOMPARE(chart.graphCount(), baseGraphs);
        // Fewer tokens than before: the cache was cleared, a new series begins.
        chart.appendPoint(glmPoint(3));
        QCOMPARE(chart.pointCount(), 1);
        QCOMPARE(*chart.lastPoint(), QPointF(3, 3 * 28 * 1024));
        chart.replot();
        QVERIFY(!chart.grab().isNull());
    }

    // At every size a panel might get, the title, legend, figures, tick labels ("400 KiB 200 KiB
    // 0 B" overprinted once), axis labels and the context limit's label never overprint each
    // other or leave the widget, and neither the legend nor the figures cover the plot.
    void textsNeverOverprint_data() {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("wholeContext");
        for (const QSize size : {QSize(300, 200), QSize(320, 220), QSize(480, 360), QSize(760, 520),
                                 QSize(1100, 700), QSize(1200, 800)}) {
            for (const bool whole : {false, true}) {
                QTest::addRow("%dx%d%s", size.width(), size.height(), whole ? " whole context" : "")
                    << size << whole;
            }
        }
    }
    void textsNeverOverprint() {
        QFETCH(QSize, size);
        QFETCH(bool, wholeContext);
        KvCacheChartWidget chart;
        fillChat(chart);
        chart.setShowWholeContext(wholeContext);
        const QStringList problems = layout_checks::problemsAt(chart, size);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
        const DrawnTexts texts = chart.drawnTexts();
        for (const DrawnText& text : texts) {
            if (text.kind == DrawnText::Kind::Annotation && text.text.contains("held")) {
                QVERIFY2(!text.rect.intersects(QRectF(chart.dataArea())),
                         qPrintable(layout_checks::describe(text)));
            }
        }
        // Tick labels in MiB on the value axis, more than one of them.
        int mebibytes = 0;
        for (const DrawnText& text : texts) {
            mebibytes += text.kind == DrawnText::Kind::TickLabel && text.text.endsWith("MiB");
        }
        QVERIFY(mebibytes >= (size.height() >= 360 ? 2 : 1));
    }

    // The same between the sizes.
    void textsNeverOverprintAtAnySize() {
        KvCacheChartWidget chart;
        fillChat(chart);
        for (const bool whole : {false, true}) {
            chart.setShowWholeContext(whole);
            const QStringList problems = layout_checks::problemsAtEverySize(
                chart, [&] { return std::vector<QRect>{chart.dataArea()}; });
            QVERIFY2(problems.isEmpty(), qPrintable(problems.mid(0, 10).join('\n')));
        }
    }

    // The figures are drawn in full (beside or under the plot) whenever the panel is not tiny.
    void figuresAreDrawnBesideOrUnderThePlot() {
        KvCacheChartWidget chart;
        fillChat(chart);
        for (const QSize size : {QSize(480, 360), QSize(1100, 700)}) {
            QVERIFY(layout_checks::showAt(chart, size));
            QString drawn;
            for (const DrawnText& text : chart.drawnTexts()) {
                if (text.kind == DrawnText::Kind::Annotation && text.text.contains("held")) {
                    drawn = text.text;
                }
            }
            QCOMPARE(drawn.simplified(), chart.summaryText().simplified());
        }
    }

    void tickLabelBoxesMatchTheRendering() {
        KvCacheChartWidget chart;
        fillChat(chart);
        QVERIFY(layout_checks::showAt(chart, QSize(640, 420)));
        const QStringList problems = layout_checks::tickLabelPixelProblems(chart);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
    }
};

QTEST_MAIN(TestWidgetKvCacheChart)
#include "test_widget_kv_cache_chart.moc"
