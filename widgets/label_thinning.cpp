#include "label_thinning.h"

#include <QPainter>
#include <QPalette>
#include <QWidget>
#include <algorithm>
#include <cmath>

namespace inferlens::widgets {

PlacedText placeText(const QFontMetrics& metrics, const QString& text, int x, int centreY,
                     Qt::Alignment align, DrawnText::Kind kind) {
    const int width = metrics.horizontalAdvance(text);
    const int line = metrics.height();
    const int left = align & Qt::AlignRight     ? x - width
                     : align & Qt::AlignHCenter ? x - width / 2
                                                : x;
    return {{text, QRectF(left, centreY - line / 2, width, line), kind}, false};
}

PlacedText placeVerticalText(const QFontMetrics& metrics, const QString& text, int centreX, int top,
                             DrawnText::Kind kind) {
    const int width = metrics.horizontalAdvance(text);
    const int line = metrics.height();
    return {{text, QRectF(centreX - line / 2, top, line, width), kind}, true};
}

PlacedText placePlaceholder(const QWidget& panel, const QString& text) {
    const QFontMetrics metrics = panel.fontMetrics();
    const QRect area = panel.rect();
    return placeText(metrics, metrics.elidedText(text, Qt::ElideRight, area.width() - 12),
                     area.center().x(), area.center().y(), Qt::AlignHCenter,
                     DrawnText::Kind::Annotation);
}

int labelStep(double pitch, int extent, int gap) {
    if (pitch <= 0) {
        return 1;
    }
    // One pixel more than the ratio: label positions are rounded to whole pixels.
    return std::max(1, int(std::ceil((extent + gap + 1) / pitch)));
}

bool fitsAmong(const QRectF& rect, const PlacedTexts& placed) {
    return std::none_of(placed.begin(), placed.end(),
                        [&](const PlacedText& t) { return t.drawn.rect.intersects(rect); });
}

void placeIfFree(PlacedTexts& placed, PlacedText text, const QRect& bounds) {
    if (QRectF(bounds).contains(text.drawn.rect) && fitsAmong(text.drawn.rect, placed)) {
        placed.push_back(std::move(text));
    }
}

PlacedTexts colourLegendLabels(const QFontMetrics& metrics, const QRect& bar,
                               const std::vector<std::pair<double, QString>>& ticks,
                               int labelWidth) {
    PlacedTexts labels;
    if (bar.height() < 2 || ticks.empty()) {
        return labels;
    }
    // Ends first (the range is what a reader needs most), then the inner ticks that have room.
    std::vector<size_t> order{0};
    if (ticks.size() > 1) {
        order.push_back(ticks.size() - 1);
    }
    for (size_t i = 1; i + 1 < ticks.size(); ++i) {
        order.push_back(i);
    }
    const int line = metrics.height();
    for (const size_t i : order) {
        const auto& [t, label] = ticks[i];
        // Within the bar's extent, so that the end labels reach neither above nor below it (a bar
        // shorter than a line keeps one label, at its middle).
        const int y = bar.height() < line
                          ? bar.center().y()
                          : std::clamp(bar.bottom() - int(t * (bar.height() - 1) + 0.5),
                                       bar.top() + line / 2, bar.bottom() - line / 2);
        const QString text = metrics.elidedText(label, Qt::ElideRight, labelWidth);
        PlacedText placed =
            placeText(metrics, text, bar.right() + 6, y, Qt::AlignLeft, DrawnText::Kind::Legend);
        // One pixel apart, whatever the rounding.
        if (fitsAmong(placed.drawn.rect.adjusted(0, -1, 0, 1), labels)) {
            labels.push_back(std::move(placed));
        }
    }
    return labels;
}

void paintColourBar(QPainter& painter, const QRect& bar, const ColourMap& map,
                    const PlacedTexts& texts, const QPalette& palette) {
    paintColourLegend(painter, bar, map, {}, palette);
    painter.save();
    painter.setPen(palette.color(QPalette::WindowText));
    for (const PlacedText& t : texts) {
        if (t.drawn.kind == DrawnText::Kind::Legend) {
            const int y = int(t.drawn.rect.center().y());
            painter.drawLine(bar.right() + 1, y, bar.right() + 4, y);
        }
    }
    painter.restore();
}

QRectF shownIn(const QWidget& panel, const QWidget& viewport, const QRectF& rect) {
    const QRectF shown = rect & QRectF(viewport.rect());
    if (shown.isEmpty()) {
        return {};
    }
    return shown.translated(viewport.mapTo(&panel, QPoint(0, 0)));
}

void paintText(QPainter& painter, const PlacedText& t) {
    const QRectF& r = t.drawn.rect;
    if (!t.vertical) {
        painter.drawText(r, Qt::AlignCenter | Qt::TextSingleLine, t.drawn.text);
        return;
    }
    painter.save();
    painter.translate(r.left(), r.bottom());
    painter.rotate(-90);
    painter.drawText(QRectF(0, 0, r.height(), r.width()), Qt::AlignCenter | Qt::TextSingleLine,
                     t.drawn.text);
    painter.restore();
}

void paintTexts(QPainter& painter, const PlacedTexts& texts) {
    for (const PlacedText& t : texts) {
        paintText(painter, t);
    }
}

DrawnTexts drawnTextsOf(const PlacedTexts& texts) {
    DrawnTexts drawn;
    drawn.reserve(texts.size());
    for (const PlacedText& t : texts) {
        drawn.push_back(t.drawn);
    }
    return drawn;
}

}  // namespace inferlens::widgets
