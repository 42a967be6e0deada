#include "attention_heatmap_widget.h"

#include <QHelpEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>
#include <cstring>

#include "cell_mapping.h"
#include "display_text.h"
#include "panel_hints.h"

namespace inferlens::widgets {

namespace {

constexpr int kMargin = 6;
constexpr int kLegendBarWidth = 14;

std::vector<std::pair<double, QString>> legendTicks(bool logScale) {
    std::vector<std::pair<double, QString>> ticks;
    if (logScale) {
        // One tick per decade from the floor to 1.
        const int decades = int(std::lround(-std::log10(AttentionHeatmapWidget::kLogFloor)));
        for (int d = 0; d <= decades; ++d) {
            ticks.emplace_back(double(d) / decades, QStringLiteral("1e%1").arg(d - decades));
        }
        ticks.back().second = QStringLiteral("1");
    } else {
        for (int i = 0; i <= 4; ++i) {
            ticks.emplace_back(i / 4.0, QString::number(i / 4.0));
        }
    }
    return ticks;
}

}  // namespace

AttentionHeatmapWidget::AttentionHeatmapWidget(QWidget* parent)
    : QWidget(parent), map_(ColourMap::Palette::Viridis) {
    setMouseTracking(true);
}

QRgb AttentionHeatmapWidget::rgbFor(float weight) const {
    if (!logScale_) {
        return map_.rgbAt(weight);
    }
    const double floorLog = std::log10(double(kLogFloor));
    const double w = std::max(double(weight), double(kLogFloor));
    return map_.rgbAt((std::log10(w) - floorLog) / -floorLog);
}

void AttentionHeatmapWidget::colourRow(int cellRow) {
    auto* line = reinterpret_cast<QRgb*>(image_.scanLine(cellRow - store_.firstCellRow()));
    const QRgb masked = maskedColour().rgb();
    const QRgb zero = rgbFor(0);
    const QRgb evicted = evictedColour().rgb();
    const QRgb outsideWindow = outsideWindowColour().rgb();
    for (int column = 0; column < store_.cellColumns(); ++column) {
        const float value = store_.cell(cellRow, column);
        if (AttentionStore::masked(cellRow, column))
            line[column] = masked;
        else if (value == AttentionMatrix::kEvicted)
            line[column] = evicted;
        else if (value == AttentionMatrix::kOutsideWindow)
            line[column] = outsideWindow;
        else
            line[column] = std::isnan(value) ? zero : rgbFor(value);
    }
}

void AttentionHeatmapWidget::recolourAll() {
    for (int row = store_.firstCellRow(); row < store_.endCellRow(); ++row)
        colourRow(row);
}

void AttentionHeatmapWidget::show(const AttentionStore::Change& change) {
    if (change.relaid) {
        if (store_.empty()) {
            image_ = QImage();
        } else {
            if (image_.width() != store_.capacityColumns() ||
                image_.height() != store_.capacityRows())
                image_ =
                    QImage(store_.capacityColumns(), store_.capacityRows(), QImage::Format_RGB32);
            image_.fill(maskedColour());
            recolourAll();
        }
        invalidateGeometry();
    } else {
        for (int row = change.firstRow; row < change.endRow; ++row)
            colourRow(row);
        if (change.endRow > change.firstRow)
            invalidateGeometry();  // rows or columns may have been added
    }
    update();
}

void AttentionHeatmapWidget::setMatrix(AttentionMatrix matrix) {
    show(store_.set(matrix));
}

void AttentionHeatmapWidget::appendRows(const AttentionMatrix& rows) {
    show(store_.append(rows));
}

void AttentionHeatmapWidget::clear() {
    store_.clear();
    show({0, 0, true});
}

void AttentionHeatmapWidget::setMemoryBudget(int64_t bytes) {
    show(store_.setBudget(bytes));
}

void AttentionHeatmapWidget::setTokenLabels(const QStringList& labels) {
    labels_.clear();
    labels_.reserve(labels.size());
    labelTextWidth_ = 0;
    const QFontMetrics metrics = fontMetrics();
    for (const QString& label : labels) {
        labels_ << visibleWhitespace(label);
        labelTextWidth_ = std::max(labelTextWidth_, metrics.horizontalAdvance(labels_.back()));
    }
    invalidateGeometry();
    update();
}

void AttentionHeatmapWidget::appendTokenLabel(const QString& label) {
    labels_ << visibleWhitespace(label);
    const int width = fontMetrics().horizontalAdvance(labels_.back());
    if (width > labelTextWidth_) {
        labelTextWidth_ = width;
        invalidateGeometry();
    }
    update();
}

void AttentionHeatmapWidget::setSelectedPosition(int position) {
    position = std::max(position, -1);
    if (position != selectedPosition_) {
        selectedPosition_ = position;
        update();
    }
}

void AttentionHeatmapWidget::setLogScale(bool on) {
    if (on == logScale_) {
        return;
    }
    logScale_ = on;
    recolourAll();
    invalidateGeometry();  // the legend's labels change width
    update();
}

QString AttentionHeatmapWidget::labelFor(int position) const {
    return position >= 0 && position < labels_.size() ? labels_[position]
                                                      : QString::number(position);
}

const AttentionHeatmapWidget::Geometry& AttentionHeatmapWidget::geometry() const {
    if (geometryValid_) {
        return geometry_;
    }
    geometryValid_ = true;
    Geometry g;
    const QFontMetrics metrics = fontMetrics();
    const int line = metrics.height();
    const int numberWidth =
        metrics.horizontalAdvance(QString::number(firstQuery() + queryCount())) + 4;
    g.labelWidth =
        std::clamp(std::max(labelTextWidth_, numberWidth), 0, 12 * metrics.averageCharWidth()) + 4;
    const int legendWidth =
        kLegendBarWidth + colourLegendLabelWidth(metrics, legendTicks(logScale_)) + kMargin;
    const QRect area = rect().adjusted(kMargin + g.labelWidth, kMargin + line + 4,
                                       -(kMargin + legendWidth), -(kMargin + g.labelWidth));
    const int rows = cellRowCount(), keys = store_.cellColumns();
    if (rows > 0 && keys > 0 && area.width() > 0 && area.height() > 0) {
        g.cell = std::min(double(area.width()) / keys, double(area.height()) / rows);
        if (g.cell >= 1) {
            g.cell = std::floor(g.cell);  // whole pixels: every cell the same size, crisp edges
        }
        g.plot = QRect(area.left(), area.top(), std::max(1, int(std::lround(keys * g.cell))),
                       std::max(1, int(std::lround(rows * g.cell))));
        g.rowLabelStep = std::max(1, int(std::ceil(line / g.cell)));
        g.keyLabelStep = g.rowLabelStep;
    }
    const int barHeight = std::max(std::min(area.height(), 240), 40);
    g.legend = QRect(area.right() + 1 + 2 * kMargin, area.top(), kLegendBarWidth, barHeight);
    geometry_ = g;
    return geometry_;
}

std::optional<std::pair<int, int>> AttentionHeatmapWidget::cellAt(QPoint point) const {
    const Geometry& g = geometry();
    if (g.cell <= 0 || !g.plot.contains(point)) {
        return std::nullopt;
    }
    const int column =
        std::clamp(cellIndexAt(point.x(), g.plot.left(), g.cell), 0, store_.cellColumns() - 1);
    const int row = std::clamp(cellIndexAt(point.y(), g.plot.top(), g.cell), 0, cellRowCount() - 1);
    // A pooled cell answers with its first position (the first query held, in the first row).
    const int query = std::max((store_.firstCellRow() + row) * block(), firstQuery());
    return std::make_pair(query, column * block());
}

QRect AttentionHeatmapWidget::cellRect(int query, int key) const {
    const Geometry& g = geometry();
    if (g.cell <= 0 || query < firstQuery() || query >= firstQuery() + queryCount() || key < 0 ||
        key >= keyCount()) {
        return {};
    }
    return cellPixelRect(key / block(), query / block() - store_.firstCellRow(), g.plot.topLeft(),
                         g.cell, g.cell);
}

QString AttentionHeatmapWidget::toolTipAt(QPoint point) const {
    const auto cell = cellAt(point);
    if (!cell) {
        return {};
    }
    const auto [query, key] = *cell;
    const bool masked = AttentionStore::masked(query / block(), key / block());
    if (block() > 1) {
        // A pooled cell: the ranges it covers and the largest weight among them.
        const int lastQuery =
            std::min((query / block() + 1) * block(), firstQuery() + queryCount()) - 1;
        const int lastKey = std::min(key + block(), keyCount()) - 1;
        const QString ranges = tr("%1 (%2) … %3 (%4) → %5 (%6) … %7 (%8)")
                                   .arg(labelFor(query))
                                   .arg(query)
                                   .arg(labelFor(lastQuery))
                                   .arg(lastQuery)
                                   .arg(labelFor(key))
                                   .arg(key)
                                   .arg(labelFor(lastKey))
                                   .arg(lastKey);
        if (masked)
            return tr("%1: masked (future tokens)").arg(ranges);
        return tr("%1: at most %2 (%3 × %3 positions per cell)")
            .arg(ranges)
            .arg(double(weight(query, key)), 0, 'g', 4)
            .arg(block());
    }
    if (masked) {
        return tr("%1 (%2) → %3 (%4): masked (a future token)")
            .arg(labelFor(query))
            .arg(query)
            .arg(labelFor(key))
            .arg(key);
    }
    if (weight(query, key) == AttentionMatrix::kEvicted) {
        return tr("%1 (%2) → %3 (%4): evicted from the sliding KV cache, never attended")
            .arg(labelFor(query))
            .arg(query)
            .arg(labelFor(key))
            .arg(key);
    }
    if (weight(query, key) == AttentionMatrix::kOutsideWindow) {
        return tr("%1 (%2) → %3 (%4): outside this layer's window, never attended")
            .arg(labelFor(query))
            .arg(query)
            .arg(labelFor(key))
            .arg(key);
    }
    return tr("%1 (%2) → %3 (%4): %5")
        .arg(labelFor(query))
        .arg(query)
        .arg(labelFor(key))
        .arg(key)
        .arg(double(weight(query, key)), 0, 'g', 4);
}

QString AttentionHeatmapWidget::poolingNote() const {
    if (block() == 1)
        return {};
    return tr(" · %1 × %1 positions per cell (their maximum), to stay within the %2 memory "
              "budget")
        .arg(block())
        .arg(locale().formattedDataSize(memoryBudget()));
}

bool AttentionHeatmapWidget::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        const QPoint pointer = static_cast<QHelpEvent*>(event)->pos();
        const auto cell = cellAt(pointer);
        return answerToolTip(this, event, toolTipAt(pointer),
                             cell ? cellRect(cell->first, cell->second) : QRect());
    }
    return QWidget::event(event);
}

void AttentionHeatmapWidget::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().window());
    const Geometry& g = geometry();
    if (g.cell <= 0) {
        paintPlaceholder(painter, *this, tr("No attention weights yet"));
        return;
    }
    painter.setPen(palette().color(QPalette::WindowText));
    const QFontMetrics metrics = fontMetrics();
    painter.drawText(QRect(kMargin, kMargin, width() - 2 * kMargin, metrics.height()),
                     Qt::AlignLeft | Qt::AlignVCenter,
                     tr("Layer %1 · head %2 · %3 queries × %4 keys · %5")
                             .arg(layer())
                             .arg(head())
                             .arg(queryCount())
                             .arg(keyCount())
                             .arg(logScale_ ? tr("log scale") : tr("linear scale")) +
                         poolingNote());
    // Nearest-neighbour scaling: each weight stays one flat cell, as the tests and the eye expect.
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    painter.drawImage(QRectF(g.plot), image_, QRectF(0, 0, store_.cellColumns(), cellRowCount()));
    paintAxisLabels(painter, g);
    paintSelection(painter, g);
    paintLegend(painter, g);
}

void AttentionHeatmapWidget::paintSelection(QPainter& painter, const Geometry& g) const {
    const int position = selectedPosition_;
    const QColor highlight = palette().color(QPalette::Highlight);
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(highlight, 1));
    // A bar in the gap beside the row and under the column, plus a thin outline across the map:
    // the bars never cover a cell, the outline only cells' edges.
    if (position >= firstQuery() && position < firstQuery() + queryCount()) {
        const QRect row = cellRect(position, 0);
        painter.fillRect(QRect(g.plot.left() - 3, row.top(), 3, row.height()), highlight);
        painter.drawRect(
            QRect(g.plot.left(), row.top(), g.plot.width(), row.height()).adjusted(0, 0, -1, -1));
    }
    if (position >= 0 && position < keyCount()) {
        const QRect column = cellRect(firstQuery(), position);
        painter.fillRect(QRect(column.left(), g.plot.bottom() + 1, column.width(), 3), highlight);
        painter.drawRect(QRect(column.left(), g.plot.top(), column.width(), g.plot.height())
                             .adjusted(0, 0, -1, -1));
    }
}

void AttentionHeatmapWidget::paintAxisLabels(QPainter& painter, const Geometry& g) const {
    const QFontMetrics metrics = fontMetrics();
    const int line = metrics.height();
    painter.setPen(palette().color(QPalette::WindowText));
    // Queries down the left, keys along the bottom (rotated); crowded axes show every n-th label.
    for (int row = 0; row < cellRowCount(); row += g.rowLabelStep) {
        const int y = g.plot.top() + int((row + 0.5) * g.cell);
        const QString text = metrics.elidedText(
            labelFor(std::max((store_.firstCellRow() + row) * block(), firstQuery())),
            Qt::ElideRight, g.labelWidth - 4);
        painter.drawText(QRect(g.plot.left() - g.labelWidth, y - line / 2, g.labelWidth - 4, line),
                         Qt::AlignRight | Qt::AlignVCenter, text);
    }
    for (int column = 0; column < store_.cellColumns(); column += g.keyLabelStep) {
        const int x = g.plot.left() + int((column + 0.5) * g.cell);
        const QString text =
            metrics.elidedText(labelFor(column * block()), Qt::ElideRight, g.labelWidth - 4);
        painter.save();
        painter.translate(x, g.plot.bottom() + 4);
        painter.rotate(-90);
        painter.drawText(QRect(-(g.labelWidth - 4), -line / 2, g.labelWidth - 4, line),
                         Qt::AlignRight | Qt::AlignVCenter, text);
        painter.restore();
    }
}

void AttentionHeatmapWidget::paintLegend(QPainter& painter, const Geometry& g) const {
    paintColourLegend(painter, g.legend, map_, legendTicks(logScale_), palette());
}

void AttentionHeatmapWidget::mousePressEvent(QMouseEvent* event) {
    const auto cell = cellAt(event->position().toPoint());
    if (event->button() == Qt::LeftButton && cell) {
        emit cellClicked(cell->first, cell->second);
        return;
    }
    QWidget::mousePressEvent(event);
}

void AttentionHeatmapWidget::resizeEvent(QResizeEvent* event) {
    invalidateGeometry();
    QWidget::resizeEvent(event);
}

void AttentionHeatmapWidget::changeEvent(QEvent* event) {
    if (event->type() == QEvent::FontChange) {
        setTokenLabels(QStringList(labels_));  // re-measures the labels
    }
    QWidget::changeEvent(event);
}

}  // namespace inferlens::widgets
