#include "attention_overview_widget.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>
#include <limits>

#include "cell_mapping.h"
#include "panel_hints.h"

namespace inferlens::widgets {

namespace {

constexpr int kMargin = 6;
constexpr int kLegendBarWidth = 14;
constexpr float kUnknown = std::numeric_limits<float>::quiet_NaN();

}  // namespace

AttentionOverviewWidget::AttentionOverviewWidget(QWidget* parent)
    : QWidget(parent), metric_(tr("value")), map_(ColourMap::Palette::Viridis) {
    setMouseTracking(true);
}

float AttentionOverviewWidget::meanRowEntropy(const AttentionMatrix& m) {
    if (m.queryCount <= 0 || m.keyCount <= 0 ||
        m.weights.size() < size_t(m.queryCount) * size_t(m.keyCount)) {
        return kUnknown;
    }
    double sum = 0;
    for (int row = 0; row < m.queryCount; ++row) {
        sum += rowEntropy(
            std::span(m.weights).subspan(size_t(row) * size_t(m.keyCount), size_t(m.keyCount)));
    }
    return float(sum / m.queryCount);
}

double AttentionOverviewWidget::rowEntropy(std::span<const float> row) {
    double entropy = 0;
    for (const float weight : row) {
        if (weight > 0) {
            entropy -= double(weight) * std::log(double(weight));
        }
    }
    return entropy;
}

float AttentionOverviewWidget::meanRowMaximum(const AttentionMatrix& m) {
    if (m.queryCount <= 0 || m.keyCount <= 0 ||
        m.weights.size() < size_t(m.queryCount) * size_t(m.keyCount)) {
        return kUnknown;
    }
    double sum = 0;
    for (int row = 0; row < m.queryCount; ++row) {
        float maximum = 0;
        for (int key = 0; key < m.keyCount; ++key) {
            maximum = std::max(maximum, m.at(row, key));
        }
        sum += maximum;
    }
    return float(sum / m.queryCount);
}

void AttentionOverviewWidget::setShape(int layers, int heads) {
    layers_ = std::max(layers, 0);
    heads_ = std::max(heads, 0);
    values_.assign(size_t(layers_) * size_t(heads_), kUnknown);
    image_ = layers_ > 0 && heads_ > 0 ? QImage(heads_, layers_, QImage::Format_RGB32) : QImage();
    if (selected_.first >= layers_ || selected_.second >= heads_) {
        selected_ = {-1, -1};
    }
    updateAutoRange();
    recolourAll();
    geometryValid_ = false;
    update();
}

void AttentionOverviewWidget::setValues(int layers, int heads, std::vector<float> values) {
    values.resize(size_t(std::max(layers, 0)) * size_t(std::max(heads, 0)), kUnknown);
    setShape(layers, heads);
    values_ = std::move(values);
    updateAutoRange();
    recolourAll();
    update();
}

void AttentionOverviewWidget::setValue(int layer, int head, float value) {
    if (layer < 0 || head < 0) {
        return;
    }
    if (layer >= layers_ || head >= heads_) {
        // Grow, keeping what is known.
        const int layers = std::max(layers_, layer + 1), heads = std::max(heads_, head + 1);
        std::vector<float> grown(size_t(layers) * size_t(heads), kUnknown);
        for (int l = 0; l < layers_; ++l) {
            std::copy_n(values_.begin() + ptrdiff_t(l) * heads_, heads_,
                        grown.begin() + ptrdiff_t(l) * heads);
        }
        grown[size_t(layer) * size_t(heads) + size_t(head)] = value;
        setValues(layers, heads, std::move(grown));
        return;
    }
    values_[size_t(layer) * size_t(heads_) + size_t(head)] = value;
    const auto before = std::make_pair(minimum_, maximum_);
    updateAutoRange();
    if (std::make_pair(minimum_, maximum_) != before) {
        recolourAll();
        update();
    } else {
        colourCell(layer, head);
        update(cellRect(layer, head).adjusted(-3, -3, 3, 3));
    }
}

void AttentionOverviewWidget::setMetricName(const QString& name) {
    metric_ = name;
    geometryValid_ = false;  // the title
    update();
}

void AttentionOverviewWidget::setRange(float minimum, float maximum) {
    autoRange_ = false;
    minimum_ = minimum;
    maximum_ = maximum > minimum ? maximum : minimum + 1;
    recolourAll();
    geometryValid_ = false;
    update();
}

void AttentionOverviewWidget::setAutoRange() {
    autoRange_ = true;
    updateAutoRange();
    recolourAll();
    geometryValid_ = false;
    update();
}

void AttentionOverviewWidget::updateAutoRange() {
    if (!autoRange_) {
        return;
    }
    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    for (const float v : values_) {
        if (!std::isnan(v)) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    }
    if (lo > hi) {
        lo = 0;
        hi = 1;
    } else if (lo == hi) {
        hi = lo + 1;  // one known value (or all equal): the middle of a range would mislead
    }
    if (lo != minimum_ || hi != maximum_) {
        geometryValid_ = false;  // the legend's labels change
    }
    minimum_ = lo;
    maximum_ = hi;
}

float AttentionOverviewWidget::value(int layer, int head) const {
    if (layer < 0 || head < 0 || layer >= layers_ || head >= heads_) {
        return kUnknown;
    }
    return values_[size_t(layer) * size_t(heads_) + size_t(head)];
}

QRgb AttentionOverviewWidget::rgbFor(float value) const {
    if (std::isnan(value)) {
        return unknownColour().rgb();
    }
    return map_.rgbAt((double(value) - minimum_) / (double(maximum_) - minimum_));
}

void AttentionOverviewWidget::colourCell(int layer, int head) {
    image_.setPixel(head, layer, rgbFor(value(layer, head)));
}

void AttentionOverviewWidget::recolourAll() {
    for (int layer = 0; layer < layers_; ++layer) {
        for (int head = 0; head < heads_; ++head) {
            colourCell(layer, head);
        }
    }
}

void AttentionOverviewWidget::setSelected(int layer, int head) {
    if (layer < 0 || head < 0 || layer >= layers_ || head >= heads_) {
        layer = head = -1;
    }
    if (std::make_pair(layer, head) != selected_) {
        selected_ = {layer, head};
        geometryValid_ = false;  // its numbers are kept first
        update();
    }
}

std::vector<std::pair<double, QString>> AttentionOverviewWidget::legendTicks() const {
    std::vector<std::pair<double, QString>> ticks;
    for (int i = 0; i <= 4; ++i) {
        const double v = minimum_ + (double(maximum_) - minimum_) * i / 4;
        ticks.emplace_back(i / 4.0, QString::number(v, 'g', 3));
    }
    return ticks;
}

const AttentionOverviewWidget::Geometry& AttentionOverviewWidget::geometry() const {
    if (geometryValid_) {
        return geometry_;
    }
    geometryValid_ = true;
    Geometry g;
    const QFontMetrics metrics = fontMetrics();
    const int line = metrics.height();
    g.labelWidth = metrics.horizontalAdvance(tr("L%1").arg(std::max(layers_ - 1, 0))) + 6;
    const int legendWidth =
        kLegendBarWidth + colourLegendLabelWidth(metrics, legendTicks()) + kMargin;
    // Title, then head numbers above the columns.
    const QRect area = rect().adjusted(kMargin + g.labelWidth, kMargin + 2 * line + 6,
                                       -(kMargin + legendWidth), -kMargin);
    if (layers_ <= 0 || heads_ <= 0 || area.width() <= 0 || area.height() <= 0) {
        g.texts.push_back(placePlaceholder(*this, tr("No attention summary yet")));
        geometry_ = g;
        return geometry_;
    }
    {
        g.cellWidth = double(area.width()) / heads_;
        g.cellHeight = double(area.height()) / layers_;
        if (g.cellWidth >= 1) {
            g.cellWidth = std::floor(g.cellWidth);
        }
        if (g.cellHeight >= 1) {
            g.cellHeight = std::floor(g.cellHeight);
        }
        g.plot = QRect(area.left(), area.top(), std::max(1, int(std::lround(heads_ * g.cellWidth))),
                       std::max(1, int(std::lround(layers_ * g.cellHeight))));
    }
    // Beside the grid and no taller, so that its labels stay beside it.
    g.legend = QRect(g.plot.right() + 1 + 2 * kMargin, g.plot.top(), kLegendBarWidth,
                     std::min(g.plot.height(), 240));
    g.texts.push_back(placeText(
        metrics,
        metrics.elidedText(
            tr("%1 per head · %2 layers × %3 heads").arg(metric_).arg(layers_).arg(heads_),
            Qt::ElideRight, width() - 2 * kMargin),
        kMargin, kMargin + line / 2, Qt::AlignLeft, DrawnText::Kind::Title));
    const PlacedTexts legend = colourLegendLabels(metrics, g.legend, legendTicks(),
                                                  colourLegendLabelWidth(metrics, legendTicks()));
    g.texts.insert(g.texts.end(), legend.begin(), legend.end());
    layOutLabels(g);
    geometry_ = g;
    return geometry_;
}

void AttentionOverviewWidget::layOutLabels(Geometry& g) const {
    const QFontMetrics metrics = fontMetrics();
    const int line = metrics.height();
    const auto cell = [&](int layer, int head) {
        return cellPixelRect(head, layer, g.plot.topLeft(), g.cellWidth, g.cellHeight);
    };
    // Layer numbers to the left, never above the grid's top (where the head numbers are).
    const auto layerLabel = [&](int layer) {
        const int y = std::max(cell(layer, 0).center().y(), g.plot.top() + line / 2);
        return placeText(metrics, tr("L%1").arg(layer), g.plot.left() - 4, y, Qt::AlignRight,
                         DrawnText::Kind::TickLabel);
    };
    // Head numbers above their columns, never left of the grid (where the layer numbers are).
    const auto headLabel = [&](int head) {
        const QString text = QString::number(head);
        const int x = std::max(cell(0, head).center().x(),
                               g.plot.left() + metrics.horizontalAdvance(text) / 2);
        return placeText(metrics, text, x, g.plot.top() - 2 - line + line / 2, Qt::AlignHCenter,
                         DrawnText::Kind::TickLabel);
    };
    const auto keep = [&](PlacedText label) { placeIfFree(g.texts, std::move(label), rect()); };
    // The selected head's numbers first, so that thinning keeps them.
    if (selected_.first >= 0) {
        keep(layerLabel(selected_.first));
        keep(headLabel(selected_.second));
    }
    // Crowded axes label every k-th row or column.
    const int rowStep = labelStep(g.cellHeight, line);
    for (int layer = 0; layer < layers_; layer += rowStep) {
        keep(layerLabel(layer));
    }
    const int columnStep =
        labelStep(g.cellWidth, metrics.horizontalAdvance(QString::number(heads_ - 1)), 6);
    for (int head = 0; head < heads_; head += columnStep) {
        keep(headLabel(head));
    }
}

std::optional<std::pair<int, int>> AttentionOverviewWidget::cellAt(QPoint point) const {
    const Geometry& g = geometry();
    if (g.cellWidth <= 0 || !g.plot.contains(point)) {
        return std::nullopt;
    }
    const int head = std::clamp(cellIndexAt(point.x(), g.plot.left(), g.cellWidth), 0, heads_ - 1);
    const int layer =
        std::clamp(cellIndexAt(point.y(), g.plot.top(), g.cellHeight), 0, layers_ - 1);
    return std::make_pair(layer, head);
}

QRect AttentionOverviewWidget::cellRect(int layer, int head) const {
    const Geometry& g = geometry();
    if (g.cellWidth <= 0 || layer < 0 || head < 0 || layer >= layers_ || head >= heads_) {
        return {};
    }
    return cellPixelRect(head, layer, g.plot.topLeft(), g.cellWidth, g.cellHeight);
}

bool AttentionOverviewWidget::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        const auto cell = cellAt(static_cast<QHelpEvent*>(event)->pos());
        if (!cell)
            return answerToolTip(this, event, QString(), QRect());
        const float v = value(cell->first, cell->second);
        return answerToolTip(
            this, event,
            tr("Layer %1, head %2: %3 %4")
                .arg(cell->first)
                .arg(cell->second)
                .arg(metric_)
                .arg(std::isnan(v) ? tr("not yet known") : QString::number(v, 'g', 4)),
            cellRect(cell->first, cell->second));
    }
    return QWidget::event(event);
}

void AttentionOverviewWidget::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().window());
    const Geometry& g = geometry();
    if (g.cellWidth <= 0) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        paintTexts(painter, g.texts);
        return;
    }
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    painter.drawImage(QRectF(g.plot), image_, QRectF(image_.rect()));
    painter.setPen(palette().color(QPalette::WindowText));
    paintTexts(painter, g.texts);
    if (selected_.first >= 0) {
        painter.setPen(QPen(palette().color(QPalette::Highlight), 2));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(cellRect(selected_.first, selected_.second).adjusted(-1, -1, 0, 0));
    }
    paintColourBar(painter, g.legend, map_, g.texts, palette());
}

void AttentionOverviewWidget::mousePressEvent(QMouseEvent* event) {
    const auto cell = cellAt(event->position().toPoint());
    if (event->button() == Qt::LeftButton && cell) {
        setSelected(cell->first, cell->second);
        emit headSelected(cell->first, cell->second);
        return;
    }
    QWidget::mousePressEvent(event);
}

void AttentionOverviewWidget::resizeEvent(QResizeEvent* event) {
    geometryValid_ = false;
    QWidget::resizeEvent(event);
}

void AttentionOverviewWidget::changeEvent(QEvent* event) {
    // The texts are laid out with the rest: in another font or language they are laid out again.
    if (event->type() == QEvent::FontChange || event->type() == QEvent::LanguageChange) {
        geometryValid_ = false;
        update();
    }
    QWidget::changeEvent(event);
}

}  // namespace inferlens::widgets
