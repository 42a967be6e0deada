#include "sampling_chart_widget.h"

#include <QMouseEvent>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "display_text.h"
#include "plot_text_layout.h"

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
const QColor kUnknownTail(0x90, 0x90, 0x90);

// Rows of the plot layout.
constexpr int kTitleRow = 0, kLegendRow = 1, kBarsRow = 2, kHistoryLegendRow = 3, kHistoryRow = 4;
// Below these data area heights (px) the history, then the legend, give their room to the bars.
constexpr int kLeastBarsHeight = 90, kLeastHistoryHeight = 40, kLeastBarsWithoutLegend = 50;

}  // namespace

SamplingChartWidget::SamplingChartWidget(QWidget* parent) : QCustomPlot(parent) {
    setAutoAddPlottableToLegend(false);

    // Top: the default axis rect holds the bars; the title goes above it.
    plotLayout()->insertRow(kTitleRow);
    title_ = new QCPTextElement(this, tr("Sampling: no step yet"));
    plotLayout()->addElement(kTitleRow, 0, title_);

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
    // A server's step: the mass outside the top-N it listed, hatched, after the candidates.
    unknownTail_ = new QCPBars(xAxis, yAxis);
    unknownTail_->setName(tr("rest of the vocabulary (split unknown)"));
    unknownTail_->setWidth(0.6);
    unknownTail_->setPen(QPen(kUnknownTail.darker(130)));
    unknownTail_->setBrush(QBrush(kUnknownTail, Qt::BDiagPattern));
    unknownTail_->setVisible(false);
    cumulative_ = addGraph(xAxis, yAxis2);
    cumulative_->setName(tr("cumulative mass"));
    cumulative_->setPen(QPen(kCumulative, 1.5));
    cumulative_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
    cumulative_->addToLegend();

    labelTicker_.reset(new QCPAxisTickerText);
    xAxis->setTicker(labelTicker_);
    xAxis->grid()->setVisible(false);
    xAxis->setRange(0, 1);
    yAxis->setRange(0, 1);
    yAxis2->setVisible(true);
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
    // Above the bars and the cumulative curve, on a light ground: the labels stay readable where
    // the tallest bar reaches the top.
    for (QCPItemText* label : {chosenText_, cutoffText_}) {
        label->setLayer(QStringLiteral("overlay"));
        label->setBrush(QColor(255, 255, 255, 210));
    }

    // The legends get rows of their own: inside an axis rect they would hide the tallest bars,
    // which are the ones that matter, and the history's lines.
    legend->setFont(font());
    putLegendInRow(*this, legend, kLegendRow);
    legend->setMargins(QMargins(4, 0, 4, 0));

    // Bottom: entropy and the chosen token's probability, step by step.
    historyRect_ = new QCPAxisRect(this);
    historyLegend_ = new QCPLegend;
    plotLayout()->addElement(kHistoryLegendRow, 0, historyLegend_);
    plotLayout()->addElement(kHistoryRow, 0, historyRect_);
    historyLegend_->setLayer(QStringLiteral("legend"));
    historyLegend_->setFont(font());
    historyLegend_->setBorderPen(Qt::NoPen);
    historyLegend_->setBrush(Qt::NoBrush);
    historyLegend_->setMargins(QMargins(4, 0, 4, 0));
    plotLayout()->setRowStretchFactor(kBarsRow, 2);
    plotLayout()->setRowStretchFactor(kHistoryLegendRow, 0.001);
    plotLayout()->setRowStretchFactor(kHistoryRow, 1);
    auto* margins = new QCPMarginGroup(this);
    axisRect()->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    historyRect_->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    QCPAxis* steps = historyRect_->axis(QCPAxis::atBottom);
    QCPAxis* entropyAxis = historyRect_->axis(QCPAxis::atLeft);
    QCPAxis* probabilityAxis = historyRect_->axis(QCPAxis::atRight);
    probabilityAxis->setVisible(true);
    probabilityAxis->setRange(0, 1.05);
    // Steps are whole numbers: ticks at 1, 2, 5, 10 … apart, never at 0.5.
    QSharedPointer<QCPAxisTickerFixed> wholeSteps(new QCPAxisTickerFixed);
    wholeSteps->setTickStep(1);
    wholeSteps->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    steps->setTicker(wholeSteps);
    axisLabels_ = {{xAxis, tr("candidates, best first")},
                   {yAxis, tr("probability")},
                   {yAxis2, tr("cumulative")},
                   {steps, tr("step")},
                   {entropyAxis, tr("entropy (nats)")},
                   {probabilityAxis, tr("chosen p")}};
    for (const auto& [axis, label] : axisLabels_) {
        axis->setLabel(label);
    }
    reserveTickLabelOverhang(axisRect());
    reserveTickLabelOverhang(historyRect_);
    entropyGraph_ = addGraph(steps, entropyAxis);
    entropyGraph_->setName(tr("entropy"));
    entropyGraph_->setPen(QPen(kEntropy, 1.5));
    chosenGraph_ = addGraph(steps, probabilityAxis);
    chosenGraph_->setName(tr("chosen token's probability"));
    chosenGraph_->setPen(QPen(kChosenProbability, 1.5));
    entropyGraph_->addToLegend(historyLegend_);
    chosenGraph_->addToLegend(historyLegend_);
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
    // A server reports the raw stage only: the other stages' bars and their legend entries go,
    // and the raw bars take the whole slot.
    const bool server = step_.fromServer && !step_.reshapedTopN;
    for (int stage = 0; stage < kSamplingStageCount; ++stage) {
        QCPBars* bars = bars_[size_t(stage)];
        const bool drawn = !server || stage == kStageRaw;
        bars->setVisible(drawn);
        if (drawn != legend->hasItemWithPlottable(bars))
            drawn ? bars->addToLegend() : bars->removeFromLegend();
        bars->setBarsGroup(server ? nullptr : group_);
        bars->setWidth(server ? 0.6 : 0.2);
    }
    unknownTail_->setVisible(server);
    if (server != legend->hasItemWithPlottable(unknownTail_))
        server ? unknownTail_->addToLegend() : unknownTail_->removeFromLegend();
    const int stageOfMass = server ? kStageRaw : kStageTemperature;
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
        mass += candidate.probability[size_t(stageOfMass)];
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
    unknownTail_->setData(QVector<double>{double(shown)}, QVector<double>{step_.unknownMass}, true);
    if (server) {
        keys.push_back(shown);
        labels.push_back(tr("rest"));
        highest = std::max(highest, step_.unknownMass);
    }
    candidateLabels_ = labels;
    labelTicker_->setTicks(keys, labels);
    xAxis->setRange(-0.6, std::max(int(keys.size()), 1) - 0.4);
    yAxis->setRange(0, std::clamp(highest * 1.15, 0.05, 1.0));

    // The texts of these two are placed at each replot (placeMarkers), where the room is known.
    const bool cutoffShown = step_.cutoffIndex > 0 && step_.cutoffIndex < shown;
    cutoffLine_->setVisible(cutoffShown);
    if (cutoffShown) {
        const double x = step_.cutoffIndex - 0.5;
        cutoffLine_->point1->setCoords(x, 0);
        cutoffLine_->point2->setCoords(x, 1);
    }
    const bool chosenShown = step_.chosenIndex >= 0 && step_.chosenIndex < shown;
    chosenBand_->setVisible(chosenShown);
    if (chosenShown) {
        chosenBand_->topLeft->setCoords(step_.chosenIndex - 0.45, 0);
        chosenBand_->bottomRight->setCoords(step_.chosenIndex + 0.45, 1);
    }

    QString title =
        step_.reshapedTopN
            ? tr("Step %1 · preview: re-shaped among the server's top %2 only (they hold %3 of "
                 "the probability; the rest is left out) · %4 kept")
                  .arg(step_.step)
                  .arg(shown)
                  .arg(1 - step_.unknownMass, 0, 'f', 3)
                  .arg(step_.cutoffIndex)
        : server ? tr("Step %1 · the server's top %2 hold %3 of the probability, the rest (%4) is "
                      "unknown · chosen p = %5 (before the server's sampling)")
                       .arg(step_.step)
                       .arg(shown)
                       .arg(1 - step_.unknownMass, 0, 'f', 3)
                       .arg(step_.unknownMass, 0, 'f', 3)
                       .arg(double(step_.chosenProbability), 0, 'f', 3)
                 : tr("Step %1 · entropy %2 nats · chosen p = %3 · %4 kept, nucleus mass %5")
                       .arg(step_.step)
                       .arg(step_.entropy, 0, 'f', 3)
                       .arg(double(step_.chosenProbability), 0, 'f', 3)
                       .arg(step_.cutoffIndex)
                       .arg(step_.nucleusMass, 0, 'f', 3);
    if (step_.chosenIndex < 0 || step_.chosenIndex >= shown) {
        title += tr(" · chosen token not among the %1 shown").arg(shown);
    }
    title += maskedLine();
    fullTitle_ = title;
    title_->setText(title);
    requestReplot();
}

QString SamplingChartWidget::titleText() const {
    return fullTitle_;
}

void SamplingChartWidget::updateLayout() {
    fitTexts();
    QCustomPlot::updateLayout();
    placeMarkers();
}

void SamplingChartWidget::showInRow(QCPLayoutElement* element, int row, double stretch,
                                    bool shown) {
    element->setVisible(shown);
    if (shown == (element->layout() != nullptr)) {
        return;
    }
    if (shown) {
        plotLayout()->addElement(row, 0, element);
    } else {
        plotLayout()->take(element);
    }
    // An empty row would still take its share of the height.
    plotLayout()->setRowStretchFactor(row, shown ? stretch : 1e-6);
}

void SamplingChartWidget::fitTexts() {
    const int width = viewport().width();
    fitTitle(title_, fullTitle_);
    fitLegendColumns(legend, width, 3);
    fitLegendColumns(historyLegend_, width, 2);
    for (const auto& [axis, label] : axisLabels_) {
        axis->setLabel(label);
    }
    // Start from everything shown; give up the history, then the legend, if the bars get too
    // little height.
    showInRow(legend, kLegendRow, 0.001, true);
    showInRow(historyLegend_, kHistoryLegendRow, 0.001, true);
    showInRow(historyRect_, kHistoryRow, 1, true);
    QCustomPlot::updateLayout();
    fitCandidateLabels();
    QCustomPlot::updateLayout();
    if (axisRect()->rect().height() < kLeastBarsHeight ||
        historyRect_->rect().height() < kLeastHistoryHeight) {
        showInRow(historyLegend_, kHistoryLegendRow, 0.001, false);
        showInRow(historyRect_, kHistoryRow, 1, false);
        QCustomPlot::updateLayout();
    }
    if (axisRect()->rect().height() < kLeastBarsWithoutLegend) {
        showInRow(legend, kLegendRow, 0.001, false);
        QCustomPlot::updateLayout();
    }
    // The candidates' tick labels in each round too; after the axes' is as good as before them,
    // since the text ticker is no tick count's to fit and both read only what the layout sets.
    fitAxesTwice(axisLabels_, [this] {
        fitCandidateLabels();
        QCustomPlot::updateLayout();
    });
}

void SamplingChartWidget::fitCandidateLabels() {
    const int shown = int(candidateLabels_.size());
    if (shown == 0) {
        return;
    }
    QVector<double> keys(shown);
    std::iota(keys.begin(), keys.end(), 0.0);
    const auto collide = [&](const QVector<QString>& labels) {
        QRectF previous;
        for (int i = 0; i < shown; ++i) {
            if (labels[i].isEmpty()) {
                continue;
            }
            const QRectF box =
                tickLabelRect(xAxis, xAxis->coordToPixel(i), labels[i]).adjusted(-2, 0, 2, 0);
            if (!previous.isNull() && box.intersects(previous)) {
                return true;
            }
            previous = box;
        }
        return false;
    };
    // Level when they fit side by side; otherwise upright, shortened to a share of the panel's
    // height, and if even upright labels are too close, every k-th candidate.
    xAxis->setTickLabelRotation(0);
    QVector<QString> labels = candidateLabels_;
    if (collide(labels)) {
        xAxis->setTickLabelRotation(-90);
        const QFontMetrics metrics(xAxis->tickLabelFont());
        const int longest = std::max(viewport().height() / 7, 3 * metrics.averageCharWidth());
        QVector<QString> elided(shown);
        for (int i = 0; i < shown; ++i) {
            elided[i] = metrics.elidedText(candidateLabels_[i], Qt::ElideRight, longest);
        }
        for (int every = 1; every <= shown; ++every) {
            for (int i = 0; i < shown; ++i) {
                labels[i] = i % every == 0 ? elided[i] : QString();
            }
            if (!collide(labels)) {
                break;
            }
        }
    }
    labelTicker_->setTicks(keys, labels);
}

void SamplingChartWidget::placeMarkers() {
    const int shown = barCount();
    const QRect area = axisRect()->rect().adjusted(2, 2, -2, -2);
    // "chosen" at the top over its band, "cut off" a line lower beside its line (on the side with
    // room), so that the two never meet even when the cut-off follows the chosen candidate.
    const bool chosenShown = step_.chosenIndex >= 0 && step_.chosenIndex < shown;
    chosenText_->setVisible(chosenShown);
    QRectF chosenBox;
    if (chosenShown) {
        chosenText_->position->setCoords(step_.chosenIndex, 0);
        if (keepItemInside(chosenText_, area)) {
            chosenBox = itemTextRect(chosenText_);
        }
    }
    const bool cutoffShown = step_.cutoffIndex > 0 && step_.cutoffIndex < shown;
    cutoffText_->setVisible(cutoffShown);
    if (!cutoffShown) {
        return;
    }
    cutoffText_->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    cutoffText_->position->setCoords(step_.cutoffIndex - 0.5, 0);
    if (itemTextRect(cutoffText_).right() > area.right()) {
        cutoffText_->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
    }
    if (!chosenBox.isNull()) {
        const QPointF at = cutoffText_->position->pixelPosition();
        cutoffText_->position->setPixelPosition(QPointF(at.x(), chosenBox.bottom() + 2));
    }
    if (keepItemInside(cutoffText_, area) && itemTextRect(cutoffText_).intersects(chosenBox)) {
        cutoffText_->setVisible(false);  // too little height for two lines
    }
}

QRect SamplingChartWidget::dataArea() const {
    return axisRect()->rect();
}

QRect SamplingChartWidget::historyArea() const {
    return historyRect_->layout() ? historyRect_->rect() : QRect();
}

DrawnTexts SamplingChartWidget::drawnTexts() const {
    DrawnTexts texts;
    appendTextElement(title_, DrawnText::Kind::Title, texts);
    appendLegend(legend, texts);
    appendAxisRectTexts(axisRect(), texts);
    appendItemText(chosenText_, texts);
    appendItemText(cutoffText_, texts);
    if (historyRect_->layout()) {
        appendLegend(historyLegend_, texts);
        appendAxisRectTexts(historyRect_, texts);
    }
    return texts;
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
    // From the chosen token's curve: a server's steps have no entropy (NaN), and a curve's key
    // range leaves NaN values out.
    const QCPRange steps = chosenGraph_->data()->keyRange(found);
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
    fullTitle_ = tr("Sampling: no step yet");
    title_->setText(fullTitle_);
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

std::optional<double> SamplingChartWidget::unknownTailValue() const {
    if (!unknownTail_->visible() || unknownTail_->data()->isEmpty())
        return std::nullopt;
    return unknownTail_->data()->at(0)->value;
}

double SamplingChartWidget::cumulativeMass(int index) const {
    if (index < 0 || index >= cumulative_->data()->size()) {
        return 0;
    }
    return cumulative_->data()->at(index)->value;
}

}  // namespace inferlens::widgets
