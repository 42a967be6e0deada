// The double-loop grid: each (step, layer) cell is painted in colourFor(its time), prefill is set
// apart from decode, decode speed and time to first token come from the right steps, a step's
// layers can arrive one by one, a wider time range recolours what was painted, and the selected
// step is outlined.

#include <QTest>

#include "double_loop_grid_widget.h"
#include "layout_checks.h"

using namespace inferlens::widgets;

namespace {

LoopTiming timing(int step, bool prefill, int tokens, std::vector<double> layers, double overhead) {
    double total = overhead;
    for (double s : layers) {
        total += s;
    }
    return LoopTiming{step, prefill, tokens, std::move(layers), total};
}

}  // namespace

class TestWidgetDoubleLoop : public QObject {
    Q_OBJECT
  private slots:
    void cellsAreColouredByTime() {
        DoubleLoopGridWidget grid;
        grid.resize(600, 300);
        grid.appendStep(timing(0, true, 17, {0.020, 0.030, 0.025, 0.040}, 0.005));
        for (int step = 1; step <= 6; ++step) {
            grid.appendStep(timing(step, false, 1, {0.001 * step, 0.002, 0.0015, 0.003}, 0.0005));
        }
        QCOMPARE(grid.stepCount(), 7);
        QCOMPARE(grid.layerCount(), 4);
        const QImage image = grid.grab().toImage();
        for (int index = 0; index < 7; ++index) {
            for (int layer = 0; layer < 4; ++layer) {
                const QRect cell = grid.cellRect(index, layer);
                QVERIFY(!cell.isEmpty());
                QCOMPARE(image.pixelColor(cell.center()),
                         grid.colourFor(grid.step(index).layerSeconds[size_t(layer)]));
            }
        }
        // Longer is brighter on the scale, and the scale spans whole decades around the data.
        QVERIFY(grid.colourFor(0.001) != grid.colourFor(0.04));
        QCOMPARE(grid.colourRange().first, 0.001);
        QCOMPARE(grid.colourRange().second, 0.1);
        const auto cell = grid.cellAt(grid.cellRect(3, 2).center());
        QVERIFY(cell);
        QCOMPARE(cell->first, 3);
        QCOMPARE(cell->second, 2);
        QVERIFY(grid.toolTipAt(grid.cellRect(0, 1).center()).contains("prefill"));
        QVERIFY(grid.toolTipAt(grid.cellRect(0, 1).center()).contains("30.0 ms"));
    }

    void prefillIsMarkedApartFromDecode() {
        DoubleLoopGridWidget grid;
        grid.resize(600, 300);
        grid.appendStep(timing(0, true, 17, {0.02, 0.02}, 0));
        grid.appendStep(timing(1, false, 1, {0.02, 0.02}, 0));
        const QImage image = grid.grab().toImage();
        // Same times, so the cells match; the band above them does not.
        const QRect prefill = grid.cellRect(0, 0), decode = grid.cellRect(1, 0);
        QCOMPARE(image.pixelColor(prefill.center()), image.pixelColor(decode.center()));
        QVERIFY(image.pixelColor(prefill.center().x(), prefill.top() - 6) !=
                image.pixelColor(decode.center().x(), decode.top() - 6));
    }

    void theSelectedStepIsOutlined() {
        DoubleLoopGridWidget grid;
        grid.resize(600, 300);
        grid.appendStep(timing(0, true, 5, {0.02, 0.02, 0.02}, 0));
        for (int step = 1; step <= 4; ++step) {
            grid.appendStep(timing(step, false, 1, {0.02, 0.02, 0.02}, 0));
        }
        const QColor highlight = grid.palette().color(QPalette::Highlight);
        const auto leftEdge = [&](const QImage& image, int index) {
            const QRect cell = grid.cellRect(index, 1);
            return image.pixelColor(cell.left(), cell.center().y());
        };
        QVERIFY(leftEdge(grid.grab().toImage(), 2) != highlight);
        grid.setSelectedStep(2);
        QCOMPARE(grid.selectedStep(), 2);
        const QImage image = grid.grab().toImage();
        QCOMPARE(leftEdge(image, 2), highlight);
        QVERIFY(leftEdge(image, 1) != highlight);
        QVERIFY(leftEdge(image, 4) != highlight);
        // The cells inside keep their time colour.
        QCOMPARE(image.pixelColor(grid.cellRect(2, 1).center()), grid.colourFor(0.02));
    }

    void speedAndTimeToFirstToken() {
        DoubleLoopGridWidget grid;
        QVERIFY(!grid.tokensPerSecond());
        QVERIFY(!grid.timeToFirstToken());
        grid.appendStep(timing(0, true, 17, {0.1, 0.1}, 0.05));  // 0.25 s
        QCOMPARE(*grid.timeToFirstToken(), 0.25);
        QVERIFY(!grid.tokensPerSecond());
        grid.appendStep(timing(1, false, 1, {0.02, 0.02}, 0.01));  // 0.05 s
        grid.appendStep(timing(2, false, 1, {0.04, 0.04}, 0.02));  // 0.10 s
        QCOMPARE(*grid.timeToFirstToken(), 0.25);
        QVERIFY(qAbs(*grid.tokensPerSecond() - 2 / 0.15) < 1e-9);  // prefill excluded
        QVERIFY(grid.summaryText().contains("13.3 tokens/s"));
        QVERIFY(grid.summaryText().contains("250 ms"));
        // A new prompt (the next chat turn) starts a new generation for the figures.
        grid.appendStep(timing(3, true, 5, {0.05, 0.05}, 0.0));
        QCOMPARE(*grid.timeToFirstToken(), 0.1);
        QVERIFY(!grid.tokensPerSecond());
        grid.appendStep(timing(4, false, 1, {0.1, 0.1}, 0.05));
        QVERIFY(qAbs(*grid.tokensPerSecond() - 4.0) < 1e-9);
        QCOMPARE(grid.stepCount(), 5);
        grid.clear();
        QCOMPARE(grid.stepCount(), 0);
        QVERIFY(!grid.timeToFirstToken());
    }

    void layersArriveLiveAndTheRangeWidens() {
        DoubleLoopGridWidget grid;
        grid.resize(600, 300);
        grid.appendStep(timing(0, true, 4, {0.002, 0.003, 0.002}, 0));
        grid.appendStep(timing(1, false, 1, {0.002}, 0));  // layer 0 of step 1 done
        QCOMPARE(grid.stepCount(), 2);
        grid.appendStep(timing(1, false, 1, {0.002, 0.004}, 0));  // layer 1 done: same step
        QCOMPARE(grid.stepCount(), 2);
        QCOMPARE(grid.step(1).layerSeconds.size(), size_t(2));
        QImage image = grid.grab().toImage();
        const QColor before = grid.colourFor(0.003);
        QCOMPARE(image.pixelColor(grid.cellRect(0, 1).center()), before);
        QVERIFY(image.pixelColor(grid.cellRect(1, 2).center()) !=
                grid.colourFor(0.004));  // not run
        // A much slower layer widens the scale: earlier cells are recoloured to match it.
        grid.appendStep(timing(2, false, 1, {0.5, 0.002, 0.002}, 0));
        const QColor after = grid.colourFor(0.003);
        QVERIFY(after != before);
        image = grid.grab().toImage();
        QCOMPARE(image.pixelColor(grid.cellRect(0, 1).center()), after);
        QCOMPARE(image.pixelColor(grid.cellRect(2, 0).center()), grid.colourFor(0.5));
    }

    void manyStepsKeepTheLatestInView() {
        DoubleLoopGridWidget grid;
        grid.resize(400, 200);
        for (int step = 0; step < 2000; ++step) {
            grid.appendStep(timing(step, step == 0, step == 0 ? 30 : 1, {0.001, 0.002}, 0));
        }
        QVERIFY(grid.cellRect(0, 0).isEmpty());  // scrolled out
        const QRect last = grid.cellRect(1999, 1);
        QVERIFY(!last.isEmpty());
        QVERIFY(last.right() < 400);
        QCOMPARE(grid.grab().toImage().pixelColor(last.center()), grid.colourFor(0.002));
    }

    // 40 steps (a prefill of two chunks, then decode) × 24 layers, prefill layers a hundred times
    // slower than decode ones, at every size a dock gives it: no text overprints another, leaves
    // the panel or lies on the colour bar's side of the grid.
    void textsNeverOverprint_data() { layout_checks::addLayoutSizeRows("steps", {3, 40, 400}); }

    void textsNeverOverprint() {
        QFETCH(QSize, size);
        QFETCH(int, steps);
        DoubleLoopGridWidget grid;
        grid.resize(size);
        for (int step = 0; step < steps; ++step) {
            std::vector<double> layers;
            for (int layer = 0; layer < 24; ++layer)
                layers.push_back((step < 2 ? 0.03 : 0.0004) * (1 + 0.1 * ((layer * 7 + step) % 5)));
            grid.appendStep(timing(step, step < 2, step < 2 ? 40 : 1, std::move(layers), 0.0002));
        }
        grid.setSelectedStep(steps - 2);
        const QStringList problems = layout_checks::colourBarPanelProblems(grid, 3);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
        // The selected step's number is kept, wherever thinning falls.
        const DrawnTexts texts = grid.drawnTexts();
        QVERIFY(std::any_of(texts.begin(), texts.end(), [&](const DrawnText& t) {
            return t.kind == DrawnText::Kind::TickLabel && t.text == QString::number(steps - 2);
        }));
    }
};

QTEST_MAIN(TestWidgetDoubleLoop)
#include "test_widget_double_loop.moc"
