// The teaching panels fed synthetic data: the logit-lens table has a row per layer and a column
// per rank, each cell showing its token and probability in the colour of that probability; the
// KV on/off chart draws one point per token for each run and computes the speedup and FLOP ratio
// of the first n tokens from the series.

#include <QTest>

#include "kv_experiment_chart_widget.h"
#include "layout_checks.h"
#include "logit_lens_widget.h"

using namespace inferlens::widgets;

class TestWidgetTeaching : public QObject {
    Q_OBJECT
  private slots:
    void lensTableShowsEveryLayerAndRank() {
        LensSnapshot snapshot;
        snapshot.step = 3;
        for (int layer = 0; layer < 4; ++layer) {
            LensLayer row;
            row.layer = layer;
            row.residualNorm = 10.0 + layer;
            row.attentionEntropy = layer == 0 ? std::nan("") : 0.5 * layer;
            for (int rank = 0; rank < 3; ++rank) {
                row.top.push_back({QStringLiteral("▁t%1%2").arg(layer).arg(rank),
                                   float(0.6 / (rank + 1) * (layer + 1) / 4.0)});
            }
            snapshot.layers.push_back(row);
        }
        LogitLensWidget lens;
        lens.setSnapshot(snapshot);
        QCOMPARE(lens.rowCount(), 4);
        QCOMPARE(lens.columnCount(), LogitLensWidget::kRankColumn + 3);
        QCOMPARE(lens.item(2, 0)->text(), QStringLiteral("12.0"));
        QCOMPARE(lens.item(0, 1)->text(), QStringLiteral("–"));  // unknown entropy
        QCOMPARE(lens.item(3, 1)->text(), QStringLiteral("1.50"));
        const QTableWidgetItem* best = lens.item(3, LogitLensWidget::kRankColumn);
        QVERIFY(best->text().contains(QStringLiteral("t30")));
        QVERIFY(best->text().contains(QStringLiteral("60.0%")));
        QCOMPARE(best->background().color(), lens.colourFor(0.6f));
        QVERIFY(lens.colourFor(0.6f) != lens.colourFor(0.05f));
        QCOMPARE(lens.item(1, LogitLensWidget::kRankColumn + 2)->background().color(),
                 lens.colourFor(snapshot.layers[1].top[2].probability));
        lens.clear();
        QCOMPARE(lens.rowCount(), 0);
    }

    // 28 layers × 5 ranks of Chinese and English pieces, at every size a dock gives the table: its
    // texts (headers and cells) stay apart and inside the panel, and the first rows are shown.
    void lensTextsNeverOverprint_data() { layout_checks::addLayoutSizeRows(); }

    void lensTextsNeverOverprint() {
        QFETCH(QSize, size);
        const QStringList pieces{"▁春",           "晓",         "▁spring", "。",
                                 "<|assistant|>", "花落知多少", "▁Meng"};
        LensSnapshot snapshot;
        for (int layer = 0; layer < 28; ++layer) {
            LensLayer row{layer, 20.0 + layer, 1.5 - 0.04 * layer, {}};
            for (int rank = 0; rank < 5; ++rank)
                row.top.push_back({pieces[(layer + rank) % pieces.size()],
                                   float(0.9 / (rank + 1) * (layer + 1) / 28.0)});
            snapshot.layers.push_back(row);
        }
        LogitLensWidget lens;
        lens.resize(size);
        lens.setSnapshot(snapshot);
        lens.show();
        QVERIFY(QTest::qWaitForWindowExposed(&lens));
        const DrawnTexts texts = lens.drawnTexts();
        const QStringList problems = layout_checks::problems(texts, lens.rect(), {lens.dataArea()});
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
        QVERIFY(lens.rect().contains(lens.dataArea()));
        const auto shown = [&](const QString& text) {
            return std::any_of(texts.begin(), texts.end(),
                               [&](const DrawnText& t) { return t.text == text; });
        };
        QVERIFY(shown(QStringLiteral("layer 0")));
        QVERIFY(shown(QStringLiteral("#1")));
        QVERIFY(shown(lens.item(0, LogitLensWidget::kRankColumn)->text()));
    }

    void kvChartComputesSpeedupsFromTheSeries() {
        KvExperimentData data;
        data.promptTokens = 5;
        for (int i = 0; i < 64; ++i) {
            data.secondsWithCache.push_back(0.01);
            data.secondsWithoutCache.push_back(0.01 * (1 + i / 8.0));
            data.flopsWithCache.push_back(100.0);
            data.flopsWithoutCache.push_back(100.0 * (5 + i));
        }
        KvExperimentChartWidget chart;
        chart.resize(600, 400);
        chart.setData(data);
        QCOMPARE(chart.pointCount(true), 64);
        QCOMPARE(chart.pointCount(false), 64);
        // Without / with for the first 32 tokens: (32 + (0 + ... + 31) / 8) / 32.
        QVERIFY(chart.speedupAt(32));
        QVERIFY(std::abs(*chart.speedupAt(32) - (32 + 496 / 8.0) / 32) < 1e-9);
        QVERIFY(std::abs(*chart.flopRatioAt(64) - (64 * 5 + 2016) / 64.0) < 1e-9);
        QVERIFY(!chart.speedupAt(128));  // fewer tokens than that
        QVERIFY(chart.summaryText().contains(QStringLiteral("32 tokens")));
        QVERIFY(chart.summaryText().contains(QStringLiteral("64 tokens")));
        QVERIFY(!chart.summaryText().contains(QStringLiteral("128 tokens")));

        chart.clear();
        QCOMPARE(chart.pointCount(true), 0);
        chart.appendPoint(true, 0.02);
        chart.appendPoint(false, 0.03);
        chart.appendPoint(false, 0.05);
        QCOMPARE(chart.pointCount(true), 1);
        QCOMPARE(chart.pointCount(false), 2);
        data.identical = false;
        chart.setData(data);
        QVERIFY(chart.summaryText().contains(QStringLiteral("different tokens")));
    }
};

QTEST_MAIN(TestWidgetTeaching)
#include "test_widget_teaching.moc"
