// Exporting panels: PNG, SVG and PDF files are written and hold what they should (the charts as
// vectors), an unknown extension and an unwritable path are refused with a message.

#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <QTest>

#include "attention_heatmap_widget.h"
#include "panel_export.h"
#include "sampling_chart_widget.h"

using namespace inferlens::widgets;

namespace {

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

AttentionMatrix identity(int n) {
    AttentionMatrix m{0, 0, 0, n, n, std::vector<float>(size_t(n) * size_t(n), 0.0f)};
    for (int i = 0; i < n; ++i) {
        m.weights[size_t(i) * size_t(n) + size_t(i)] = 1;
    }
    return m;
}

SamplingStep smallStep() {
    SamplingStep step;
    for (int i = 0; i < 4; ++i) {
        SamplingCandidate c{
            i,
            QString("t%1").arg(i),
            {0.4f - 0.1f * i, 0.4f - 0.1f * i, 0.4f - 0.1f * i, i < 2 ? 0.5f : 0.0f},
            i < 2};
        step.candidates.push_back(c);
    }
    step.cutoffIndex = 2;
    step.chosenIndex = 1;
    return step;
}

}  // namespace

class TestWidgetExport : public QObject {
    Q_OBJECT
  private slots:
    void writesPngSvgAndPdf() {
        QTemporaryDir dir;
        AttentionHeatmapWidget map;
        map.resize(300, 260);
        map.setMatrix(identity(5));
        QString error;
        QVERIFY2(exportWidget(&map, dir.filePath("map.png"), &error), qPrintable(error));
        const QImage png(dir.filePath("map.png"));
        QCOMPARE(png.size(), QSize(300, 260));
        // The file holds the panel's pixels: a diagonal cell in the weight-1 colour.
        QCOMPARE(png.pixelColor(map.cellRect(2, 2).center()), map.colourFor(1.0f));

        QVERIFY2(exportWidget(&map, dir.filePath("map.svg"), &error), qPrintable(error));
        const QByteArray svg = readAll(dir.filePath("map.svg"));
        QVERIFY(svg.contains("<svg"));
        QVERIFY(svg.contains("</svg>"));

        QVERIFY2(exportWidget(&map, dir.filePath("map.PDF"), &error), qPrintable(error));
        const QByteArray pdf = readAll(dir.filePath("map.PDF"));
        QVERIFY(pdf.startsWith("%PDF"));
        QVERIFY(pdf.size() > 500);
    }

    void chartsExportAsVectors() {
        QTemporaryDir dir;
        SamplingChartWidget chart;
        chart.resize(500, 400);
        chart.setStep(smallStep());
        QString error;
        QVERIFY2(exportWidget(&chart, dir.filePath("chart.svg"), &error), qPrintable(error));
        const QByteArray svg = readAll(dir.filePath("chart.svg"));
        QVERIFY(svg.contains("<svg"));
        QVERIFY2(!svg.contains("<image"), "the chart was exported as a bitmap");
        QVERIFY(svg.contains("<path") || svg.contains("<polyline") || svg.contains("<rect"));
        QVERIFY2(exportWidget(&chart, dir.filePath("chart.pdf"), &error), qPrintable(error));
        QVERIFY(readAll(dir.filePath("chart.pdf")).startsWith("%PDF"));
        QVERIFY2(exportWidget(&chart, dir.filePath("chart.png"), &error), qPrintable(error));
        QCOMPARE(QImage(dir.filePath("chart.png")).size(), QSize(500, 400));
    }

    void refusesUnknownExtensionsAndUnwritablePaths() {
        QTemporaryDir dir;
        AttentionHeatmapWidget map;
        map.resize(200, 200);
        QString error;
        QVERIFY(!exportWidget(&map, dir.filePath("map.xyz"), &error));
        QVERIFY2(error.contains("xyz"), qPrintable(error));
        QVERIFY(!QFile::exists(dir.filePath("map.xyz")));
        error.clear();
        QVERIFY(!exportWidget(&map, dir.filePath("no-extension"), &error));
        QVERIFY(!error.isEmpty());
        error.clear();
        const QString unwritable = dir.filePath("missing-folder/map.png");
        QVERIFY(!exportWidget(&map, unwritable, &error));
        QVERIFY2(error.contains(unwritable), qPrintable(error));
        QVERIFY(!exportWidget(nullptr, dir.filePath("x.png"), &error));
        // An existing file survives a failed export untouched (atomic replacement).
        QFile existing(dir.filePath("keep.png"));
        QVERIFY(existing.open(QIODevice::WriteOnly));
        existing.write("old");
        existing.close();
        QVERIFY(!exportWidget(&map, dir.filePath("keep.png/inner.png"), &error));
        QCOMPARE(readAll(dir.filePath("keep.png")), QByteArray("old"));
    }
};

QTEST_MAIN(TestWidgetExport)
#include "test_widget_export.moc"
