#include "plot_text_layout.h"

#include <QFontMetrics>
#include <QTransform>
#include <algorithm>
#include <cmath>

namespace inferlens::widgets {

namespace {

// getTickLabelData: the label's box at the origin, measured with the font QCustomPlot nudges by
// 0.05 pt (its workaround for oscillating bounding rects). Labels in exponent notation, which
// QCustomPlot draws as powers of ten, are measured as plain text: none of our axes shows them.
QRect tickLabelBounds(const QCPAxis* axis, const QString& text) {
    QFont font = axis->tickLabelFont();
    if (font.pointSizeF() > 0) {
        font.setPointSizeF(font.pointSizeF() + 0.05);
    }
    QRect bounds =
        QFontMetrics(font).boundingRect(0, 0, 0, 0, Qt::TextDontClip | Qt::AlignHCenter, text);
    bounds.moveTopLeft(QPoint(0, 0));
    return bounds;
}

// getTickLabelDrawOffset: where the label's unrotated top left goes relative to its anchor beside
// the tick (integers, truncated as QCustomPlot truncates them).
QPoint tickLabelDrawOffset(const QCPAxis* axis, const QRect& total) {
    const double rotation = axis->tickLabelRotation();
    const bool rotated = !qFuzzyIsNull(rotation);
    const bool flip = qFuzzyCompare(qAbs(rotation), 90.0);
    const double radians = rotation / 180.0 * M_PI;
    const double w = total.width(), h = total.height();
    const bool outside = axis->tickLabelSide() == QCPAxis::lsOutside;
    const QCPAxis::AxisType type = axis->axisType();
    int x = 0, y = 0;
    if ((type == QCPAxis::atLeft && outside) || (type == QCPAxis::atRight && !outside)) {
        if (!rotated) {
            x = int(-w);
            y = int(-h / 2.0);
        } else if (rotation > 0) {
            x = int(-std::cos(radians) * w);
            y = int(flip ? -w / 2.0 : -std::sin(radians) * w - std::cos(radians) * h / 2.0);
        } else {
            x = int(-std::cos(-radians) * w - std::sin(-radians) * h);
            y = int(flip ? w / 2.0 : std::sin(-radians) * w - std::cos(-radians) * h / 2.0);
        }
    } else if ((type == QCPAxis::atRight && outside) || (type == QCPAxis::atLeft && !outside)) {
        if (!rotated) {
            y = int(-h / 2.0);
        } else if (rotation > 0) {
            x = int(std::sin(radians) * h);
            y = int(flip ? -w / 2.0 : -std::cos(radians) * h / 2.0);
        } else {
            y = int(flip ? w / 2.0 : -std::cos(-radians) * h / 2.0);
        }
    } else if ((type == QCPAxis::atTop && outside) || (type == QCPAxis::atBottom && !outside)) {
        if (!rotated) {
            x = int(-w / 2.0);
            y = int(-h);
        } else if (rotation > 0) {
            x = int(-std::cos(radians) * w + std::sin(radians) * h / 2.0);
            y = int(-std::sin(radians) * w - std::cos(radians) * h);
        } else {
            x = int(-std::sin(-radians) * h / 2.0);
            y = int(-std::cos(-radians) * h);
        }
    } else {
        if (!rotated) {
            x = int(-w / 2.0);
        } else if (rotation > 0) {
            x = int(std::sin(radians) * h / 2.0);
        } else {
            x = int(-std::cos(-radians) * w - std::sin(-radians) * h / 2.0);
            y = int(std::sin(-radians) * w);
        }
    }
    return QPoint(x, y);
}

int outwardTickLength(const QCPAxis* axis) {
    return std::max({0, axis->tickLengthOut(), axis->subTickLengthOut()});
}

// QCPAxisPainterPrivate::draw drops an outside label that would cross the viewport's border.
bool clippedByViewport(const QCPAxis* axis, const QRectF& box) {
    if (axis->tickLabelSide() != QCPAxis::lsOutside) {
        return false;
    }
    const QRect viewport = axis->parentPlot()->viewport();
    if (axis->orientation() == Qt::Horizontal) {
        return box.left() + box.width() > viewport.right() || box.left() < viewport.left();
    }
    return box.top() + box.height() > viewport.bottom() || box.top() < viewport.top();
}

QRect textRect(const QFont& font, const QRect& in, int flags, const QString& text) {
    return QFontMetrics(font).boundingRect(in, flags, text);
}

}  // namespace

QRectF tickLabelRect(const QCPAxis* axis, double pixel, const QString& text) {
    const QRect total = tickLabelBounds(axis, text);
    QRect rotated = total;
    if (!qFuzzyIsNull(axis->tickLabelRotation())) {
        QTransform transform;
        transform.rotate(axis->tickLabelRotation());
        rotated = transform.mapRect(total);
    }
    const int distance =
        axis->tickLabelSide() == QCPAxis::lsOutside
            ? outwardTickLength(axis) + axis->tickLabelPadding()
            : -(std::max(axis->tickLengthIn(), axis->subTickLengthIn()) + axis->tickLabelPadding());
    const QRect rect = axis->axisRect()->rect();
    const int offset = axis->offset();
    QPointF anchor;
    switch (axis->axisType()) {
        case QCPAxis::atLeft:
            anchor = QPointF(rect.left() - distance - offset, pixel);
            break;
        case QCPAxis::atRight:
            anchor = QPointF(rect.right() + distance + offset, pixel);
            break;
        case QCPAxis::atTop:
            anchor = QPointF(pixel, rect.top() - distance - offset);
            break;
        case QCPAxis::atBottom:
            anchor = QPointF(pixel, rect.bottom() + distance + offset);
            break;
    }
    return QRectF(anchor + QPointF(tickLabelDrawOffset(axis, total) + rotated.topLeft()),
                  QSizeF(rotated.size()));
}

void appendAxisTexts(const QCPAxis* axis, DrawnTexts& out) {
    if (!axis->realVisibility() || !axis->axisRect()) {
        return;
    }
    const bool horizontal = axis->orientation() == Qt::Horizontal;
    const QVector<double> ticks = axis->tickVector();
    const QVector<QString> labels = axis->tickVectorLabels();
    const bool hasLabels = axis->ticks() && axis->tickLabels() && !ticks.isEmpty();
    double labelsDepth = 0;  // the largest drawn label across the axis, for the axis label
    if (hasLabels) {
        for (int i = 0; i < std::min(ticks.size(), labels.size()); ++i) {
            if (labels[i].isEmpty()) {
                continue;
            }
            const QRectF box = tickLabelRect(axis, axis->coordToPixel(ticks[i]), labels[i]);
            if (clippedByViewport(axis, box)) {
                continue;
            }
            labelsDepth = std::max(labelsDepth, horizontal ? box.height() : box.width());
            out.push_back({labels[i], box, DrawnText::Kind::TickLabel});
        }
    }
    if (axis->label().isEmpty()) {
        return;
    }
    // The axis label sits beyond the ticks and the deepest tick label, centred on the axis.
    const int margin = outwardTickLength(axis) +
                       (hasLabels ? axis->tickLabelPadding() + int(labelsDepth) : 0) +
                       axis->labelPadding();
    const QRect size =
        QFontMetrics(axis->labelFont()).boundingRect(0, 0, 0, 0, Qt::TextDontClip, axis->label());
    const QRect rect = axis->axisRect()->rect();
    const int offset = axis->offset();
    const double w = size.width(), h = size.height();
    QRectF box;
    switch (axis->axisType()) {
        case QCPAxis::atLeft:
            box = QRectF(rect.left() - offset - margin - h,
                         rect.bottom() - rect.height() / 2.0 - w / 2, h, w);
            break;
        case QCPAxis::atRight:
            box = QRectF(rect.right() + offset + margin,
                         rect.bottom() - rect.height() / 2.0 - w / 2, h, w);
            break;
        case QCPAxis::atTop:
            box = QRectF(rect.left() + (rect.width() - w) / 2, rect.top() - offset - margin - h, w,
                         h);
            break;
        case QCPAxis::atBottom:
            box =
                QRectF(rect.left() + (rect.width() - w) / 2, rect.bottom() + offset + margin, w, h);
            break;
    }
    out.push_back({axis->label(), box, DrawnText::Kind::AxisLabel});
}

void appendAxisRectTexts(const QCPAxisRect* rect, DrawnTexts& out) {
    if (!rect->realVisibility()) {
        return;
    }
    for (const QCPAxis* axis : rect->axes()) {
        appendAxisTexts(axis, out);
    }
}

void appendTextElement(const QCPTextElement* element, DrawnText::Kind kind, DrawnTexts& out) {
    if (!element->realVisibility() || element->text().isEmpty()) {
        return;
    }
    out.push_back(
        {element->text(),
         textRect(element->font(), element->rect(), element->textFlags(), element->text()), kind});
}

void appendLegend(const QCPLegend* legend, DrawnTexts& out) {
    if (!legend->realVisibility() || legend->itemCount() == 0) {
        return;
    }
    QStringList names;
    for (int i = 0; i < legend->itemCount(); ++i) {
        if (auto* item = dynamic_cast<QCPPlottableLegendItem*>(legend->item(i))) {
            names << item->plottable()->name();
        }
    }
    out.push_back({names.join(QStringLiteral(", ")), legend->outerRect(), DrawnText::Kind::Legend});
}

QRectF itemTextRect(const QCPItemText* item) {
    QPolygonF corners;
    for (const QCPItemAnchor* anchor :
         {item->topLeft, item->topRight, item->bottomRight, item->bottomLeft}) {
        corners << anchor->pixelPosition();
    }
    return corners.boundingRect();
}

void appendItemText(const QCPItemText* item, DrawnTexts& out) {
    if (!item->realVisibility() || item->text().isEmpty()) {
        return;
    }
    const QRectF box = itemTextRect(item);
    // QCustomPlot skips an item whose box misses its clip rect altogether.
    if (item->clipToAxisRect() && item->clipAxisRect() &&
        !box.intersects(QRectF(item->clipAxisRect()->rect()))) {
        return;
    }
    out.push_back({item->text(), box, DrawnText::Kind::Annotation});
}

QString wrapText(const QString& text, const QFont& font, int width, int mostLines, bool* cut) {
    const QFontMetrics metrics(font);
    QStringList lines;
    for (const QString& paragraph : text.split(QLatin1Char('\n'))) {
        QString line;
        for (QString word : paragraph.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
            if (metrics.horizontalAdvance(word) > width) {
                word = metrics.elidedText(word, Qt::ElideRight, width);
            }
            const QString longer = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
            if (line.isEmpty() || metrics.horizontalAdvance(longer) <= width) {
                line = longer;
            } else {
                lines << line;
                line = word;
            }
        }
        lines << line;
    }
    const bool tooMany = lines.size() > std::max(mostLines, 1);
    if (tooMany) {
        const int kept = std::max(mostLines, 1);
        const QString rest = lines.mid(kept - 1).join(QLatin1Char(' '));
        lines = lines.mid(0, kept - 1);
        // Elided past the width, so that an ellipsis always shows the cut.
        lines << metrics.elidedText(rest + QStringLiteral(" \u2026"), Qt::ElideRight, width);
    }
    if (cut) {
        *cut = tooMany;
    }
    return lines.join(QLatin1Char('\n'));
}

void fitTitle(QCPTextElement* title, const QString& text) {
    QCustomPlot* plot = title->parentPlot();
    const int lineHeight = QFontMetrics(title->font()).height();
    // A fifth of the height at most, and always one line.
    const int mostLines = plot->viewport().height() / (5 * lineHeight);
    bool cut = false;
    title->setText(wrapText(text, title->font(), plot->viewport().width() - 8, mostLines, &cut));
    plot->setToolTip(cut ? text : QString());
}

void fitAxisLabel(QCPAxis* axis, const QString& label) {
    const QRect rect = axis->axisRect()->rect();
    const int length = axis->orientation() == Qt::Horizontal ? rect.width() : rect.height();
    QString elided =
        QFontMetrics(axis->labelFont()).elidedText(label, Qt::ElideRight, std::max(length - 4, 0));
    // A letter or two and an ellipsis say nothing.
    if (elided != label && elided.size() < 4) {
        elided.clear();
    }
    axis->setLabel(elided);
}

void fitTickCount(QCPAxis* axis) {
    const QSharedPointer<QCPAxisTicker> ticker = axis->ticker();
    if (!ticker || qSharedPointerDynamicCast<QCPAxisTickerText>(ticker)) {
        return;
    }
    const bool horizontal = axis->orientation() == Qt::Horizontal;
    const QRect rect = axis->axisRect()->rect();
    const double length = horizontal ? rect.width() : rect.height();
    const double lineHeight = QFontMetrics(axis->tickLabelFont()).height();
    // A first guess from a typical label's size, then fewer ticks until no two labels touch.
    const double typical = horizontal ? 4 * lineHeight : 1.6 * lineHeight;
    const double gap = horizontal ? lineHeight : lineHeight / 4;
    const QChar format =
        axis->numberFormat().isEmpty() ? QLatin1Char('g') : axis->numberFormat()[0];
    for (int count = std::clamp(int(length / typical), 1, 6); count >= 1; --count) {
        ticker->setTickCount(count);
        QVector<double> ticks;
        QVector<QString> labels;
        ticker->generate(axis->range(), axis->parentPlot()->locale(), format,
                         axis->numberPrecision(), ticks, nullptr, &labels);
        bool touching = false;
        QRectF previous;
        for (int i = 0; i < std::min(ticks.size(), labels.size()) && !touching; ++i) {
            const QRectF box = tickLabelRect(axis, axis->coordToPixel(ticks[i]), labels[i])
                                   .adjusted(-gap / 2, -gap / 2, gap / 2, gap / 2);
            touching = !previous.isNull() && box.intersects(previous);
            previous = box;
        }
        if (!touching) {
            return;
        }
    }
}

void fitAxesTwice(const std::vector<std::pair<QCPAxis*, QString>>& axes,
                  const std::function<void()>& layOut) {
    for (int round = 0; round < 2; ++round) {
        for (const auto& [axis, label] : axes) {
            fitTickCount(axis);
            fitAxisLabel(axis, label);
        }
        layOut();
    }
}

void putLegendInRow(QCustomPlot& plot, QCPLegend* legend, int row) {
    legend->setVisible(true);
    legend->setBorderPen(Qt::NoPen);
    legend->setBrush(Qt::NoBrush);
    plot.axisRect()->insetLayout()->take(legend);
    plot.plotLayout()->insertRow(row);
    plot.plotLayout()->addElement(row, 0, legend);
    plot.plotLayout()->setRowStretchFactor(row, 0.001);
}

void fitLegendColumns(QCPLegend* legend, int width, int most) {
    for (int columns = std::max(most, 1); columns >= 1; --columns) {
        // Columns first: the wrap is then the number of columns.
        if (legend->fillOrder() != QCPLayoutGrid::foColumnsFirst || legend->wrap() != columns) {
            legend->setWrap(columns);
            legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
        }
        if (legend->minimumOuterSizeHint().width() <= width) {
            return;
        }
    }
}

void reserveTickLabelOverhang(QCPAxisRect* rect) {
    const int half = QFontMetrics(rect->axis(QCPAxis::atLeft)->tickLabelFont()).height() / 2 + 2;
    QMargins margins = rect->minimumMargins();
    margins.setTop(std::max(margins.top(), half));
    rect->setMinimumMargins(margins);
    QCPAxis* bottom = rect->axis(QCPAxis::atBottom);
    bottom->setTickLabelPadding(std::max(bottom->tickLabelPadding(), half));
}

bool keepItemInside(QCPItemText* item, const QRect& area) {
    const QRectF box = itemTextRect(item);
    const QRectF inside(area);
    const bool fits = box.width() <= inside.width() && box.height() <= inside.height();
    item->setVisible(fits);
    if (!fits) {
        return false;
    }
    double dx = 0, dy = 0;
    if (box.left() < inside.left()) {
        dx = inside.left() - box.left();
    } else if (box.right() > inside.right()) {
        dx = inside.right() - box.right();
    }
    if (box.top() < inside.top()) {
        dy = inside.top() - box.top();
    } else if (box.bottom() > inside.bottom()) {
        dy = inside.bottom() - box.bottom();
    }
    if (dx != 0 || dy != 0) {
        item->position->setPixelPosition(item->position->pixelPosition() + QPointF(dx, dy));
    }
    return true;
}

}  // namespace inferlens::widgets
