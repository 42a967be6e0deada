#include "double_loop_grid_widget.h"

#include <QHelpEvent>
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
constexpr int kBandHeight = 8;
constexpr int kMinCellWidth = 3;
constexpr int kMaxCellWidth = 24;
constexpr int kMaxCellHeight = 28;
const QColor kPrefill(0xE6, 0x8A, 0x1E);
const QColor kDecode(0x5B, 0x7C, 0x99);

}  // namespace

DoubleLoopGridWidget::DoubleLoopGridWidget(QWidget* parent)
    : QWidget(parent), map_(ColourMap::Palette::Inferno) {
    setMouseTracking(true);
}

QRgb DoubleLoopGridWidget::rgbFor(double seconds) const {
    if (!(seconds > 0)) {
        return map_.rgbAt(0);
    }
    return map_.rgbAt((std::log10(seconds) - lowDecade_) / double(highDecade_ - lowDecade_));
}

std::pair<double, double> DoubleLoopGridWidget::colourRange() const {
    return {std::pow(10.0, lowDecade_), std::pow(10.0, highDecade_)};
}

bool DoubleLoopGridWidget::widenRange(const std::vector<double>& seconds) {
    int low = lowDecade_, high = highDecade_;
    bool set = rangeSet_;
    for (const double s : seconds) {
        if (!(s > 0)) {
            continue;
        }
        const double decade = std::log10(s);
        const int below = int(std::floor(decade));
        const int above = std::max(int(std::ceil(decade)), below + 1);
        if (!set) {
            low = below;
            high = above;
            set = true;
        } else {
            low = std::min(low, below);
            high = std::max(high, above);
        }
    }
    const bool changed = set != rangeSet_ || low != lowDecade_ || high != highDecade_;
    lowDecade_ = low;
    highDecade_ = high;
    rangeSet_ = set;
    return changed;
}

void DoubleLoopGridWidget::ensureCapacity(int steps, int layers) {
    if (steps <= image_.width() && layers <= image_.height()) {
        return;
    }
    const int width = std::max({steps, image_.width() * 2, 64});
    const int height = std::max(layers, image_.height());
    QImage grown(width, height, QImage::Format_ARGB32_Premultiplied);
    grown.fill(Qt::transparent);
    for (int y = 0; y < image_.height(); ++y) {
        std::memcpy(grown.scanLine(y), image_.constScanLine(y), size_t(image_.width()) * 4);
    }
    image_ = std::move(grown);
}

void DoubleLoopGridWidget::colourColumn(int index) {
    const std::vector<double>& seconds = steps_[size_t(index)].layerSeconds;
    for (int layer = 0; layer < layers_; ++layer) {
        auto* line = reinterpret_cast<QRgb*>(image_.scanLine(layer));
        line[index] = size_t(layer) < seconds.size() ? rgbFor(seconds[size_t(layer)]) : 0u;
    }
}

void DoubleLoopGridWidget::recolourAll() {
    for (int index = 0; index < stepCount(); ++index) {
        colourColumn(index);
    }
}

void DoubleLoopGridWidget::appendStep(const LoopTiming& timing) {
    const bool replaces = !steps_.empty() && steps_.back().step == timing.step;
    if (replaces) {
        steps_.back() = timing;
    } else {
        steps_.push_back(timing);
    }
    const int layersBefore = layers_;
    layers_ = std::max(layers_, int(timing.layerSeconds.size()));
    ensureCapacity(stepCount(), layers_);
    const bool rangeChanged = widenRange(timing.layerSeconds);
    if (rangeChanged || layers_ != layersBefore) {
        recolourAll();
    } else {
        colourColumn(stepCount() - 1);
    }
    // The summary's times change with every timing; also more columns, other legend labels or
    // more rows.
    geometryValid_ = false;
    update();
}

void DoubleLoopGridWidget::clear() {
    steps_.clear();
    layers_ = 0;
    image_ = QImage();
    rangeSet_ = false;
    lowDecade_ = -4;
    highDecade_ = -1;
    geometryValid_ = false;
    update();
}

int DoubleLoopGridWidget::generationStart() const {
    int index = stepCount() - 1;
    while (index >= 0 && !steps_[size_t(index)].prefill) {
        --index;
    }
    if (index < 0) {
        return 0;  // no prefill seen: everything is one generation
    }
    while (index > 0 && steps_[size_t(index - 1)].prefill) {
        --index;
    }
    return index;
}

std::optional<double> DoubleLoopGridWidget::tokensPerSecond() const {
    double tokens = 0, seconds = 0;
    for (int index = generationStart(); index < stepCount(); ++index) {
        const LoopTiming& s = steps_[size_t(index)];
        if (!s.prefill) {
            tokens += s.tokenCount;
            seconds += s.stepSeconds;
        }
    }
    if (tokens <= 0 || seconds <= 0) {
        return std::nullopt;
    }
    return tokens / seconds;
}

std::optional<double> DoubleLoopGridWidget::timeToFirstToken() const {
    double seconds = 0;
    bool found = false;
    for (int index = generationStart(); index < stepCount() && steps_[size_t(index)].prefill;
         ++index) {
        seconds += steps_[size_t(index)].stepSeconds;
        found = true;
    }
    return found ? std::optional<double>(seconds) : std::nullopt;
}

QString DoubleLoopGridWidget::summaryText() const {
    const auto ttft = timeToFirstToken();
    const auto speed = tokensPerSecond();
    return tr("Time to first token %1 · decode %2 · %3 steps × %4 layers")
        .arg(ttft ? formatSeconds(*ttft) : tr("–"))
        .arg(speed ? tr("%1 tokens/s").arg(*speed, 0, 'f', 1) : tr("– tokens/s"))
        .arg(stepCount())
        .arg(layers_);
}

std::vector<std::pair<double, QString>> DoubleLoopGridWidget::legendTicks() const {
    std::vector<std::pair<double, QString>> ticks;
    const int decades = highDecade_ - lowDecade_;
    for (int d = lowDecade_; d <= highDecade_; ++d) {
        ticks.emplace_back(double(d - lowDecade_) / decades, formatSeconds(std::pow(10.0, d)));
    }
    return ticks;
}

const DoubleLoopGridWidget::Geometry& DoubleLoopGridWidget::geometry() const {
    if (geometryValid_) {
        return geometry_;
    }
    geometryValid_ = true;
    Geometry g;
    const QFontMetrics metrics = fontMetrics();
    const int line = metrics.height();
    g.labelWidth = metrics.horizontalAdvance(tr("layer %1").arg(std::max(layers_ - 1, 0))) + 6;
    const int legendWidth =
        kLegendBarWidth + colourLegendLabelWidth(metrics, legendTicks()) + kMargin;
    // Header line, then the prefill/decode band; below: step numbers and the band's key.
    const QRect area = rect().adjusted(kMargin + g.labelWidth, kMargin + line + 4 + kBandHeight + 2,
                                       -(kMargin + legendWidth), -(kMargin + 2 * line + 4));
    const int steps = stepCount();
    if (steps <= 0 || layers_ <= 0 || area.width() < kMinCellWidth || area.height() <= 0) {
        g.texts.push_back(placePlaceholder(*this, tr("No steps yet")));
        geometry_ = g;
        return geometry_;
    }
    {
        g.cellWidth = std::clamp(area.width() / steps, kMinCellWidth, kMaxCellWidth);
        g.visibleCount = std::min(steps, area.width() / g.cellWidth);
        g.firstVisible = steps - g.visibleCount;  // the latest steps stay in view
        g.cellHeight = double(area.height()) / layers_;
        if (g.cellHeight >= 1) {
            g.cellHeight = std::min(std::floor(g.cellHeight), double(kMaxCellHeight));
        }
        g.plot = QRect(area.left(), area.top(), g.visibleCount * g.cellWidth,
                       std::max(1, int(std::lround(layers_ * g.cellHeight))));
        g.band = QRect(g.plot.left(), g.plot.top() - kBandHeight - 2, g.plot.width(), kBandHeight);
    }
    // Beside the grid and no taller, so that its labels stay beside it.
    g.legend = QRect(g.plot.right() + 1 + 2 * kMargin, g.plot.top(), kLegendBarWidth,
                     std::min(g.plot.height(), 240));
    layOutTexts(g);
    geometry_ = g;
    return geometry_;
}

void DoubleLoopGridWidget::layOutTexts(Geometry& g) const {
    const QFontMetrics metrics = fontMetrics();
    const int line = metrics.height();
    g.texts.push_back(
        placeText(metrics, metrics.elidedText(summaryText(), Qt::ElideRight, width() - 2 * kMargin),
                  kMargin, kMargin + line / 2, Qt::AlignLeft, DrawnText::Kind::Title));
    const PlacedTexts legend = colourLegendLabels(metrics, g.legend, legendTicks(),
                                                  colourLegendLabelWidth(metrics, legendTicks()));
    g.texts.insert(g.texts.end(), legend.begin(), legend.end());
    const auto keep = [&](PlacedText label) { placeIfFree(g.texts, std::move(label), rect()); };
    // The band's key under the step numbers; what does not fit the width is elided or left out.
    int x = g.plot.left();
    const int keyY = g.plot.bottom() + 4 + line + line / 2;
    for (const auto& [colour, label] :
         {std::make_pair(kPrefill, tr("prefill")), std::make_pair(kDecode, tr("decode")),
          std::make_pair(QColor(), tr("steps (outer loop) →   layers (inner loop) ↓"))}) {
        const int room = width() - kMargin - x - (colour.isValid() ? 14 : 0);
        const QString text = metrics.elidedText(label, Qt::ElideRight, room);
        if (room <= 0 || text.isEmpty() || (colour.isValid() && text != label)) {
            break;  // a swatch without its whole name would be a riddle
        }
        if (colour.isValid()) {
            g.keySwatches.emplace_back(x, keyY - 4, 10, 8);
            x += 14;
        }
        g.texts.push_back(
            placeText(metrics, text, x, keyY, Qt::AlignLeft, DrawnText::Kind::Annotation));
        x += metrics.horizontalAdvance(text) + 12;
    }
    const auto layerLabel = [&](int layer) {
        const int y =
            std::max(g.plot.top() + int((layer + 0.5) * g.cellHeight), g.plot.top() + line / 2);
        return placeText(metrics, tr("layer %1").arg(layer), g.plot.left() - 4, y, Qt::AlignRight,
                         DrawnText::Kind::TickLabel);
    };
    const auto stepLabel = [&](int column) {
        const QString text = QString::number(steps_[size_t(g.firstVisible + column)].step);
        const int x = std::max(g.plot.left() + column * g.cellWidth + g.cellWidth / 2,
                               g.plot.left() + metrics.horizontalAdvance(text) / 2);
        return placeText(metrics, text, x, g.plot.bottom() + 2 + line / 2, Qt::AlignHCenter,
                         DrawnText::Kind::TickLabel);
    };
    // The selected step's number first, so that thinning keeps it.
    for (int column = 0; column < g.visibleCount; ++column) {
        if (steps_[size_t(g.firstVisible + column)].step == selectedStep_) {
            keep(stepLabel(column));
        }
    }
    // Crowded axes label every k-th layer and step.
    for (int layer = 0; layer < layers_; layer += labelStep(g.cellHeight, line)) {
        keep(layerLabel(layer));
    }
    const int numberWidth = metrics.horizontalAdvance(QString::number(steps_.back().step));
    for (int column = 0; column < g.visibleCount;
         column += labelStep(g.cellWidth, numberWidth, 6)) {
        keep(stepLabel(column));
    }
}

std::optional<std::pair<int, int>> DoubleLoopGridWidget::cellAt(QPoint point) const {
    const Geometry& g = geometry();
    if (g.cellWidth <= 0 || !g.plot.contains(point)) {
        return std::nullopt;
    }
    const int column =
        std::clamp(cellIndexAt(point.x(), g.plot.left(), g.cellWidth), 0, g.visibleCount - 1);
    const int layer =
        std::clamp(cellIndexAt(point.y(), g.plot.top(), g.cellHeight), 0, layers_ - 1);
    return std::make_pair(g.firstVisible + column, layer);
}

QRect DoubleLoopGridWidget::cellRect(int stepIndex, int layer) const {
    const Geometry& g = geometry();
    const int column = stepIndex - g.firstVisible;
    if (g.cellWidth <= 0 || column < 0 || column >= g.visibleCount || layer < 0 ||
        layer >= layers_) {
        return {};
    }
    return cellPixelRect(column, layer, g.plot.topLeft(), g.cellWidth, g.cellHeight);
}

QString DoubleLoopGridWidget::toolTipAt(QPoint point) const {
    const auto cell = cellAt(point);
    if (!cell) {
        return {};
    }
    const LoopTiming& s = steps_[size_t(cell->first)];
    const QString kind = s.prefill ? tr("prefill, %n token(s)", nullptr, s.tokenCount)
                                   : tr("decode, %n token(s)", nullptr, s.tokenCount);
    const QString layerTime = size_t(cell->second) < s.layerSeconds.size()
                                  ? formatSeconds(s.layerSeconds[size_t(cell->second)])
                                  : tr("not run yet");
    return tr("Step %1 (%2)\nlayer %3: %4\nwhole step: %5")
        .arg(s.step)
        .arg(kind)
        .arg(cell->second)
        .arg(layerTime)
        .arg(formatSeconds(s.stepSeconds));
}

bool DoubleLoopGridWidget::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        const QPoint pointer = static_cast<QHelpEvent*>(event)->pos();
        const auto cell = cellAt(pointer);
        return answerToolTip(this, event, toolTipAt(pointer),
                             cell ? cellRect(cell->first, cell->second) : QRect());
    }
    return QWidget::event(event);
}

void DoubleLoopGridWidget::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().window());
    const Geometry& g = geometry();
    if (g.cellWidth <= 0) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        paintTexts(painter, g.texts);
        return;
    }
    painter.fillRect(g.plot, palette().base());  // layers not yet timed in a running step
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    painter.drawImage(QRectF(g.plot), image_, QRectF(g.firstVisible, 0, g.visibleCount, layers_));
    // Prefill and decode marks above the columns (an outline would hide narrow prefill cells).
    for (int column = 0; column < g.visibleCount; ++column) {
        const LoopTiming& s = steps_[size_t(g.firstVisible + column)];
        painter.fillRect(QRect(g.band.left() + column * g.cellWidth, g.band.top(),
                               std::max(g.cellWidth - 1, 1), g.band.height()),
                         s.prefill ? kPrefill : kDecode);
    }
    paintColourBar(painter, g.legend, map_, g.texts, palette());
    const QColor swatches[] = {kPrefill, kDecode};
    for (size_t i = 0; i < g.keySwatches.size(); ++i) {
        painter.fillRect(g.keySwatches[i], swatches[i]);
    }
    painter.setPen(palette().color(QPalette::WindowText));
    paintTexts(painter, g.texts);
    for (int column = 0; column < g.visibleCount; ++column)
        if (steps_[size_t(g.firstVisible + column)].step == selectedStep_) {
            painter.setPen(QPen(palette().color(QPalette::Highlight), 2));
            painter.setBrush(Qt::NoBrush);
            painter.drawRect(QRect(g.plot.left() + column * g.cellWidth, g.band.top(), g.cellWidth,
                                   g.plot.bottom() - g.band.top()));
        }
}

void DoubleLoopGridWidget::setSelectedStep(int step) {
    selectedStep_ = step;
    geometryValid_ = false;  // its number is kept first
    update();
}

void DoubleLoopGridWidget::resizeEvent(QResizeEvent* event) {
    geometryValid_ = false;
    QWidget::resizeEvent(event);
}

void DoubleLoopGridWidget::changeEvent(QEvent* event) {
    // The texts are laid out with the rest: in another font or language they are laid out again.
    if (event->type() == QEvent::FontChange || event->type() == QEvent::LanguageChange) {
        geometryValid_ = false;
        update();
    }
    QWidget::changeEvent(event);
}

}  // namespace inferlens::widgets
