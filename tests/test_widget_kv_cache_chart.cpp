// The KV cache chart: its "bytes held" line ends at the last point given, the context limit line
// sits at the limit, per-layer lines come and go, a shrinking cache starts a new series, and the
// figures are written in binary units.

#include <QTest>

#include "display_text.h"
#include "kv_cache_chart_widget.h"

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
};

QTEST_MAIN(TestWidgetKvCacheChart)
#include "test_widget_kv_cache_chart.moc"
