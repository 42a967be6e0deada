// The attention panels: the heat map paints each weight in exactly colourFor(weight), log mapping
// recolours, a decode step's row is appended in place, points map to (query, key); the head grid
// pools and selects heads; past its memory budget the heat map pools blocks of positions to their
// maximum and says so; keys outside a local layer's window are labelled; the overview colours one
// number per head and selects by click.

#include <QSignalSpy>
#include <QTest>
#include <cmath>

#include "attention_head_grid_widget.h"
#include "attention_heatmap_widget.h"
#include "attention_overview_widget.h"
#include "layout_checks.h"

using namespace inferlens::widgets;

namespace {

// A causal matrix whose row q spreads its weight over keys 0..q in the proportions 1, 2, 3, ...
AttentionMatrix causal(int layer, int head, int firstQuery, int queryCount, int keyCount) {
    AttentionMatrix m{layer, head, firstQuery, queryCount, keyCount, {}};
    m.weights.assign(size_t(queryCount) * size_t(keyCount), 0.0f);
    for (int row = 0; row < queryCount; ++row) {
        const int query = firstQuery + row;
        const float total = float((query + 1) * (query + 2) / 2);
        for (int key = 0; key <= query && key < keyCount; ++key) {
            m.weights[size_t(row) * size_t(keyCount) + size_t(key)] = float(key + 1) / total;
        }
    }
    return m;
}

// A ChatGLM answer's tokens: 1 to 12 characters, Chinese among them, whitespace made visible.
QStringList realisticTokens(int count) {
    const QStringList pieces{"[gMASK]",   "sop",       "<|user|>",   "\n",           "春晓",
                             "的",        " poem",     "作者",       " Meng",        "haoran",
                             " 孟浩然",   ",",         " spring",    "。",           "处处",
                             "闻啼鸟",    " tomorrow", "s",          "夜来",         "风雨声",
                             " fortunes", "1",         "花落知多少", "<|assistant|>"};
    QStringList tokens;
    for (int i = 0; i < count; ++i)
        tokens << pieces[i % pieces.size()];
    return tokens;
}

void fillOverview(AttentionOverviewWidget& overview, int layers, int heads) {
    std::vector<float> values;
    for (int i = 0; i < layers * heads; ++i)
        values.push_back(0.2f + 3.1f * float((i * 37) % 101) / 101.0f);
    overview.setMetricName(QStringLiteral("entropy (nats)"));
    overview.setValues(layers, heads, std::move(values));
}

// A text pixel: the text colour (pure red) or anti-aliased towards it on any background the panels
// use (white, grey, viridis: none of them red).
bool isTextPixel(QRgb p) {
    return qRed(p) - std::max(qGreen(p), qBlue(p)) > 80;
}

QColor pixelAtCentre(QWidget& widget, const QRect& cell) {
    return widget.grab().toImage().pixelColor(cell.center());
}

}  // namespace

class TestWidgetAttention : public QObject {
    Q_OBJECT
  private slots:
    void heatmapPaintsEachCellInItsColour() {
        AttentionHeatmapWidget map;
        map.resize(420, 420);
        map.setMatrix(causal(3, 5, 0, 4, 4));
        map.setTokenLabels({"[gMASK]", "sop", " a", "b"});
        QCOMPARE(map.queryCount(), 4);
        QCOMPARE(map.keyCount(), 4);
        QCOMPARE(map.layer(), 3);
        QCOMPARE(map.head(), 5);
        const QImage image = map.grab().toImage();
        for (int query = 0; query < 4; ++query) {
            for (int key = 0; key < 4; ++key) {
                const QRect cell = map.cellRect(query, key);
                QVERIFY(cell.width() >= 3);
                const QColor expected = key > query ? AttentionHeatmapWidget::maskedColour()
                                                    : map.colourFor(map.weight(query, key));
                QCOMPARE(image.pixelColor(cell.center()), expected);
            }
        }
        // Different weights, different colours (the scale is not flat).
        QVERIFY(map.colourFor(0.1f) != map.colourFor(0.9f));
        QCOMPARE(map.weight(3, 3), 0.4f);
    }

    void logScaleRecolours() {
        AttentionHeatmapWidget map;
        map.resize(420, 420);
        map.setMatrix(causal(0, 0, 0, 4, 4));
        const QRect cell = map.cellRect(3, 0);  // weight 0.1
        const QColor linear = map.colourFor(0.1f);
        QCOMPARE(pixelAtCentre(map, cell), linear);
        map.setLogScale(true);
        QVERIFY(map.logScale());
        const QColor logarithmic = map.colourFor(0.1f);
        QVERIFY(logarithmic != linear);
        QCOMPARE(pixelAtCentre(map, map.cellRect(3, 0)), logarithmic);
        // The log scale separates small weights that linear mapping paints alike.
        map.setLogScale(false);
        QCOMPARE(map.colourFor(0.001f), map.colourFor(0.0f));
        map.setLogScale(true);
        QVERIFY(map.colourFor(0.001f) != map.colourFor(0.0f));
        QCOMPARE(map.colourFor(1.0f), map.colourFor(2.0f));  // clamped at the top
    }

    void appendRowsGrowsTheMatrix() {
        AttentionHeatmapWidget map;
        map.resize(420, 420);
        map.setMatrix(causal(1, 2, 0, 3, 3));  // prefill of 3 tokens
        for (int query = 3; query < 40; ++query) {
            map.appendRows(causal(1, 2, query, 1, query + 1));  // one decode row each
        }
        QCOMPARE(map.queryCount(), 40);
        QCOMPARE(map.keyCount(), 40);
        QCOMPARE(map.weight(39, 0), 1.0f / 820);
        QCOMPARE(map.weight(2, 2), 0.5f);  // prefill rows kept
        QCOMPARE(map.weight(2, 30), 0.0f);
        const QImage image = map.grab().toImage();
        QCOMPARE(image.pixelColor(map.cellRect(39, 39).center()),
                 map.colourFor(map.weight(39, 39)));
        QCOMPARE(image.pixelColor(map.cellRect(2, 1).center()), map.colourFor(map.weight(2, 1)));
        QCOMPARE(image.pixelColor(map.cellRect(2, 39).center()),
                 AttentionHeatmapWidget::maskedColour());
        // Rows of another head replace the matrix.
        map.appendRows(causal(1, 3, 0, 2, 2));
        QCOMPARE(map.head(), 3);
        QCOMPARE(map.queryCount(), 2);
        map.clear();
        QCOMPARE(map.queryCount(), 0);
    }

    void pointsMapToCells() {
        AttentionHeatmapWidget map;
        map.resize(420, 420);
        map.setMatrix(causal(0, 0, 10, 4, 14));  // rows are positions 10..13
        map.setTokenLabels({"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9", "q10",
                            "q11", "q12", "q13"});
        for (const auto& [query, key] : {std::pair{10, 0}, {12, 7}, {13, 13}, {11, 12}}) {
            const auto cell = map.cellAt(map.cellRect(query, key).center());
            QVERIFY(cell);
            QCOMPARE(cell->first, query);
            QCOMPARE(cell->second, key);
        }
        QVERIFY(!map.cellAt(QPoint(1, 1)));
        const QString tip = map.toolTipAt(map.cellRect(12, 7).center());
        QVERIFY2(tip.contains("q12") && tip.contains("p7") && tip.contains(QChar(0x2192)),
                 qPrintable(tip));
        QVERIFY2(tip.contains(QString::number(double(map.weight(12, 7)), 'g', 4)), qPrintable(tip));
        QVERIFY(map.toolTipAt(map.cellRect(11, 12).center()).contains("masked"));
        map.appendTokenLabel(" next");  // position 14
        map.appendRows(causal(0, 0, 14, 1, 15));
        QVERIFY(map.toolTipAt(map.cellRect(14, 13).center()).contains(QString("\u2423next")));
        QSignalSpy spy(&map, &AttentionHeatmapWidget::cellClicked);
        QTest::mouseClick(&map, Qt::LeftButton, {}, map.cellRect(13, 2).center());
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toInt(), 13);
        QCOMPARE(spy.at(0).at(1).toInt(), 2);
    }

    // Keys before a local layer's own window (Gemma 3) are painted and named as such, apart from
    // the keys a sliding KV cache evicted.
    void keysOutsideALayersWindowAreLabelled() {
        AttentionHeatmapWidget map;
        map.resize(300, 300);
        AttentionMatrix m = causal(3, 0, 0, 8, 8);
        for (int row = 0; row < 8; ++row)
            for (int key = 0; key < row - 3; ++key)  // a window of 4 positions
                m.weights[size_t(row * 8 + key)] = AttentionMatrix::kOutsideWindow;
        m.weights[size_t(7 * 8 + 3)] = AttentionMatrix::kEvicted;
        map.setMatrix(m);
        const QImage image = map.grab().toImage();
        QCOMPARE(image.pixelColor(map.cellRect(6, 1).center()),
                 AttentionHeatmapWidget::outsideWindowColour());
        QCOMPARE(image.pixelColor(map.cellRect(7, 3).center()),
                 AttentionHeatmapWidget::evictedColour());
        QVERIFY(map.toolTipAt(map.cellRect(6, 1).center()).contains("outside this layer's window"));
        QVERIFY(!map.toolTipAt(map.cellRect(7, 3).center()).contains("outside"));
        QCOMPARE(image.pixelColor(map.cellRect(6, 3).center()), map.colourFor(map.weight(6, 3)));
    }

    void selectedPositionIsMarked() {
        AttentionHeatmapWidget map;
        map.resize(420, 420);
        map.setMatrix(causal(0, 0, 0, 6, 6));
        const QRect row = map.cellRect(2, 0), column = map.cellRect(0, 4);
        const QPoint rowMark(row.left() - 2, row.center().y());
        const QPoint columnMark(column.center().x(), map.cellRect(5, 4).bottom() + 2);
        const QColor highlight = map.palette().color(QPalette::Highlight);
        QImage image = map.grab().toImage();
        QVERIFY(image.pixelColor(rowMark) != highlight);
        map.setSelectedPosition(2);
        QCOMPARE(map.selectedPosition(), 2);
        image = map.grab().toImage();
        QCOMPARE(image.pixelColor(rowMark), highlight);
        QCOMPARE(image.pixelColor(map.cellRect(2, 1).center()), map.colourFor(map.weight(2, 1)));
        map.setSelectedPosition(4);
        image = map.grab().toImage();
        QCOMPARE(image.pixelColor(columnMark), highlight);
        QVERIFY(image.pixelColor(rowMark) != highlight);
        // The mark stays with the position through new rows.
        map.appendRows(causal(0, 0, 6, 1, 7));
        QCOMPARE(map.selectedPosition(), 4);
        map.setSelectedPosition(-1);
        QVERIFY(map.grab().toImage().pixelColor(map.cellRect(4, 0).left() - 2,
                                                map.cellRect(4, 0).center().y()) != highlight);
    }

    void largeMatricesShrinkBelowAPixelPerCell() {
        AttentionHeatmapWidget map;
        map.resize(400, 400);
        map.setMatrix(causal(0, 0, 0, 600, 600));
        const QRect last = map.cellRect(599, 599);
        QVERIFY(!last.isNull());
        QVERIFY(last.width() <= 1);  // several positions share a pixel
        auto cell = map.cellAt(last.bottomRight());
        QVERIFY(cell);
        QCOMPARE(cell->first, 599);
        QCOMPARE(cell->second, 599);
        // Every pixel names a cell whose rectangle holds that pixel, so hit tests agree with paint.
        for (const QPoint p : {last.topLeft() - QPoint(7, 3), last.topLeft() - QPoint(100, 200),
                               map.cellRect(0, 0).topLeft()}) {
            cell = map.cellAt(p);
            QVERIFY(cell);
            QVERIFY(map.cellRect(cell->first, cell->second).contains(p));
        }
        // And the pixel shows that cell's colour (the diagonal, away from the masked triangle).
        const QImage image = map.grab().toImage();
        for (int position : {100, 333, 599}) {
            const QPoint p = map.cellRect(position, 0).topLeft();
            cell = map.cellAt(p);
            QCOMPARE(image.pixelColor(p), map.colourFor(map.weight(cell->first, cell->second)));
        }
    }

    void aMatrixOverTheMemoryBudgetIsShownPooledWithANote() {
        AttentionHeatmapWidget map;
        map.resize(420, 420);
        map.setMemoryBudget(16 << 10);  // 2,048 cells: 45 positions square
        map.setMatrix(causal(0, 0, 0, 30, 30));
        QCOMPARE(map.block(), 1);
        QVERIFY(map.poolingNote().isEmpty());
        for (int query = 30; query < 300; ++query)
            map.appendRows(causal(0, 0, query, 1, query + 1));
        QCOMPARE(map.block(), AttentionStore::blockFor(300, 16 << 10));
        QCOMPARE(map.block(), 8);
        QVERIFY(map.memoryBytes() <= map.memoryBudget());
        QVERIFY2(map.poolingNote().contains("8 × 8"), qPrintable(map.poolingNote()));
        QCOMPARE(map.queryCount(), 300);
        // Each cell is painted in the colour of its block's largest weight, computed here from the
        // rows themselves; the cells above the diagonal block stay masked.
        const QImage image = map.grab().toImage();
        for (const auto& [query, key] :
             {std::pair{0, 0}, {77, 8}, {150, 140}, {299, 0}, {299, 296}}) {
            float largest = 0;
            for (int q = query / 8 * 8; q < query / 8 * 8 + 8 && q < 300; ++q)
                for (int k = key / 8 * 8; k < key / 8 * 8 + 8 && k <= q; ++k)
                    largest = std::max(largest, causal(0, 0, q, 1, q + 1).weights[size_t(k)]);
            QCOMPARE(map.weight(query, key), largest);
            const QRect cell = map.cellRect(query, key);
            QVERIFY(!cell.isNull());
            QCOMPARE(image.pixelColor(cell.topLeft()), map.colourFor(largest));
        }
        QCOMPARE(image.pixelColor(map.cellRect(40, 200).topLeft()),
                 AttentionHeatmapWidget::maskedColour());
        const QString tip = map.toolTipAt(map.cellRect(77, 8).topLeft());
        QVERIFY2(tip.contains("72") && tip.contains("79") && tip.contains("8 × 8"),
                 qPrintable(tip));
        // A smaller budget pools what is shown at once; clearing frees it.
        map.setMemoryBudget(4 << 10);
        QCOMPARE(map.block(), AttentionStore::blockFor(300, 4 << 10));
        QVERIFY(map.memoryBytes() <= 4 << 10);
        map.clear();
        QCOMPARE(map.memoryBytes(), int64_t(0));
    }

    void headGridPoolsAndSelects() {
        AttentionHeadGridWidget grid;
        grid.resize(400, 400);
        grid.setLayer(2, 4);
        QCOMPARE(grid.headCount(), 4);
        grid.setMatrix(causal(2, 1, 0, 8, 8));
        QCOMPARE(grid.blockSize(1), 1);
        QCOMPARE(grid.pooledWeight(1, 7, 0), 1.0f / 36);
        const QRect thumb = grid.thumbnailRect(1);
        QVERIFY(!thumb.isEmpty());
        // One cell per position while it fits: the top-left pixel is weight(0, 0) = 1.
        QCOMPARE(grid.grab().toImage().pixelColor(thumb.topLeft() + QPoint(4, 4)),
                 grid.colourFor(1.0f));
        // 130 positions need blocks of 4 (64 cells × 2 = 128 < 130): a cell is a 4 × 4 maximum.
        for (int query = 8; query < 130; ++query) {
            grid.appendRows(causal(2, 1, query, 1, query + 1));
        }
        QCOMPARE(grid.blockSize(1), 4);
        float expected = 0;
        for (int query = 4; query < 8; ++query) {
            for (int key = 0; key < 4; ++key) {
                expected =
                    std::max(expected, causal(2, 1, query, 1, query + 1).weights[size_t(key)]);
            }
        }
        QCOMPARE(grid.pooledWeight(1, 1, 0), expected);
        QSignalSpy spy(&grid, &AttentionHeadGridWidget::headSelected);
        QTest::mouseClick(&grid, Qt::LeftButton, {}, grid.thumbnailRect(3).center());
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toInt(), 3);
        QCOMPARE(grid.selectedHead(), 3);
        QCOMPARE(grid.headAt(grid.thumbnailRect(2).center()), 2);
        // A matrix of another layer starts over.
        grid.setMatrix(causal(5, 0, 0, 2, 2));
        QCOMPARE(grid.layer(), 5);
        QCOMPARE(grid.blockSize(1), 1);
    }

    void overviewColoursOneValuePerHead() {
        AttentionOverviewWidget overview;
        overview.resize(400, 300);
        overview.setMetricName("entropy");
        overview.setValues(2, 3, {0.5f, 1.0f, 1.5f, 2.0f, 2.5f, 3.0f});
        QCOMPARE(overview.range(), std::make_pair(0.5f, 3.0f));
        const QImage image = overview.grab().toImage();
        for (int layer = 0; layer < 2; ++layer) {
            for (int head = 0; head < 3; ++head) {
                QCOMPARE(image.pixelColor(overview.cellRect(layer, head).center()),
                         overview.colourFor(overview.value(layer, head)));
            }
        }
        QVERIFY(overview.colourFor(0.5f) != overview.colourFor(3.0f));
        QSignalSpy spy(&overview, &AttentionOverviewWidget::headSelected);
        QTest::mouseClick(&overview, Qt::LeftButton, {}, overview.cellRect(1, 2).center());
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toInt(), 1);
        QCOMPARE(spy.at(0).at(1).toInt(), 2);
        // Unknown heads are grey; a value outside the range widens it.
        overview.setValue(3, 0, 10.0f);
        QCOMPARE(overview.layerCount(), 4);
        QVERIFY(std::isnan(overview.value(2, 1)));
        QCOMPARE(overview.range().second, 10.0f);
        QCOMPARE(overview.grab().toImage().pixelColor(overview.cellRect(2, 1).center()),
                 AttentionOverviewWidget::unknownColour());
    }

    void headSummaries() {
        AttentionMatrix uniform{0, 0, 0, 2, 4, {0.25f, 0.25f, 0.25f, 0.25f, 1, 0, 0, 0}};
        QCOMPARE(AttentionOverviewWidget::meanRowEntropy(uniform), float(std::log(4.0) / 2));
        QCOMPARE(AttentionOverviewWidget::meanRowMaximum(uniform), 0.625f);
    }

    void heatmapTextsNeverOverprint_data() {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<int>("tokens");
        QTest::addColumn<int>("selected");
        for (const QSize size : layout_checks::layoutSizes()) {
            for (const int tokens : {8, 64, 300}) {
                QTest::addRow("%dx%d, %d tokens", size.width(), size.height(), tokens)
                    << size << tokens << tokens / 3;
            }
        }
    }

    void heatmapTextsNeverOverprint() {
        QFETCH(QSize, size);
        QFETCH(int, tokens);
        QFETCH(int, selected);
        AttentionHeatmapWidget map;
        map.resize(size);
        map.setMatrix(causal(27, 31, 0, tokens, tokens));
        map.setTokenLabels(realisticTokens(tokens));
        map.setSelectedPosition(selected);
        for (const bool log : {false, true}) {
            map.setLogScale(log);
            const QStringList problems = layout_checks::colourBarPanelProblems(map, 4);
            QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
            // The map is labelled on both axes, and the selected position stays labelled.
            const DrawnTexts texts = map.drawnTexts();
            const auto count = [&](const QString& label) {
                return std::count_if(texts.begin(), texts.end(), [&](const DrawnText& t) {
                    return t.kind == DrawnText::Kind::TickLabel && t.text == label;
                });
            };
            const QString selectedLabel = realisticTokens(tokens)[selected];
            if (QFontMetrics(map.font()).horizontalAdvance(selectedLabel) < 40)
                QCOMPARE(count(selectedLabel) >= 2, true);  // its row and its column
        }
    }

    // What the heat map says it drew is what it drew: every pixel of text colour lies in a reported
    // text box, and every reported box holds text.
    void heatmapReportsTheTextsItDraws_data() {
        QTest::addColumn<QSize>("size");
        QTest::newRow("260x220") << QSize(260, 220);
        QTest::newRow("640x480") << QSize(640, 480);
        QTest::newRow("1200x800") << QSize(1200, 800);
    }

    void heatmapReportsTheTextsItDraws() {
        QFETCH(QSize, size);
        AttentionHeatmapWidget map;
        QPalette palette = map.palette();
        palette.setColor(QPalette::WindowText, Qt::red);
        palette.setColor(QPalette::Window, Qt::white);
        palette.setColor(QPalette::Highlight, Qt::blue);
        map.setPalette(palette);
        map.resize(size);
        map.setMatrix(causal(0, 0, 0, 64, 64));
        map.setTokenLabels(realisticTokens(64));
        map.setSelectedPosition(20);
        const QImage image = map.grab().toImage().convertToFormat(QImage::Format_RGB32);
        QCOMPARE(image.size(), size);  // device pixel ratio 1
        const DrawnTexts texts = map.drawnTexts();
        const QRect bar = map.colourBarArea();
        std::vector<int> inked(texts.size(), 0);
        for (int y = 0; y < image.height(); ++y) {
            for (int x = 0; x < image.width(); ++x) {
                if (!isTextPixel(image.pixel(x, y)) || bar.contains(x, y))
                    continue;
                bool inside = false;
                for (size_t i = 0; i < texts.size(); ++i) {
                    // Half a pixel of anti-aliasing either side of a box.
                    if (texts[i].rect.adjusted(-1, -1, 1, 1).contains(QPointF(x + 0.5, y + 0.5))) {
                        inside = true;
                        ++inked[i];
                    }
                }
                QVERIFY2(inside, qPrintable(QStringLiteral("text pixel at %1,%2 outside every "
                                                           "reported text")
                                                .arg(x)
                                                .arg(y)));
            }
        }
        for (size_t i = 0; i < texts.size(); ++i) {
            const bool blank = texts[i].text.trimmed().isEmpty();
            QVERIFY2(blank || inked[i] > 0, qPrintable(layout_checks::describe(texts[i])));
        }
    }

    void overviewTextsNeverOverprint_data() {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("heads");
        for (const QSize size : layout_checks::layoutSizes()) {
            QTest::addRow("%dx%d, 28x16", size.width(), size.height()) << size << 28 << 16;
            QTest::addRow("%dx%d, 40x64", size.width(), size.height()) << size << 40 << 64;
        }
    }

    void overviewTextsNeverOverprint() {
        QFETCH(QSize, size);
        QFETCH(int, layers);
        QFETCH(int, heads);
        AttentionOverviewWidget overview;
        overview.resize(size);
        fillOverview(overview, layers, heads);
        overview.setSelected(layers - 1, heads - 1);
        const QStringList problems = layout_checks::colourBarPanelProblems(overview, 4);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
    }

    void headGridTextsNeverOverprint_data() {
        layout_checks::addLayoutSizeRows("heads", {2, 16, 32});
    }

    void headGridTextsNeverOverprint() {
        QFETCH(QSize, size);
        QFETCH(int, heads);
        AttentionHeadGridWidget grid;
        grid.resize(size);
        for (int head = 0; head < heads; ++head)
            grid.setMatrix(causal(27, head, 0, 40, 40));
        const DrawnTexts texts = grid.drawnTexts();
        const QStringList problems = layout_checks::problems(texts, grid.rect(), {grid.dataArea()});
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
        for (int head = 0; head < heads; ++head) {
            QVERIFY(grid.dataArea().contains(grid.thumbnailRect(head)));
            QVERIFY(grid.rect().contains(grid.thumbnailRect(head)));
            for (const DrawnText& t : texts)
                QVERIFY2(!t.rect.intersects(grid.thumbnailRect(head)),
                         qPrintable(layout_checks::describe(t)));
        }
    }

    // The texts are laid out once with the geometry; a new font lays them out again.
    void textsFollowTheFont() {
        AttentionHeatmapWidget map;
        AttentionOverviewWidget overview;
        AttentionHeadGridWidget grid;
        map.resize(640, 480);
        overview.resize(640, 480);
        grid.resize(640, 480);
        map.setMatrix(causal(0, 0, 0, 20, 20));
        map.setTokenLabels(realisticTokens(20));
        fillOverview(overview, 28, 16);
        grid.setMatrix(causal(0, 0, 0, 20, 20));
        const auto titleHeight = [](const DrawnTexts& texts) {
            return texts.empty() ? 0.0 : texts.front().rect.height();
        };
        const double before[] = {titleHeight(map.drawnTexts()), titleHeight(overview.drawnTexts()),
                                 titleHeight(grid.drawnTexts())};
        QFont large = map.font();
        large.setPointSize(large.pointSize() * 2);
        map.setFont(large);
        overview.setFont(large);
        grid.setFont(large);
        QVERIFY(titleHeight(map.drawnTexts()) > before[0]);
        QVERIFY(titleHeight(overview.drawnTexts()) > before[1]);
        QVERIFY(titleHeight(grid.drawnTexts()) > before[2]);
        QVERIFY2(layout_checks::problems(map.drawnTexts(), map.rect(), {map.dataArea()}).isEmpty(),
                 "after the font change");
    }

    // With nothing to draw, each panel reports the sentence it shows instead, inside the panel.
    void emptyPanelsReportTheirPlaceholder() {
        AttentionHeatmapWidget map;
        AttentionOverviewWidget overview;
        AttentionHeadGridWidget grid;
        for (QWidget* panel : std::initializer_list<QWidget*>{&map, &overview, &grid})
            panel->resize(120, 100);
        for (const DrawnTexts& texts :
             {map.drawnTexts(), overview.drawnTexts(), grid.drawnTexts()}) {
            QCOMPARE(texts.size(), size_t(1));
            QVERIFY(!texts.front().text.isEmpty());
            QVERIFY(QRectF(0, 0, 120, 100).contains(texts.front().rect));
        }
        QVERIFY(map.dataArea().isEmpty());
        map.setMatrix(causal(0, 0, 0, 4, 4));
        map.resize(420, 420);
        QVERIFY(!map.dataArea().isEmpty());
        QVERIFY(map.drawnTexts().size() > 1);
    }
};

QTEST_MAIN(TestWidgetAttention)
#include "test_widget_attention.moc"
