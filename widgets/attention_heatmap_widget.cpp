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
    labelTextWidth_ = std::max(labelTextWidth_, fontMetrics().horizontalAdvance(labels_.back()));
    invalidateGeometry();  // the axes' labels are laid out again (their positions alone: cheap)
    update();
}

void AttentionHeatmapWidget::setSelectedPosition(int position) {
    position = std::max(position, -1);
    if (position != selectedPosition_) {
        selectedPosition_ = position;
        invalidateGeometry();  // its labels are kept first
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

QString AttentionHeatmapWidget::titleText() const {
    return tr("Layer %1 · head %2 · %3 queries × %4 keys · %5")
               .arg(layer())
               .arg(head())
               .arg(queryCount())
               .arg(keyCount())
               .arg(logScale_ ? tr("log scale") : tr("linear scale")) +
           poolingNote();
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
    // Labels take at most a quarter of the smaller side, so that a small panel keeps room for the
    // cells (longer labels are elided).
    const int widestLabel =
        std::min(12 * metrics.averageCharWidth(),
                 std::max(4 * metrics.averageCharWidth(), std::min(width(), height()) / 4));
    g.labelWidth = std::clamp(std::max(labelTextWidth_, numberWidth), 0, widestLabel) + 4;
    const int legendLabelWidth = colourLegendLabelWidth(metrics, legendTicks(logScale_));
    const int legendWidth = kLegendBarWidth + legendLabelWidth + kMargin;
    const QRect area = rect().adjusted(kMargin + g.labelWidth, kMargin + line + 4,
                                       -(kMargin + legendWidth), -(kMargin + g.labelWidth));
    const int rows = cellRowCount(), keys = store_.cellColumns();
    if (rows <= 0 || keys <= 0 || area.width() <= 0 || area.height() <= 0) {
        g.texts.push_back(placePlaceholder(*this, tr("No attention weights yet")));
        geometry_ = g;
        return geometry_;
    }
    g.cell = std::min(double(area.width()) / keys, double(area.height()) / rows);
    if (g.cell >= 1) {
        g.cell = std::floor(g.cell);  // whole pixels: every cell the same size, crisp edges
    }
    g.plot = QRect(area.left(), area.top(), std::max(1, int(std::lround(keys * g.cell))),
                   std::max(1, int(std::lround(rows * g.cell))));
    // Beside the cells and no taller, so that its labels stay beside them.
    g.legend = QRect(g.plot.right() + 1 + 2 * kMargin, g.plot.top(), kLegendBarWidth,
                     std::min(g.plot.height(), 240));
    g.texts.push_back(
        placeText(metrics, metrics.elidedText(titleText(), Qt::ElideRight, width() - 2 * kMargin),
                  kMargin, kMargin + line / 2, Qt::AlignLeft, DrawnText::Kind::Title));
    const PlacedTexts legend =
        colourLegendLabels(metrics, g.legend, legendTicks(logScale_), legendLabelWidth - 6);
    g.texts.insert(g.texts.end(), legend.begin(), legend.end());
    layOutAxisLabels(g);
    geometry_ = g;
    return geometry_;
}

void AttentionHeatmapWidget::layOutAxisLabels(Geometry& g) const {
    const QFontMetrics metrics = fontMetrics();
    const int line = metrics.height();
    const int textWidth = g.labelWidth - 4;
    const auto queryOf = [&](int row) {
        return std::max((store_.firstCellRow() + row) * block(), firstQuery());
    };
    // Queries down the left, right-aligned to the cells; a label never reaches above the cells
    // (into the title).
    const auto rowLabel = [&](int row) {
        const int y = std::max(g.plot.top() + int((row + 0.5) * g.cell), g.plot.top() + line / 2);
        return placeText(metrics,
                         metrics.elidedText(labelFor(queryOf(row)), Qt::ElideRight, textWidth),
                         g.plot.left() - 4, y, Qt::AlignRight, DrawnText::Kind::TickLabel);
    };
    // Keys along the bottom, reading upwards from under their column, never left of the cells
    // (where the query labels end).
    const auto keyLabel = [&](int column) {
        const int x =
            std::max(g.plot.left() + int((column + 0.5) * g.cell), g.plot.left() + line / 2);
        return placeVerticalText(
            metrics, metrics.elidedText(labelFor(column * block()), Qt::ElideRight, textWidth), x,
            g.plot.bottom() + 4, DrawnText::Kind::TickLabel);
    };
    const auto keep = [&](PlacedText label) { placeIfFree(g.texts, std::move(label), rect()); };
    // The selected position's labels first, so that thinning never drops them.
    const int position = selectedPosition_;
    if (position >= firstQuery() && position < firstQuery() + queryCount()) {
        keep(rowLabel(position / block() - store_.firstCellRow()));
    }
    if (position >= 0 && position < keyCount()) {
        keep(keyLabel(position / block()));
    }
    // Crowded axes show every k-th label; a label that would touch the selected one is left out.
    const int step = labelStep(g.cell, line);
    for (int row = 0; row < cellRowCount(); row += step) {
        keep(rowLabel(row));
    }
    for (int column = 0; column < store_.cellColumns(); column += step) {
        keep(keyLabel(column));
    }
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
        painter.setPen(palette().color(QPalette::PlaceholderText));
        paintTexts(painter, g.texts);
        return;
    }
    // Nearest-neighbour scaling: each weight stays one flat cell, as the tests and the eye expect.
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    painter.drawImage(QRectF(g.plot), image_, QRectF(0, 0, store_.cellColumns(), cellRowCount()));
    paintSelection(painter, g);
    paintColourBar(painter, g.legend, map_, g.texts, palette());
    painter.setPen(palette().color(QPalette::WindowText));
    paintTexts(painter, g.texts);
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
    } else if (event->type() == QEvent::LanguageChange) {
        invalidateGeometry();  // the title
    }
    QWidget::changeEvent(event);
}

}  // namespace inferlens::widgets
