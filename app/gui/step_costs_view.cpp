#include "step_costs_view.h"

#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <numeric>
#include <thread>

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
    limitsLabel_ = new QLabel;
    limitsLabel_->setWordWrap(true);
    table_ = new QTableWidget;
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->setVisible(false);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(summary_);
    layout->addWidget(limitsLabel_);
    layout->addWidget(table_, 1);
    texts_.add([this] { refresh(); });
}

void StepCostsView::setModel(const ModelConfig& config, double bytesPerWeight, bool onCpu) {
    config_ = config;
    bytesPerWeight_ = bytesPerWeight;
    onCpu_ = onCpu;
    if (onCpu)
        measureMachineOnce();
    clear();
}

// A few tenths of a second of reading memory and of dot-product loops: on a pool thread, never on
// the UI's, with as many threads as the CPU backend takes by default.
void StepCostsView::measureMachineOnce() {
    if (limits_ || measuring_)
        return;
    measuring_ = new QFutureWatcher<MachineLimits>(this);
    connect(measuring_, &QFutureWatcher<MachineLimits>::finished, this, [this] {
        limits_ = measuring_->result();
        refresh();
    });
    const int threads = int(std::max(1u, std::thread::hardware_concurrency()));
    measuring_->setFuture(QtConcurrent::run([threads] { return measureMachineLimits(threads); }));
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

QString StepCostsView::limitsText() const {
    if (!costs_ || !onCpu_ || timing_.stepSeconds <= 0)
        return {};
    if (!limits_)
        return tr("Measuring this machine's read bandwidth and int8 peak…");
    const StepCosts& c = *costs_;
    const double seconds = timing_.stepSeconds;
    const auto percent = [](double fraction) { return QString::number(100 * fraction, 'f', 1); };
    if (timing_.prefill)
        return tr("Against this machine's limit: %1/s in the weight products, %2% of the int8 "
                  "peak of the %3 kernels (%4/s, %5 threads)")
            .arg(widgets::formatFlops(c.productFlops / seconds))
            .arg(percent(fractionOfLimit(c.productFlops, seconds, limits_->int8OpsPerSecond)))
            .arg(QString::fromLatin1(limits_->kernels))
            .arg(widgets::formatFlops(limits_->int8OpsPerSecond))
            .arg(limits_->threads);
    return tr("Against this machine's limit: %1/s of weights read, %2% of the read bandwidth "
              "(%3/s, %4 threads)")
        .arg(widgets::formatDecimalBytes(c.weightBytes / seconds))
        .arg(percent(fractionOfLimit(c.weightBytes, seconds, limits_->readBytesPerSecond)))
        .arg(widgets::formatDecimalBytes(limits_->readBytesPerSecond))
        .arg(limits_->threads);
}

void StepCostsView::refresh() {
    summary_->setText(summaryText());
    const QString limits = limitsText();
    limitsLabel_->setText(limits);
    limitsLabel_->setVisible(!limits.isEmpty());
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
