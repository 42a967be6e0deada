#include "step_costs_view.h"

#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <numeric>

#include "display_text.h"

namespace inferlens::gui {

namespace {

// Below this many FLOPs per byte a CPU or GPU waits on memory: their peak arithmetic over their
// bandwidth is some 10 to 100 FLOP per byte.
constexpr double kMemoryBoundIntensity = 10;

}  // namespace

StepCostsView::StepCostsView(QWidget* parent) : QWidget(parent) {
    summary_ = new QLabel;
    summary_->setWordWrap(true);
    table_ = new QTableWidget;
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->setVisible(false);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(summary_);
    layout->addWidget(table_, 1);
    texts_.add([this] { refresh(); });
}

void StepCostsView::setModel(const ModelConfig& config, double bytesPerWeight) {
    config_ = config;
    bytesPerWeight_ = bytesPerWeight;
    clear();
}

void StepCostsView::clear() {
    costs_.reset();
    timing_ = {};
    refresh();
}

void StepCostsView::showStep(const widgets::LoopTiming& timing, int64_t firstPosition) {
    if (!config_ || timing.tokenCount <= 0)
        return;
    timing_ = timing;
    costs_ = stepCosts(*config_, timing.tokenCount, firstPosition, bytesPerWeight_);
    refresh();
}

QString StepCostsView::summaryText() const {
    if (!costs_)
        return tr("The stages of the next step appear here as it runs.");
    const StepCosts& c = *costs_;
    QString text =
        tr("Step %1 (%2): %3 token(s) after %4 · per layer %5 and %6 moved · %7 FLOP "
           "per byte: %8")
            .arg(timing_.step)
            .arg(timing_.prefill ? tr("prefill") : tr("decode"))
            .arg(c.tokens)
            .arg(c.firstPosition)
            .arg(widgets::formatFlops(c.flopsPerLayer),
                 widgets::formatDecimalBytes(c.bytesPerLayer))
            .arg(c.intensity(), 0, 'f', 2)
            .arg(c.intensity() < kMemoryBoundIntensity ? tr("memory-bound") : tr("compute-bound"));
    const double layerSeconds =
        std::accumulate(timing_.layerSeconds.begin(), timing_.layerSeconds.end(), 0.0);
    if (layerSeconds > 0 && !timing_.layerSeconds.empty()) {
        const double layers = double(timing_.layerSeconds.size());
        text += tr(" · measured: %1 ms per layer, %2/s and %3/s")
                    .arg(1000 * layerSeconds / layers, 0, 'f', 2)
                    .arg(widgets::formatFlops(c.flopsPerLayer * layers / layerSeconds),
                         widgets::formatDecimalBytes(c.bytesPerLayer * layers / layerSeconds));
    }
    return text;
}

void StepCostsView::refresh() {
    summary_->setText(summaryText());
    table_->setColumnCount(6);
    table_->setHorizontalHeaderLabels({tr("stage"), tr("tensor"), tr("shape"), tr("FLOPs"),
                                       tr("bytes moved"), tr("FLOP / byte")});
    if (!costs_) {
        table_->setRowCount(0);
        return;
    }
    table_->setRowCount(int(costs_->stages.size()));
    int row = 0;
    for (const StageCost& stage : costs_->stages) {
        const QString scope = stageRepeatsPerLayer(stage.stage) ? tr("per layer") : tr("once");
        const QString cells[] = {
            QString::fromLatin1(stageName(stage.stage)) + QStringLiteral(" (") + scope + ')',
            QString::fromStdString(stage.tensor),
            QString::fromStdString(formatShape(stage.shape)),
            widgets::formatFlops(stage.flops),
            widgets::formatDecimalBytes(stage.bytes()),
            stage.bytes() > 0 ? QString::number(stage.flops / stage.bytes(), 'f', 2)
                              : QStringLiteral("–")};
        for (int column = 0; column < 6; ++column)
            table_->setItem(row, column, new QTableWidgetItem(cells[column]));
        ++row;
    }
    table_->resizeColumnsToContents();
}

void StepCostsView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        texts_.retranslate();
    QWidget::changeEvent(event);
}

}  // namespace inferlens::gui
