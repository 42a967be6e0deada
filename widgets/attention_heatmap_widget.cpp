#include "attention_heatmap_widget.h"

#include <QHelpEvent>
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

// Row `i` of a matrix; a short weights vector (a malformed event) reads as zeros past its end.
std::vector<float> matrixRow(const AttentionMatrix& matrix, int i) {
    std::vector<float> row(size_t(std::max(matrix.keyCount, 0)), 0.0f);
    const size_t begin = size_t(i) * row.size();
    if (begin < matrix.weights.size()) {
        const size_t count = std::min(row.size(), matrix.weights.size() - begin);
        std::copy_n(matrix.weights.begin() + ptrdiff_t(begin), count, row.begin());
    }
    return row;
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

float AttentionHeatmapWidget::weight(int query, int key) const {
    const int row = query - firstQuery_;
    if (row < 0 || row >= queryCount() || key < 0) {
        return 0;
    }
    const std::vector<float>& weights = rows_[size_t(row)];
    return size_t(key) < weights.size() ? weights[size_t(key)] : 0.0f;
}

void AttentionHeatmapWidget::ensureCapacity(int rows, int keys) {
    if (rows <= image_.height() && keys <= image_.width()) {
        return;
    }
    // Doubling keeps the copies of a growing matrix to amortised O(1) per new row.
    const int width = std::max({keys, image_.width() * 2, 16});
    const int height = std::max({rows, image_.height() * 2, 16});
    QImage grown(width, height, QImage::Format_RGB32);
    grown.fill(maskedColour());
    for (int y = 0; y < image_.height(); ++y) {
        std::memcpy(grown.scanLine(y), image_.constScanLine(y), size_t(image_.width()) * 4);
    }
    image_ = std::move(grown);
}

void AttentionHeatmapWidget::colourRow(int row) {
    const std::vector<float>& weights = rows_[size_t(row)];
    const int query = firstQuery_ + row;
    auto* line = reinterpret_cast<QRgb*>(image_.scanLine(row));
    const QRgb masked = maskedColour().rgb();
    const QRgb zero = rgbFor(0);
    for (int key = 0; key < keyCount_; ++key) {
        if (key > query) {
            line[key] = masked;
        } else {
            line[key] = size_t(key) < weights.size() ? rgbFor(weights[size_t(key)]) : zero;
        }
    }
}

void AttentionHeatmapWidget::recolourAll() {
    for (int row = 0; row < queryCount(); ++row) {
        colourRow(row);
    }
}

void AttentionHeatmapWidget::setMatrix(AttentionMatrix matrix) {
    layer_ = matrix.layer;
    head_ = matrix.head;
    firstQuery_ = std::max(matrix.firstQuery, 0);
    keyCount_ = std::max(matrix.keyCount, 0);
    const int rows = std::max(matrix.queryCount, 0);
    rows_.assign(size_t(rows), {});
    for (int row = 0; row < rows; ++row) {
        rows_[size_t(row)] = matrixRow(matrix, row);
    }
    image_ = QImage();
    ensureCapacity(rows, keyCount_);
    recolourAll();
    invalidateGeometry();
    update();
}

void AttentionHeatmapWidget::appendRows(const AttentionMatrix& rows) {
    if (rows.queryCount <= 0) {
        return;
    }
    if (rows_.empty() || rows.layer != layer_ || rows.head != head_ ||
        rows.firstQuery < firstQuery_) {
        setMatrix(rows);
        return;
    }
    const int end = rows.firstQuery + rows.queryCount - firstQuery_;  // rows held afterwards
    const bool grew = end > queryCount() || rows.keyCount > keyCount_;
    const int oldKeyCount = keyCount_;
    keyCount_ = std::max(keyCount_, rows.keyCount);
    if (end > queryCount()) {
        rows_.resize(size_t(end));
    }
    ensureCapacity(queryCount(), keyCount_);
    if (keyCount_ > oldKeyCount) {
        // Earlier rows gain columns: future keys to them, so masked (the fill colour), except in a
        // matrix wider than it is causal, where they are weights never given.
        for (int row = 0; row < rows.firstQuery - firstQuery_; ++row) {
            if (firstQuery_ + row >= oldKeyCount) {
                colourRow(row);
            }
        }
    }
    for (int i = 0; i < rows.queryCount; ++i) {
        const int row = rows.firstQuery - firstQuery_ + i;
        rows_[size_t(row)] = matrixRow(rows, i);
        colourRow(row);
    }
    if (grew) {
        invalidateGeometry();
    }
    update();
}

void AttentionHeatmapWidget::clear() {
    layer_ = head_ = -1;
    firstQuery_ = 0;
    keyCount_ = 0;
    rows_.clear();
    image_ = QImage();
    invalidateGeometry();
    update();
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
        metrics.horizontalAdvance(QString::number(firstQuery_ + queryCount())) + 4;
    g.labelWidth =
        std::clamp(std::max(labelTextWidth_, numberWidth), 0, 12 * metrics.averageCharWidth()) + 4;
    const int legendWidth =
        kLegendBarWidth + colourLegendLabelWidth(metrics, legendTicks(logScale_)) + kMargin;
    const QRect area = rect().adjusted(kMargin + g.labelWidth, kMargin + line + 4,
                                       -(kMargin + legendWidth), -(kMargin + g.labelWidth));
    const int rows = queryCount(), keys = keyCount_;
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
    const int key = std::clamp(cellIndexAt(point.x(), g.plot.left(), g.cell), 0, keyCount_ - 1);
    const int row = std::clamp(cellIndexAt(point.y(), g.plot.top(), g.cell), 0, queryCount() - 1);
    return std::make_pair(firstQuery_ + row, key);
}

QRect AttentionHeatmapWidget::cellRect(int query, int key) const {
    const Geometry& g = geometry();
    const int row = query - firstQuery_;
    if (g.cell <= 0 || row < 0 || row >= queryCount() || key < 0 || key >= keyCount_) {
        return {};
    }
    return cellPixelRect(key, row, g.plot.topLeft(), g.cell, g.cell);
}

QString AttentionHeatmapWidget::toolTipAt(QPoint point) const {
    const auto cell = cellAt(point);
    if (!cell) {
        return {};
    }
    const auto [query, key] = *cell;
    if (key > query) {
        return tr("%1 (%2) → %3 (%4): masked (a future token)")
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
                         .arg(layer_)
                         .arg(head_)
                         .arg(queryCount())
                         .arg(keyCount_)
                         .arg(logScale_ ? tr("log scale") : tr("linear scale")));
    // Nearest-neighbour scaling: each weight stays one flat cell, as the tests and the eye expect.
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    painter.drawImage(QRectF(g.plot), image_, QRectF(0, 0, keyCount_, queryCount()));
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
    if (position >= firstQuery_ && position < firstQuery_ + queryCount()) {
        const QRect row = cellRect(position, 0);
        painter.fillRect(QRect(g.plot.left() - 3, row.top(), 3, row.height()), highlight);
        painter.drawRect(
            QRect(g.plot.left(), row.top(), g.plot.width(), row.height()).adjusted(0, 0, -1, -1));
    }
    if (position >= 0 && position < keyCount_) {
        const QRect column = cellRect(firstQuery_, position);
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
    for (int row = 0; row < queryCount(); row += g.rowLabelStep) {
        const int y = g.plot.top() + int((row + 0.5) * g.cell);
        const QString text =
            metrics.elidedText(labelFor(firstQuery_ + row), Qt::ElideRight, g.labelWidth - 4);
        painter.drawText(QRect(g.plot.left() - g.labelWidth, y - line / 2, g.labelWidth - 4, line),
                         Qt::AlignRight | Qt::AlignVCenter, text);
    }
    for (int key = 0; key < keyCount_; key += g.keyLabelStep) {
        const int x = g.plot.left() + int((key + 0.5) * g.cell);
        const QString text = metrics.elidedText(labelFor(key), Qt::ElideRight, g.labelWidth - 4);
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
