#include "token_arrival_widget.h"

#include <algorithm>
#include <cmath>

#include "plot_text_layout.h"

namespace inferlens::widgets {

namespace {

constexpr int kMostBins = 24;
const QColor kBars(0x2F, 0x6F, 0xB5);
const QColor kMedian(0xE6, 0x8A, 0x1E);

// A bin width of 1, 2 or 5 times a power of ten that spreads [0, top] over at most kMostBins.
double niceBinWidth(double top) {
    const double rough = std::max(top, 1e-3) / kMostBins;
    const double power = std::pow(10.0, std::floor(std::log10(rough)));
    for (const double step : {1.0, 2.0, 5.0, 10.0})
        if (step * power >= rough)
            return step * power;
    return 10 * power;
}

}  // namespace

TokenArrivalWidget::TokenArrivalWidget(QWidget* parent) : QCustomPlot(parent) {
    plotLayout()->insertRow(0);
    title_ = new QCPTextElement(this, QString());
    plotLayout()->addElement(0, 0, title_);
    bars_ = new QCPBars(xAxis, yAxis);
    bars_->setPen(QPen(kBars.darker(130)));
    bars_->setBrush(kBars);
    medianLine_ = new QCPItemStraightLine(this);
    medianLine_->setPen(QPen(kMedian, 1.5, Qt::DashLine));
    // Counts are whole numbers: ticks 1, 2, 5, 10 … apart.
    QSharedPointer<QCPAxisTickerFixed> wholeCounts(new QCPAxisTickerFixed);
    wholeCounts->setTickStep(1);
    wholeCounts->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    yAxis->setTicker(wholeCounts);
    xAxis->setLabel(tr("wait between tokens (ms)"));
    yAxis->setLabel(tr("tokens"));
    reserveTickLabelOverhang(axisRect());
    clear();
}

void TokenArrivalWidget::addArrival(int step, double seconds) {
    if (step == 0) {
        waitsMs_.clear();
        firstTokenMs_ = seconds * 1000;
    } else {
        waitsMs_.push_back(seconds * 1000);
    }
    rebuild();
}

void TokenArrivalWidget::clear() {
    waitsMs_.clear();
    firstTokenMs_ = 0;
    rebuild();
}

double TokenArrivalWidget::percentileMs(double fraction) const {
    if (waitsMs_.empty())
        return 0;
    std::vector<double> sorted = waitsMs_;
    std::sort(sorted.begin(), sorted.end());
    const double at = fraction * double(sorted.size() - 1);
    const auto below = size_t(std::floor(at));
    const size_t above = std::min(below + 1, sorted.size() - 1);
    return sorted[below] + (at - double(below)) * (sorted[above] - sorted[below]);
}

double TokenArrivalWidget::medianMs() const {
    return percentileMs(0.5);
}

std::vector<int> TokenArrivalWidget::binCounts() const {
    std::vector<int> counts;
    for (const double wait : waitsMs_) {
        const auto bin = size_t(std::max(0.0, wait) / binWidthMs_);
        if (counts.size() <= bin)
            counts.resize(bin + 1);
        ++counts[bin];
    }
    return counts;
}

void TokenArrivalWidget::rebuild() {
    // The slowest few percent would stretch the bins over nothing: the range ends at the 99th
    // percentile, and the last bin holds what is beyond.
    const double top = percentileMs(0.99);
    binWidthMs_ = niceBinWidth(top);
    std::vector<int> counts = binCounts();
    const size_t lastBin = size_t(top / binWidthMs_);
    if (counts.size() > lastBin + 1) {
        for (size_t i = lastBin + 1; i < counts.size(); ++i)
            counts[lastBin] += counts[i];
        counts.resize(lastBin + 1);
    }
    QVector<double> keys, values;
    int highest = 1;
    for (size_t i = 0; i < counts.size(); ++i) {
        keys << (double(i) + 0.5) * binWidthMs_;
        values << counts[i];
        highest = std::max(highest, counts[i]);
    }
    bars_->setWidth(binWidthMs_ * 0.9);
    bars_->setData(keys, values, true);
    xAxis->setRange(0, std::max(1.0, double(counts.size())) * binWidthMs_);
    yAxis->setRange(0, highest * 1.15);
    const double median = medianMs();
    medianLine_->setVisible(!waitsMs_.empty());
    medianLine_->point1->setCoords(median, 0);
    medianLine_->point2->setCoords(median, 1);
    fullTitle_ =
        waitsMs_.empty() && firstTokenMs_ == 0
            ? tr("Token arrival: the waits between a server's tokens appear here as it answers")
            : tr("Time to first token %1 ms · between tokens: median %2 ms (dashed), 95th "
                 "percentile %3 ms · %4 tokens")
                  .arg(firstTokenMs_, 0, 'f', 1)
                  .arg(median, 0, 'f', 1)
                  .arg(percentileMs(0.95), 0, 'f', 1)
                  .arg(waitsMs_.size() + (firstTokenMs_ > 0 ? 1 : 0));
    title_->setText(fullTitle_);
    replot(rpQueuedReplot);
}

void TokenArrivalWidget::updateLayout() {
    fitTitle(title_, fullTitle_);
    fitAxesTwice({{xAxis, tr("wait between tokens (ms)")}, {yAxis, tr("tokens")}},
                 [this] { QCustomPlot::updateLayout(); });
}

DrawnTexts TokenArrivalWidget::drawnTexts() const {
    DrawnTexts texts;
    appendTextElement(title_, DrawnText::Kind::Title, texts);
    appendAxisRectTexts(axisRect(), texts);
    return texts;
}

}  // namespace inferlens::widgets
