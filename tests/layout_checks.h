#pragma once
// Checks shared by the widget tests on what a panel reports it drew (drawnTexts()): no two texts
// overlap, each lies inside the widget, no legend covers a data area; and, for the QCustomPlot
// charts, whose tick labels' places are computed rather than read from the painter, that the
// pixels rendered in the tick labels' colour lie inside the reported boxes. Each check answers
// with what went wrong, naming the texts and their rectangles, or nothing.

#include <QApplication>
#include <QList>
#include <QRect>
#include <QSize>
#include <QString>
#include <QStringList>
#include <QTest>

#include <algorithm>
#include <initializer_list>
#include <vector>

#include <qcustomplot.h>

#include "drawn_text.h"

namespace layout_checks {

using inferlens::widgets::DrawnText;
using inferlens::widgets::DrawnTexts;

inline QString describe(const DrawnText& text) {
    const QRectF& r = text.rect;
    return QStringLiteral("\"%1\" (%2,%3 %4×%5)")
        .arg(text.text.left(40))
        .arg(r.x())
        .arg(r.y())
        .arg(r.width())
        .arg(r.height());
}

// What is wrong with the texts drawn: empty when nothing is. A text with no characters may have
// an empty box (nothing is drawn for it); one with characters must not.
inline QStringList problems(const DrawnTexts& texts, const QRect& widget,
                            const std::vector<QRect>& dataAreas) {
    QStringList found;
    for (size_t i = 0; i < texts.size(); ++i) {
        const QRectF& a = texts[i].rect;
        if (a.isEmpty() && !texts[i].text.isEmpty()) {
            found << QStringLiteral("empty box: ") + describe(texts[i]);
        }
        if (!QRectF(widget).contains(a)) {
            found << QStringLiteral("outside the widget: ") + describe(texts[i]);
        }
        for (size_t j = i + 1; j < texts.size(); ++j) {
            if (a.intersects(texts[j].rect)) {
                found << QStringLiteral("overlap: ") + describe(texts[i]) +
                             QStringLiteral(" and ") + describe(texts[j]);
            }
        }
        if (texts[i].kind == DrawnText::Kind::Legend) {
            for (const QRect& area : dataAreas) {
                if (!area.isEmpty() && a.intersects(QRectF(area))) {
                    found << QStringLiteral("legend over a data area: ") + describe(texts[i]);
                }
            }
        }
    }
    return found;
}

// The problems of a panel with a colour bar beside its data area (the heat maps): those of its
// texts, an empty data area, a colour bar on the data area or outside the panel, and fewer than
// `leastTickLabels` tick labels.
template <typename Panel>
QStringList colourBarPanelProblems(Panel& panel, int leastTickLabels) {
    const DrawnTexts texts = panel.drawnTexts();
    QStringList found = problems(texts, panel.rect(), {panel.dataArea()});
    if (panel.dataArea().isEmpty()) {
        found << QStringLiteral("empty data area");
    }
    if (panel.colourBarArea().intersects(panel.dataArea())) {
        found << QStringLiteral("colour bar on the data area");
    }
    if (!panel.rect().contains(panel.colourBarArea())) {
        found << QStringLiteral("colour bar outside the panel");
    }
    const auto tickLabels = std::count_if(texts.begin(), texts.end(), [](const DrawnText& t) {
        return t.kind == DrawnText::Kind::TickLabel;
    });
    if (tickLabels < leastTickLabels) {
        found
            << QStringLiteral("%1 tick labels, fewer than %2").arg(tickLabels).arg(leastTickLabels);
    }
    return found;
}

// The sizes a painted panel is checked at: from a cramped dock to a large screen.
inline QList<QSize> layoutSizes() {
    return {{250, 200}, {260, 220}, {330, 260},  {420, 320},
            {640, 480}, {900, 600}, {1200, 800}, {1400, 900}};
}

// The data rows of a test run at every layoutSizes() size: a QSize column "size", rows named
// "640x480".
inline void addLayoutSizeRows() {
    QTest::addColumn<QSize>("size");
    for (const QSize size : layoutSizes())
        QTest::addRow("%dx%d", size.width(), size.height()) << size;
}

// The same with each of `counts` at every size, in an int column `what` (a literal: QTest keeps
// the pointer): rows named like "640x480, 16 heads".
inline void addLayoutSizeRows(const char* what, std::initializer_list<int> counts) {
    QTest::addColumn<QSize>("size");
    QTest::addColumn<int>(what);
    for (const QSize size : layoutSizes()) {
        for (const int count : counts)
            QTest::addRow("%dx%d, %d %s", size.width(), size.height(), count, what)
                << size << count;
    }
}

// Shows the chart at `size` on the offscreen platform and replots it there.
inline bool showAt(QCustomPlot& plot, QSize size) {
    plot.show();
    plot.resize(size);
    if (!QTest::qWaitForWindowExposed(&plot)) {
        return false;
    }
    // The viewport follows the size in the resize event, which may come a moment later.
    if (!QTest::qWaitFor([&] { return plot.viewport().size() == size; }, 2000)) {
        return false;
    }
    plot.replot(QCustomPlot::rpImmediateRefresh);
    return true;
}

// The problems with the texts the chart draws when shown at `size`, `areas` giving its data areas
// after the replot; a chart that could not be shown, or kept no height for its plot, has those.
template <typename Chart, typename Areas>
QStringList problemsAt(Chart& chart, QSize size, Areas areas) {
    if (!showAt(chart, size)) {
        return {QStringLiteral("not shown at %1x%2").arg(size.width()).arg(size.height())};
    }
    if (chart.dataArea().height() <= 0) {
        return {QStringLiteral("no height left for the plot at %1x%2")
                    .arg(size.width())
                    .arg(size.height())};
    }
    return problems(chart.drawnTexts(), chart.rect(), areas());
}

// The same for a chart whose only data area is its dataArea().
template <typename Chart>
QStringList problemsAt(Chart& chart, QSize size) {
    return problemsAt(chart, size, [&] { return std::vector<QRect>{chart.dataArea()}; });
}

// The problems at sizes from 300 × 200 to 1200 × 800 (in steps that miss no layout threshold by
// much), each prefixed with its size; `areas` gives the chart's data areas after a replot.
template <typename Chart, typename Areas>
QStringList problemsAtEverySize(Chart& chart, Areas areas) {
    QStringList found;
    for (int width = 300; width <= 1200; width += 45) {
        for (int height = 200; height <= 800; height += 40) {
            if (!showAt(chart, QSize(width, height))) {
                return {QStringLiteral("not shown at %1x%2").arg(width).arg(height)};
            }
            for (const QString& problem : problems(chart.drawnTexts(), chart.rect(), areas())) {
                found << QStringLiteral("%1x%2: ").arg(width).arg(height) + problem;
            }
        }
    }
    return found;
}

// Renders the chart with every tick label in a colour nothing else has and checks the coloured
// pixels against the tick label boxes `drawn` reports for that rendering: every such pixel inside
// a box (give or take a pixel of antialiasing), and every box with such pixels in it.
template <typename Chart>
QStringList tickLabelPixelProblems(Chart& chart) {
    const QColor marker(255, 0, 255);
    for (QCPAxisRect* rect : chart.axisRects()) {
        for (QCPAxis* axis : rect->axes()) {
            axis->setTickLabelColor(marker);
        }
    }
    const QImage image = chart.toPixmap().toImage();
    const DrawnTexts texts = chart.drawnTexts();
    std::vector<QRectF> boxes;
    for (const DrawnText& text : texts) {
        if (text.kind == DrawnText::Kind::TickLabel) {
            boxes.push_back(text.rect);
        }
    }
    std::vector<int> hits(boxes.size(), 0);
    QStringList found;
    int stray = 0;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            if (!(c.red() > 200 && c.blue() > 200 && c.green() < 150)) {
                continue;
            }
            const QRectF pixel(x, y, 1, 1);
            bool inside = false;
            for (size_t i = 0; i < boxes.size(); ++i) {
                if (boxes[i].adjusted(-1, -1, 1, 1).contains(pixel)) {
                    inside = true;
                    ++hits[i];
                }
            }
            if (!inside && stray++ < 5) {
                found
                    << QStringLiteral("tick label pixel outside every box at %1,%2").arg(x).arg(y);
            }
        }
    }
    for (size_t i = 0, box = 0; i < texts.size(); ++i) {
        if (texts[i].kind == DrawnText::Kind::TickLabel && hits[box++] == 0) {
            found << QStringLiteral("nothing drawn in ") + describe(texts[i]);
        }
    }
    if (boxes.empty()) {
        found << QStringLiteral("no tick labels reported");
    }
    return found;
}

}  // namespace layout_checks
