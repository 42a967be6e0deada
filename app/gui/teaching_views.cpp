#include "teaching_views.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "attention_kernels_view.h"
#include "kv_experiment_chart_widget.h"
#include "logit_lens_widget.h"
#include "step_costs_view.h"
#include "teaching/step_costs.h"
#include "tour_panel.h"

namespace inferlens::gui {

TeachingViews::TeachingViews(EngineWorker* worker, std::function<bool()> busy, QObject* parent)
    : QObject(parent),
      worker_(worker),
      busy_(std::move(busy)),
      tour_(new TourPanel),
      costs_(new StepCostsView),
      kvLesson_(new QLabel),
      kernels_(new AttentionKernelsView) {
    kvLesson_->setWordWrap(true);
    connect(tour_, &TourPanel::highlightPanel, this, &TeachingViews::highlightPanel);
    buildLensPanel();
    buildExperimentPanel();
    connectAttentionKernels();
    connect(worker_, &EngineWorker::lensStep, lens_, &widgets::LogitLensWidget::setSnapshot);
    connect(worker_, &EngineWorker::kvExperimentProgress, this,
            [this](bool withCache, qint64 done, qint64 total) {
                // The two runs fill one bar: with the cache, then without.
                experimentProgress_->setMaximum(int(2 * total));
                experimentProgress_->setValue(int((withCache ? 0 : total) + done));
            });
    connect(worker_, &EngineWorker::kvExperimentFinished, this,
            [this](const widgets::KvExperimentData& data, const QString& error) {
                experimentRunning_ = false;
                experimentButton_->setEnabled(true);
                experimentProgress_->hide();
                if (!data.secondsWithCache.empty())
                    experimentChart_->setData(data);
                emit experimentFinished(error.isEmpty() ? experimentChart_->summaryText()
                                                        : tr("Experiment: %1").arg(error));
            });
}

QWidget* TeachingViews::tourPanel() const {
    return tour_;
}

QWidget* TeachingViews::costsPanel() const {
    return costs_;
}

void TeachingViews::buildLensPanel() {
    lensPanel_ = new QWidget;
    lensBox_ = new QCheckBox;
    lens_ = new widgets::LogitLensWidget;
    auto* layout = new QVBoxLayout(lensPanel_);
    layout->addWidget(lensBox_);
    layout->addWidget(lens_, 1);
    // Straight to the worker's flag (thread-safe): a queued call would wait for the generation.
    connect(lensBox_, &QCheckBox::toggled, this, [this](bool on) { worker_->setLensEnabled(on); });
    texts_.add([this] {
        lensBox_->setText(tr("Compute the logit lens (slower)"));
        lensBox_->setToolTip(
            tr("From the next step on: one LM head per layer and step, so every step is slower"));
    });
}

void TeachingViews::buildExperimentPanel() {
    experimentPanel_ = new QWidget;
    auto* tokensLabel = new QLabel;
    experimentTokens_ = new QSpinBox;
    experimentTokens_->setRange(8, 1024);
    experimentTokens_->setValue(128);
    experimentButton_ = new QPushButton;
    experimentProgress_ = new QProgressBar;
    experimentProgress_->hide();
    experimentChart_ = new widgets::KvExperimentChartWidget;
    // Two rows, so that the panel fits a narrow column of the Teaching workspace.
    auto* tokens = new QHBoxLayout;
    tokens->addWidget(tokensLabel);
    tokens->addWidget(experimentTokens_);
    tokens->addStretch();
    auto* run = new QHBoxLayout;
    run->addWidget(experimentButton_);
    run->addWidget(experimentProgress_, 1);
    auto* layout = new QVBoxLayout(experimentPanel_);
    layout->addLayout(tokens);
    layout->addLayout(run);
    layout->addWidget(experimentChart_, 1);
    connect(experimentButton_, &QPushButton::clicked, this,
            [this] { runExperiment(experimentTokens_->value()); });
    texts_.add([=, this] {
        tokensLabel->setText(tr("New tokens per run"));
        experimentButton_->setText(tr("Run with and without the KV cache"));
        experimentButton_->setToolTip(
            tr("Greedy generation of the last prompt twice: with the cache, then rerunning the "
               "whole sequence at every step (Stop cancels)"));
    });
}

bool TeachingViews::runExperiment(int tokens) {
    if (experimentRunning_ || busy_() || !model_)
        return false;
    experimentRunning_ = true;
    experimentTokens_->setValue(tokens);
    experimentButton_->setEnabled(false);
    experimentProgress_->setValue(0);
    experimentProgress_->show();
    experimentChart_->clear();
    emit experimentStarted(tr("KV cache experiment running (Stop cancels)"));
    QMetaObject::invokeMethod(worker_, "runKvExperiment", Qt::QueuedConnection, Q_ARG(int, tokens));
    return true;
}

void TeachingViews::connectAttentionKernels() {
    connect(kernels_, &AttentionKernelsView::measureRequested, this,
            &TeachingViews::runAttentionKernels);
    connect(worker_, &EngineWorker::attentionKernelProgress, kernels_,
            &AttentionKernelsView::setProgress);
    connect(worker_, &EngineWorker::attentionKernelsTimed, this,
            [this](const std::vector<AttentionKernelTiming>& timings, const QString& error) {
                experimentRunning_ = false;
                kernels_->setTimings(timings);
                emit experimentFinished(error.isEmpty() ? kernels_->summaryText()
                                                        : tr("Attention kernels: %1").arg(error));
            });
}

bool TeachingViews::runAttentionKernels() {
    if (experimentRunning_ || busy_() || !model_)
        return false;
    experimentRunning_ = true;
    kernels_->started();
    emit experimentStarted(tr("Timing the attention kernels (Stop cancels)"));
    QMetaObject::invokeMethod(worker_, "runAttentionKernelTiming", Qt::QueuedConnection);
    return true;
}

void TeachingViews::setLensEnabled(bool on) {
    lensBox_->setChecked(on);
}

void TeachingViews::setModel(const ModelSummary& summary) {
    model_ = summary;
    costs_->setModel(summary.config, summary.bytesPerWeight,
                     summary.device.startsWith(QLatin1String("CPU")));
    lens_->clear();
    experimentChart_->clear();
    kernels_->setModel(summary.config);
    updateKvLesson();
}

void TeachingViews::updateKvLesson() {
    if (!model_) {
        kvLesson_->clear();
        return;
    }
    const ModelConfig& c = model_->config;
    const auto kib = [](int64_t bytes) { return QString::number(double(bytes) / 1024.0, 'g', 4); };
    kvLesson_->setText(
        tr("%1 key/value groups instead of %2 heads: %3 KiB instead of %4 KiB per token at fp16 "
           "(%5 layers × keys and values × %1 × %6 numbers × 2 bytes), %7× less memory.")
            .arg(c.kvHeadCount)
            .arg(c.headCount)
            .arg(kib(kvBytesPerToken(c, 2)), kib(kvBytesPerToken(c, 2, true)))
            .arg(c.layerCount)
            .arg(c.headDim)
            .arg(double(c.headCount) / double(std::max<int64_t>(1, c.kvHeadCount)), 0, 'g', 3));
}

void TeachingViews::setTourFacts(const TourFacts& facts) {
    facts_ = facts;
    tour_->setSteps(buildTour(facts_));
}

void TeachingViews::sequenceStarted() {
    positions_ = 0;
    costs_->clear();
}

void TeachingViews::stepTimed(const widgets::LoopTiming& timing) {
    costs_->showStep(timing, positions_);
    positions_ += timing.tokenCount;
}

void TeachingViews::retranslate() {
    texts_.retranslate();
    kernels_->retranslate();
    updateKvLesson();
    if (model_)
        tour_->setSteps(buildTour(facts_));
}

}  // namespace inferlens::gui
