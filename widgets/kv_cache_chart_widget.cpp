#include "kv_cache_chart_widget.h"

#include <algorithm>
#include <cmath>

#include "display_text.h"
#include "plot_text_layout.h"

namespace inferlens::widgets {

namespace {

const QColor kHeld(0x2F, 0x6F, 0xB5);
const QColor kAllocated(0x7F, 0xB2, 0xE0);
const QColor kFullMultiHead(0xC0, 0x30, 0x30);
const QColor kLimit(0x55, 0x55, 0x55);
const QColor kBeams(0x8E, 0x44, 0xAD);

// Below this data area height (px) the legend gives its row to the plot, and below the second the
// figures do too (summaryText() still has them).
constexpr int kLeastPlotHeight = 60, kLeastPlotWithoutLegend = 40;
// The figures go beside the plot when they take at most this share of the width.
constexpr double kWidestSummaryBeside = 0.4;

// Byte counts on the value axis in KiB / MiB rather than in powers of ten.
class ByteTicker : public QCPAxisTicker {
  protected:
    QString getTickLabel(double tick, const QLocale&, QChar, int) override {
        return formatBytes(qint64(std::llround(tick)));
    }
    // Steps of 1, 2 or 5 times a power of 1024 read better next to binary units than powers of ten.
    double getTickStep(const QCPRange& range) override {
        const double rough = range.size() / (tickCount() + 1e-10);
        double unit = 1;
        while (unit * 1024 <= rough) {
            unit *= 1024;
        }
        for (const double multiple : {1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0}) {
            if (unit * multiple >= rough) {
                return unit * multiple;
            }
        }
        return unit * 1024;
    }
};

// The figures' text. Beside the plot it shares a row with it, and QCPTextElement would cap that
// row's height at its text's.
class FiguresElement : public QCPTextElement {
  public:
    using QCPTextElement::QCPTextElement;
    QSize maximumOuterSizeHint() const override { return {QWIDGETSIZE_MAX, QWIDGETSIZE_MAX}; }
};

}  // namespace

KvCacheChartWidget::KvCacheChartWidget(QWidget* parent) : QCustomPlot(parent) {
    setAutoAddPlottableToLegend(false);
    plotLayout()->insertRow(0);
    title_ = new QCPTextElement(this, tr("KV cache"));
    plotLayout()->addElement(0, 0, title_);

    allocated_ = addGraph();
    allocated_->setName(tr("allocated"));
    allocated_->setLineStyle(QCPGraph::lsStepLeft);  // capacity grows in blocks
    allocated_->setPen(QPen(kAllocated, 1.5));
    allocated_->setBrush(QColor(kAllocated.red(), kAllocated.green(), kAllocated.blue(), 40));
    allocated_->addToLegend();
    held_ = addGraph();
    held_->setName(tr("held"));
    held_->setPen(QPen(kHeld, 2));
    held_->addToLegend();
    fullMultiHead_ = addGraph();
    fullMultiHead_->setName(tr("full multi-head cache would need"));
    fullMultiHead_->setPen(QPen(kFullMultiHead, 1.5, Qt::DashLine));
    fullMultiHead_->addToLegend();
    allBeams_ = addGraph();
    allBeams_->setName(tr("all beams' caches"));
    allBeams_->setPen(QPen(kBeams, 2, Qt::DotLine));
    allBeams_->setVisible(false);  // and out of the legend until a beam search

    xAxis->setLabel(tr("tokens"));
    yAxis->setLabel(tr("bytes"));
    yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new ByteTicker));
    xAxis->setRange(0, 16);
    yAxis->setRange(0, 1024);

    limitLine_ = new QCPItemStraightLine(this);
    limitLine_->setPen(QPen(kLimit, 1.5, Qt::DashDotLine));
    limitLine_->setVisible(false);
    limitText_ = new QCPItemText(this);
    limitText_->position->setTypeX(QCPItemPosition::ptPlotCoords);
    limitText_->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    limitText_->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
    limitText_->setRotation(-90);
    limitText_->setColor(kLimit);
    limitText_->setVisible(false);

    // The figures in the plot's own cell, beside or under it: on the plot they hid the lines.
    QCPAxisRect* plot = axisRect();
    body_ = new QCPLayoutGrid;
    plotLayout()->take(plot);
    plotLayout()->simplify();
    plotLayout()->addElement(1, 0, body_);
    body_->addElement(0, 0, plot);
    summary_ = new FiguresElement(this, QString());
    summary_->setTextFlags(Qt::AlignLeft | Qt::AlignVCenter);
    summary_->setMargins(QMargins(6, 2, 6, 2));
    body_->addElement(1, 0, summary_);
    reserveTickLabelOverhang(axisRect());

    // The legend in a row under the title: the lines rise towards every corner of the axis rect.
    legend->setFont(font());
    putLegendInRow(*this, legend, 1);
    updateSummary();
}

void KvCacheChartWidget::requestReplot() {
    replot(QCustomPlot::rpQueuedReplot);
}

void KvCacheChartWidget::appendPoint(const KvCachePoint& point) {
    if (!points_.empty() && point.position < points_.back().position) {
        clear();
    }
    points_.push_back(point);
    // Against the tokens run, so that a sliding cache shows as a flat line.
    const double tokens = double(point.position);
    held_->addData(tokens, double(point.bytesUsed));
    allocated_->addData(tokens, double(point.bytesAllocated));
    fullMultiHead_->addData(tokens, double(point.bytesFullMultiHead));
    allBeams_->addData(tokens, double(point.bytesAllocated + point.bytesOtherBeams));
    if (point.beams > 1 && !allBeams_->visible()) {
        allBeams_->setVisible(true);
        allBeams_->addToLegend();
    }
    if (showPerLayer_) {
        if (perLayer_.size() != point.bytesPerLayer.size()) {
            rebuildPerLayerGraphs();
        } else {
            for (size_t layer = 0; layer < perLayer_.size(); ++layer) {
                perLayer_[layer]->addData(tokens, double(point.bytesPerLayer[layer]));
            }
        }
    }
    updateLimitLine();
}

void KvCacheChartWidget::clear() {
    points_.clear();
    for (QCPGraph* graph : {held_, allocated_, fullMultiHead_, allBeams_}) {
        graph->data()->clear();
    }
    allBeams_->setVisible(false);
    allBeams_->removeFromLegend();
    rebuildPerLayerGraphs();
    updateLimitLine();
}

void KvCacheChartWidget::setContextLimit(qint64 tokens) {
    contextLimit_ = std::max<qint64>(tokens, 0);
    updateLimitLine();
}

void KvCacheChartWidget::updateLimitLine() {
    // A sliding cache has no wall to run into.
    const bool shown = contextLimit_ > 0 && !sliding();
    limitLine_->setVisible(shown);
    limitText_->setVisible(shown);
    if (shown) {
        limitLine_->point1->setCoords(double(contextLimit_), 0);
        limitLine_->point2->setCoords(double(contextLimit_), 1);
        limitText_->setText(tr("context limit %1").arg(contextLimit_));
    }
    updateRanges();
    updateSummary();
    requestReplot();
}

void KvCacheChartWidget::setShowWholeContext(bool on) {
    showWholeContext_ = on;
    updateRanges();
    requestReplot();
}

void KvCacheChartWidget::setShowPerLayer(bool on) {
    if (on == showPerLayer_) {
        return;
    }
    showPerLayer_ = on;
    rebuildPerLayerGraphs();
    requestReplot();
}

void KvCacheChartWidget::rebuildPerLayerGraphs() {
    for (QCPGraph* graph : perLayer_) {
        removeGraph(graph);
    }
    perLayer_.clear();
    if (!showPerLayer_ || points_.empty()) {
        return;
    }
    const size_t layers = points_.back().bytesPerLayer.size();
    for (size_t layer = 0; layer < layers; ++layer) {
        QCPGraph* graph = addGraph();
        graph->setName(tr("layer %1").arg(layer));
        // Thin and faint: with dozens of layers they form a band under the total, not a tangle.
        graph->setPen(QPen(QColor(0x2F, 0x6F, 0xB5, 70), 1));
        for (const KvCachePoint& point : points_) {
            if (point.bytesPerLayer.size() == layers) {
                graph->addData(double(point.position), double(point.bytesPerLayer[layer]));
            }
        }
        perLayer_.push_back(graph);
    }
}

void KvCacheChartWidget::updateRanges() {
    double tokens = 0, bytes = 0;
    for (const KvCachePoint& p : points_) {
        tokens = std::max(tokens, double(p.position));
        bytes =
            std::max({bytes, double(p.bytesUsed), double(p.bytesAllocated),
                      double(p.bytesFullMultiHead), double(p.bytesAllocated + p.bytesOtherBeams)});
    }
    double right = std::max(tokens * 1.1, 16.0);
    // Once the cache is half full the wall it is heading for comes into view.
    if (contextLimit_ > 0 && !sliding() &&
        (showWholeContext_ || 2 * tokens >= double(contextLimit_))) {
        right = std::max(right, double(contextLimit_) * 1.05);
    }
    xAxis->setRange(0, right);
    yAxis->setRange(0, std::max(bytes * 1.1, 1024.0));
}

void KvCacheChartWidget::updateSummary() {
    summary_->setText(summaryText());
}

QString KvCacheChartWidget::summaryText() const {
    if (points_.empty()) {
        return tr("No tokens in the cache yet");
    }
    const KvCachePoint& p = points_.back();
    QStringList lines;
    if (contextLimit_ > 0 && !p.slides) {
        lines << tr("%1 of %2 tokens (%3%)")
                     .arg(p.tokens)
                     .arg(contextLimit_)
                     .arg(100.0 * double(p.tokens) / double(contextLimit_), 0, 'f', 1);
    } else {
        lines << tr("%1 tokens").arg(p.tokens);
    }
    lines
        << tr("held %1, allocated %2").arg(formatBytes(p.bytesUsed), formatBytes(p.bytesAllocated));
    if (p.tokens > 0) {
        lines << tr("%1 per token").arg(formatBytes(p.bytesUsed / p.tokens));
    }
    if (p.slides) {
        lines << tr("sliding window: %1 sink tokens and the last %2; %3 evicted so far")
                     .arg(p.sinks)
                     .arg(p.tokens - p.sinks)
                     .arg(p.evicted);
    }
    if (p.bytesAsF32 > p.bytesUsed) {
        lines << tr("stored as %1: %2 saved against f32 (%3%)")
                     .arg(p.type, formatBytes(p.bytesAsF32 - p.bytesUsed))
                     .arg(100.0 * double(p.bytesAsF32 - p.bytesUsed) / double(p.bytesAsF32), 0, 'f',
                          0);
    }
    if (p.bytesFullMultiHead > 0 && p.bytesUsed > 0) {
        lines << tr("a full multi-head cache would hold %1 (%2×)")
                     .arg(formatBytes(p.bytesFullMultiHead))
                     .arg(double(p.bytesFullMultiHead) / double(p.bytesUsed), 0, 'g', 3);
    }
    if (p.beams > 1) {
        lines << tr("beam search: %1 caches, %2 more for the other %n beam(s)", nullptr,
                    p.beams - 1)
                     .arg(p.beams)
                     .arg(formatBytes(p.bytesOtherBeams));
    }
    return lines.join(QLatin1Char('\n'));
}

std::optional<QPointF> KvCacheChartWidget::lastPoint() const {
    if (held_->data()->isEmpty()) {
        return std::nullopt;
    }
    const auto last = held_->data()->constEnd() - 1;
    return QPointF(last->key, last->value);
}

bool KvCacheChartWidget::showsBeams() const {
    return allBeams_->visible();
}

int KvCacheChartWidget::pointCount() const {
    return held_->data()->size();
}

std::optional<double> KvCacheChartWidget::contextLimitLineX() const {
    if (!limitLine_->visible()) {
        return std::nullopt;
    }
    return limitLine_->point1->coords().x();
}

void KvCacheChartWidget::updateLayout() {
    fitTexts();
    QCustomPlot::updateLayout();
}

void KvCacheChartWidget::placeInGrid(QCPLayoutGrid* grid, QCPLayoutElement* element, int row,
                                     int column, bool shown) {
    element->setVisible(shown);
    if (element->layout()) {
        grid->take(element);
        grid->simplify();
    }
    if (shown) {
        grid->addElement(row, column, element);
        // As large as its text needs; the plot takes the rest.
        if (column > 0) {
            grid->setColumnStretchFactor(column, 1e-3);
        } else {
            grid->setRowStretchFactor(row, 1e-3);
        }
    }
}

void KvCacheChartWidget::fitTexts() {
    const int width = viewport().width();
    const QString summary = summaryText();
    const QFontMetrics metrics(summary_->font());
    const int summaryWidth =
        metrics.boundingRect(QRect(), Qt::AlignLeft, summary).width() + 12;  // and its margins
    const bool beside = summaryWidth <= kWidestSummaryBeside * width;
    summary_->setText(beside ? summary : wrapText(summary, summary_->font(), width - 12));
    placeInGrid(body_, summary_, beside ? 0 : 1, beside ? 1 : 0, true);
    fitLegendColumns(legend, width, 3);
    legend->setVisible(true);
    if (!legend->layout()) {
        plotLayout()->addElement(1, 0, legend);
        plotLayout()->setRowStretchFactor(1, 0.001);
    }
    xAxis->setLabel(tr("tokens"));
    yAxis->setLabel(tr("bytes"));
    QCustomPlot::updateLayout();
    // Too little: the plot under its least height, or the rows' least heights past the panel's.
    const auto tooLittle = [&](int least) {
        return axisRect()->rect().height() < least ||
               plotLayout()->minimumOuterSizeHint().height() > viewport().height();
    };
    if (tooLittle(kLeastPlotHeight)) {
        legend->setVisible(false);
        plotLayout()->take(legend);
        plotLayout()->setRowStretchFactor(1, 1e-6);  // the empty row keeps no height
        QCustomPlot::updateLayout();
    }
    if (tooLittle(kLeastPlotWithoutLegend)) {
        placeInGrid(body_, summary_, 0, 0, false);
        QCustomPlot::updateLayout();
    }
    fitAxesTwice({{xAxis, tr("tokens")}, {yAxis, tr("bytes")}},
                 [this] { QCustomPlot::updateLayout(); });
    // The limit's label stands by its line when both are in view and it fits the plot's height.
    if (limitLine_->visible()) {
        limitText_->position->setCoords(double(contextLimit_), 0);
        const double x = xAxis->coordToPixel(double(contextLimit_));
        const QRect area = axisRect()->rect().adjusted(2, 2, -2, -2);
        limitText_->setVisible(x >= area.left() && x <= area.right() &&
                               keepItemInside(limitText_, area));
    }
}

QRect KvCacheChartWidget::dataArea() const {
    return axisRect()->rect();
}

DrawnTexts KvCacheChartWidget::drawnTexts() const {
    DrawnTexts texts;
    appendTextElement(title_, DrawnText::Kind::Title, texts);
    if (legend->layout()) {
        appendLegend(legend, texts);
    }
    if (summary_->layout()) {
        appendTextElement(summary_, DrawnText::Kind::Annotation, texts);
    }
    appendAxisRectTexts(axisRect(), texts);
    appendItemText(limitText_, texts);
    return texts;
}

}  // namespace inferlens::widgets
