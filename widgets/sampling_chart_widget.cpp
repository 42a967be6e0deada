#include "sampling_chart_widget.h"

#include <QMouseEvent>
#include <algorithm>
#include <cmath>

#include "display_text.h"

namespace inferlens::widgets {

namespace {

// Greys to blues as the distribution is reshaped, then a warm colour for what is finally drawn
// from.
const QColor kStageColours[kSamplingStageCount] = {
    QColor(0xA0, 0xA0, 0xA0), QColor(0x7F, 0xB2, 0xE0), QColor(0x2F, 0x6F, 0xB5),
    QColor(0xE6, 0x8A, 0x1E)};
const QColor kCumulative(0x55, 0x55, 0x55);
const QColor kCutoff(0xC0, 0x30, 0x30);
const QColor kChosenBand(0xFF, 0xD5, 0x4F, 90);
const QColor kEntropy(0x6A, 0x3D, 0x9A);
const QColor kChosenProbability(0xE6, 0x8A, 0x1E);

}  // namespace

SamplingChartWidget::SamplingChartWidget(QWidget* parent) : QCustomPlot(parent) {
    setAutoAddPlottableToLegend(false);

    // Top: the default axis rect holds the bars; the title goes above it.
    plotLayout()->insertRow(0);
    title_ = new QCPTextElement(this, tr("Sampling: no step yet"));
    plotLayout()->addElement(0, 0, title_);

    group_ = new QCPBarsGroup(this);
    group_->setSpacingType(QCPBarsGroup::stAbsolute);
    group_->setSpacing(1);
    const QString stageNames[kSamplingStageCount] = {tr("raw"), tr("after penalties"),
                                                     tr("after temperature"),
                                                     tr("final (top-k, top-p, min-p)")};
    for (int stage = 0; stage < kSamplingStageCount; ++stage) {
        auto* bars = new QCPBars(xAxis, yAxis);
        bars->setName(stageNames[stage]);
        bars->setWidth(0.2);
        bars->setBarsGroup(group_);
        bars->setPen(QPen(kStageColours[stage].darker(130)));
        bars->setBrush(kStageColours[stage]);
        bars->addToLegend();
        bars_[size_t(stage)] = bars;
    }
    cumulative_ = addGraph(xAxis, yAxis2);
    cumulative_->setName(tr("cumulative mass"));
    cumulative_->setPen(QPen(kCumulative, 1.5));
    cumulative_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
    cumulative_->addToLegend();

    labelTicker_.reset(new QCPAxisTickerText);
    xAxis->setTicker(labelTicker_);
    xAxis->grid()->setVisible(false);
    xAxis->setLabel(tr("candidates, best first"));
    yAxis->setLabel(tr("probability"));
    yAxis->setRange(0, 1);
    yAxis2->setVisible(true);
    yAxis2->setLabel(tr("cumulative"));
    yAxis2->setRange(0, 1.05);

    // The chosen token: a band behind its group of bars (on the grid layer, under the bars).
    chosenBand_ = new QCPItemRect(this);
    chosenBand_->setLayer(QStringLiteral("grid"));
    chosenBand_->setPen(Qt::NoPen);
    chosenBand_->setBrush(kChosenBand);
    for (QCPItemPosition* position : {chosenBand_->topLeft, chosenBand_->bottomRight}) {
        position->setTypeX(QCPItemPosition::ptPlotCoords);
        position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    }
    chosenBand_->setVisible(false);
    chosenText_ = new QCPItemText(this);
    chosenText_->position->setTypeX(QCPItemPosition::ptPlotCoords);
    chosenText_->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    chosenText_->setPositionAlignment(Qt::AlignHCenter | Qt::AlignTop);
    chosenText_->setText(tr("chosen"));
    chosenText_->setVisible(false);

    cutoffLine_ = new QCPItemStraightLine(this);
    cutoffLine_->setPen(QPen(kCutoff, 1.5, Qt::DashLine));
    cutoffLine_->setVisible(false);
    cutoffText_ = new QCPItemText(this);
    cutoffText_->position->setTypeX(QCPItemPosition::ptPlotCoords);
    cutoffText_->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    cutoffText_->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    cutoffText_->setColor(kCutoff);
    cutoffText_->setText(tr(" cut off"));
    cutoffText_->setVisible(false);

    // The legend gets a row of its own under the title: inside the axis rect it would hide the
    // tallest bars, which are the ones that matter.
    legend->setVisible(true);
    legend->setFont(font());
    legend->setWrap(3);
    legend->setFillOrder(QCPLegend::foColumnsFirst);  // rearranges the items already added
    legend->setBorderPen(Qt::NoPen);
    legend->setBrush(Qt::NoBrush);
    axisRect()->insetLayout()->take(legend);
    plotLayout()->insertRow(1);
    plotLayout()->addElement(1, 0, legend);
    legend->setMargins(QMargins(4, 0, 4, 0));

    // Bottom: entropy and the chosen token's probability, step by step.
    historyRect_ = new QCPAxisRect(this);
    plotLayout()->addElement(3, 0, historyRect_);
    plotLayout()->setRowStretchFactor(1, 0.001);  // as tall as the legend needs, no more
    plotLayout()->setRowStretchFactor(2, 2);
    plotLayout()->setRowStretchFactor(3, 1);
    auto* margins = new QCPMarginGroup(this);
    axisRect()->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    historyRect_->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    QCPAxis* steps = historyRect_->axis(QCPAxis::atBottom);
    QCPAxis* entropyAxis = historyRect_->axis(QCPAxis::atLeft);
    QCPAxis* probabilityAxis = historyRect_->axis(QCPAxis::atRight);
    steps->setLabel(tr("step"));
    entropyAxis->setLabel(tr("entropy (nats)"));
    probabilityAxis->setVisible(true);
    probabilityAxis->setLabel(tr("chosen p"));
    probabilityAxis->setRange(0, 1.05);
    entropyGraph_ = addGraph(steps, entropyAxis);
    entropyGraph_->setName(tr("entropy"));
    entropyGraph_->setPen(QPen(kEntropy, 1.5));
    chosenGraph_ = addGraph(steps, probabilityAxis);
    chosenGraph_->setName(tr("chosen token's probability"));
    chosenGraph_->setPen(QPen(kChosenProbability, 1.5));
    auto* historyLegend = new QCPLegend;
    historyRect_->insetLayout()->addElement(historyLegend, Qt::AlignTop | Qt::AlignLeft);
    historyLegend->setLayer(QStringLiteral("legend"));
    historyLegend->setFont(font());
    historyLegend->setBrush(QColor(255, 255, 255, 200));  // the lines stay visible through it
    entropyGraph_->addToLegend(historyLegend);
    chosenGraph_->addToLegend(historyLegend);
    for (QCPAbstractItem* item :
         {static_cast<QCPAbstractItem*>(chosenBand_), static_cast<QCPAbstractItem*>(chosenText_),
          static_cast<QCPAbstractItem*>(cutoffLine_), static_cast<QCPAbstractItem*>(cutoffText_)}) {
        item->setClipAxisRect(axisRect());
    }
    clear();
}

void SamplingChartWidget::requestReplot() {
    // Queued: a burst of steps and history points becomes one replot in the next event loop turn.
    replot(QCustomPlot::rpQueuedReplot);
}

void SamplingChartWidget::setTopN(int count) {
    topN_ = std::max(count, 1);
    if (hasStep_) {
        applyStep();
    }
}

void SamplingChartWidget::setStep(const SamplingStep& step) {
    step_ = step;
    hasStep_ = true;
    applyStep();
}

std::optional<int> SamplingChartWidget::candidateAt(QPoint point) const {
    if (!axisRect()->rect().contains(point)) {
        return std::nullopt;
    }
    // Bars sit at keys 0, 1, 2, ...; a candidate owns the unit around its key.
    const long index = std::lround(xAxis->pixelToCoord(point.x()));
    if (index < 0 || index >= barCount()) {
        return std::nullopt;
    }
    return int(index);
}

void SamplingChartWidget::mousePressEvent(QMouseEvent* event) {
    QCustomPlot::mousePressEvent(event);
    if (event->button() != Qt::LeftButton) {
        return;
    }
    if (const auto index = candidateAt(event->pos())) {
        emit candidateClicked(*index);
    }
}

void SamplingChartWidget::applyStep() {
    const int shown = std::min(int(step_.candidates.size()), topN_);
    QVector<double> keys(shown);
    std::array<QVector<double>, kSamplingStageCount> values;
    for (auto& v : values) {
        v.resize(shown);
    }
    QVector<double> cumulative(shown);
    QVector<QString> labels(shown);
    double mass = 0;
    double highest = 0;
    for (int i = 0; i < shown; ++i) {
        const SamplingCandidate& candidate = step_.candidates[size_t(i)];
        keys[i] = i;
        for (int stage = 0; stage < kSamplingStageCount; ++stage) {
            values[size_t(stage)][i] = candidate.probability[size_t(stage)];
            highest = std::max(highest, double(candidate.probability[size_t(stage)]));
        }
        // Top-p reads this curve: it keeps candidates until their mass reaches p.
        mass += candidate.probability[kStageTemperature];
        cumulative[i] = mass;
        QString label = visibleWhitespace(candidate.label);
        if (label.size() > 10) {
            label = label.left(9) + QChar(0x2026);
        }
        labels[i] = label;
    }
    for (int stage = 0; stage < kSamplingStageCount; ++stage) {
        bars_[size_t(stage)]->setData(keys, values[size_t(stage)], true);
    }
    cumulative_->setData(keys, cumulative, true);
    labelTicker_->setTicks(keys, labels);
    xAxis->setTickLabelRotation(shown > 8 ? 45 : 0);
    xAxis->setRange(-0.6, std::max(shown, 1) - 0.4);
    yAxis->setRange(0, std::clamp(highest * 1.15, 0.05, 1.0));

    const bool cutoffShown = step_.cutoffIndex > 0 && step_.cutoffIndex < shown;
    cutoffLine_->setVisible(cutoffShown);
    cutoffText_->setVisible(cutoffShown);
    if (cutoffShown) {
        const double x = step_.cutoffIndex - 0.5;
        cutoffLine_->point1->setCoords(x, 0);
        cutoffLine_->point2->setCoords(x, 1);
        cutoffText_->position->setCoords(x, 0.02);
    }
    const bool chosenShown = step_.chosenIndex >= 0 && step_.chosenIndex < shown;
    chosenBand_->setVisible(chosenShown);
    chosenText_->setVisible(chosenShown);
    if (chosenShown) {
        chosenBand_->topLeft->setCoords(step_.chosenIndex - 0.45, 0);
        chosenBand_->bottomRight->setCoords(step_.chosenIndex + 0.45, 1);
        chosenText_->position->setCoords(step_.chosenIndex, 0.02);
    }

    QString title = tr("Step %1 · entropy %2 nats · chosen p = %3 · %4 kept, nucleus mass %5")
                        .arg(step_.step)
                        .arg(step_.entropy, 0, 'f', 3)
                        .arg(double(step_.chosenProbability), 0, 'f', 3)
                        .arg(step_.cutoffIndex)
                        .arg(step_.nucleusMass, 0, 'f', 3);
    if (step_.chosenIndex < 0 || step_.chosenIndex >= shown) {
        title += tr(" · chosen token not among the %1 shown").arg(shown);
    }
    title += maskedLine();
    title_->setText(title);
    requestReplot();
}

QString SamplingChartWidget::titleText() const {
    return title_->text();
}

QString SamplingChartWidget::maskedLine() const {
    QString line;
    if (step_.grammarAllowed >= 0)
        line = QLatin1Char('\n') + tr("The grammar allowed %1 tokens").arg(step_.grammarAllowed);
    if (step_.masked.empty())
        return line;
    // The three the model liked best: what the processors took away at this step.
    QStringList entries;
    for (size_t i = 0; i < std::min<size_t>(step_.masked.size(), 3); ++i) {
        const MaskedToken& m = step_.masked[i];
        entries << tr("“%1” %2% (%3)")
                       .arg(m.label)
                       .arg(double(m.probability) * 100, 0, 'f', 1)
                       .arg(m.maskedBy);
    }
    return line + QLatin1Char('\n') +
           tr("Masked by the logit processors: %1").arg(entries.join(", "));
}

void SamplingChartWidget::appendHistory(int step, double entropy, double chosenProbability) {
    if (!entropyGraph_->data()->isEmpty() && step <= (entropyGraph_->data()->constEnd() - 1)->key) {
        clearHistory();  // steps counting from the start again: a new generation
    }
    entropyGraph_->addData(step, entropy);
    chosenGraph_->addData(step, chosenProbability);
    bool found = false;
    const QCPRange steps = entropyGraph_->data()->keyRange(found);
    historyRect_->axis(QCPAxis::atBottom)
        ->setRange(steps.lower, std::max(steps.upper, steps.lower + 1));
    const QCPRange entropies = entropyGraph_->data()->valueRange(found);
    historyRect_->axis(QCPAxis::atLeft)->setRange(0, std::max(entropies.upper * 1.1, 0.1));
    requestReplot();
}

void SamplingChartWidget::clearHistory() {
    entropyGraph_->data()->clear();
    chosenGraph_->data()->clear();
    historyRect_->axis(QCPAxis::atBottom)->setRange(0, 1);
    historyRect_->axis(QCPAxis::atLeft)->setRange(0, 1);
    requestReplot();
}

void SamplingChartWidget::clear() {
    step_ = SamplingStep();
    hasStep_ = false;
    applyStep();
    title_->setText(tr("Sampling: no step yet"));
    clearHistory();
}

int SamplingChartWidget::barCount() const {
    return bars_[0]->data()->size();
}

int SamplingChartWidget::cutoffIndex() const {
    return step_.cutoffIndex;
}

int SamplingChartWidget::chosenIndex() const {
    return step_.chosenIndex;
}

int SamplingChartWidget::historyCount() const {
    return entropyGraph_->data()->size();
}

double SamplingChartWidget::barValue(int stage, int index) const {
    if (stage < 0 || stage >= kSamplingStageCount || index < 0 || index >= barCount()) {
        return 0;
    }
    return bars_[size_t(stage)]->data()->at(index)->value;
}

std::optional<double> SamplingChartWidget::cutoffLineX() const {
    if (!cutoffLine_->visible()) {
        return std::nullopt;
    }
    return cutoffLine_->point1->coords().x();
}

std::optional<double> SamplingChartWidget::chosenBandX() const {
    if (!chosenBand_->visible()) {
        return std::nullopt;
    }
    return (chosenBand_->topLeft->coords().x() + chosenBand_->bottomRight->coords().x()) / 2;
}

double SamplingChartWidget::cumulativeMass(int index) const {
    if (index < 0 || index >= cumulative_->data()->size()) {
        return 0;
    }
    return cumulative_->data()->at(index)->value;
}

}  // namespace inferlens::widgets
