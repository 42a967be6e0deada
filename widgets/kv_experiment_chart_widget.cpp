#include "kv_experiment_chart_widget.h"

#include <numeric>

#include "plot_text_layout.h"

namespace inferlens::widgets {

namespace {

std::optional<double> ratioOfFirst(const std::vector<double>& numerator,
                                   const std::vector<double>& denominator, int tokens) {
    if (tokens <= 0 || numerator.size() < size_t(tokens) || denominator.size() < size_t(tokens)) {
        return std::nullopt;
    }
    const double top = std::accumulate(numerator.begin(), numerator.begin() + tokens, 0.0);
    const double bottom = std::accumulate(denominator.begin(), denominator.begin() + tokens, 0.0);
    if (!(bottom > 0)) {
        return std::nullopt;
    }
    return top / bottom;
}

}  // namespace

KvExperimentChartWidget::KvExperimentChartWidget(QWidget* parent) : QCustomPlot(parent) {
    withCache_ = addGraph();
    withCache_->setPen(QPen(QColor(0x1F, 0x77, 0xB4), 2));
    withoutCache_ = addGraph();
    withoutCache_->setPen(QPen(QColor(0xD6, 0x27, 0x28), 2));
    plotLayout()->insertRow(0);
    summary_ = new QCPTextElement(this, QString());
    plotLayout()->addElement(0, 0, summary_);
    // The legend in a row under the summary: inside the axis rect it covered the lines.
    putLegendInRow(*this, legend, 1);
    reserveTickLabelOverhang(axisRect());
    refresh();
}

void KvExperimentChartWidget::setData(const KvExperimentData& data) {
    data_ = data;
    refresh();
}

void KvExperimentChartWidget::appendPoint(bool withCache, double seconds) {
    (withCache ? data_.secondsWithCache : data_.secondsWithoutCache).push_back(seconds);
    refresh();
}

void KvExperimentChartWidget::clear() {
    data_ = {};
    refresh();
}

std::optional<double> KvExperimentChartWidget::speedupAt(int tokens) const {
    return ratioOfFirst(data_.secondsWithoutCache, data_.secondsWithCache, tokens);
}

std::optional<double> KvExperimentChartWidget::flopRatioAt(int tokens) const {
    return ratioOfFirst(data_.flopsWithoutCache, data_.flopsWithCache, tokens);
}

int KvExperimentChartWidget::pointCount(bool withCache) const {
    return (withCache ? withCache_ : withoutCache_)->dataCount();
}

QString KvExperimentChartWidget::summaryText() const {
    QStringList parts;
    for (const int n : {32, 64, 128, 256}) {
        const std::optional<double> speedup = speedupAt(n);
        if (!speedup) {
            continue;
        }
        QString part = tr("%1 tokens: %2× faster").arg(n).arg(*speedup, 0, 'f', 1);
        if (const std::optional<double> flops = flopRatioAt(n)) {
            part += tr(" (%1× the FLOPs without)").arg(*flops, 0, 'f', 1);
        }
        parts << part;
    }
    if (parts.isEmpty()) {
        return data_.secondsWithCache.empty() ? tr("Run the experiment to compare")
                                              : tr("Running…");
    }
    QString text = parts.join(QStringLiteral(" · "));
    if (!data_.identical) {
        text += tr(" · the two runs chose different tokens!");
    }
    return text;
}

void KvExperimentChartWidget::refresh() {
    withCache_->setName(tr("with the KV cache"));
    withoutCache_->setName(tr("without (each step reruns the sequence)"));
    xAxis->setLabel(tr("generated token"));
    yAxis->setLabel(tr("milliseconds"));
    const auto plot = [](QCPGraph* graph, const std::vector<double>& seconds) {
        QVector<double> keys(qsizetype(seconds.size())), values(qsizetype(seconds.size()));
        for (size_t i = 0; i < seconds.size(); ++i) {
            keys[qsizetype(i)] = double(i);
            values[qsizetype(i)] = 1000.0 * seconds[i];
        }
        graph->setData(keys, values, true);
    };
    plot(withCache_, data_.secondsWithCache);
    plot(withoutCache_, data_.secondsWithoutCache);
    rescaleAxes();
    yAxis->setRangeLower(0);
    summary_->setText(summaryText());
    replot(QCustomPlot::rpQueuedReplot);
}

void KvExperimentChartWidget::updateLayout() {
    const int width = viewport().width();
    fitTitle(summary_, summaryText());
    fitLegendColumns(legend, width, 2);
    xAxis->setLabel(tr("generated token"));
    yAxis->setLabel(tr("milliseconds"));
    QCustomPlot::updateLayout();
    fitAxesTwice({{xAxis, tr("generated token")}, {yAxis, tr("milliseconds")}},
                 [this] { QCustomPlot::updateLayout(); });
}

QRect KvExperimentChartWidget::dataArea() const {
    return axisRect()->rect();
}

DrawnTexts KvExperimentChartWidget::drawnTexts() const {
    DrawnTexts texts;
    appendTextElement(summary_, DrawnText::Kind::Title, texts);
    appendLegend(legend, texts);
    appendAxisRectTexts(axisRect(), texts);
    return texts;
}

void KvExperimentChartWidget::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) {
        refresh();
    }
    QCustomPlot::changeEvent(event);
}

}  // namespace inferlens::widgets
