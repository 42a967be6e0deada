#pragma once
// The teaching views and their logic, beside the main window's panels: the guided tour, the
// shapes-and-costs table, the logit lens, the KV cache on/off experiment, the attention kernels
// timed side by side, and the MQA/GQA lesson under the KV chart. The window puts each in a dock and
// feeds them what the worker reports.

#include <QObject>
#include <functional>

#include "engine_worker.h"
#include "guided_tour.h"
#include "live_texts.h"

class QCheckBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace inferlens::widgets {
class LogitLensWidget;
class KvExperimentChartWidget;
}  // namespace inferlens::widgets

namespace inferlens::gui {

class AttentionKernelsView;
class StepCostsView;
class TourPanel;

class TeachingViews : public QObject {
    Q_OBJECT

  public:
    // `busy` says whether a run is in progress (the experiment waits for none).
    TeachingViews(EngineWorker* worker, std::function<bool()> busy, QObject* parent = nullptr);

    // The docks' contents (owned by the docks once placed).
    QWidget* tourPanel() const;
    QWidget* costsPanel() const;
    QWidget* lensPanel() const { return lensPanel_; }
    QWidget* experimentPanel() const { return experimentPanel_; }
    QLabel* kvLesson() const { return kvLesson_; }
    AttentionKernelsView* attentionKernels() const { return kernels_; }

    TourPanel* tour() const { return tour_; }
    StepCostsView* costs() const { return costs_; }
    widgets::LogitLensWidget* lens() const { return lens_; }
    widgets::KvExperimentChartWidget* experimentChart() const { return experimentChart_; }

    void setModel(const ModelSummary& summary);
    // New figures for the tour (the model, the last generation, the selection).
    void setTourFacts(const TourFacts& facts);
    // A sequence starts (its positions count from 0), and one of its steps ran.
    void sequenceStarted();
    void stepTimed(const widgets::LoopTiming& timing);
    void setLensEnabled(bool on);
    // Starts the KV on/off experiment with `tokens` new tokens per run; false when it cannot.
    bool runExperiment(int tokens);
    // Times the fused and the reference attention kernels; false when it cannot start now.
    bool runAttentionKernels();
    // The window passes its LanguageChange on (a QObject gets none of its own).
    void retranslate();

  signals:
    void highlightPanel(const QString& panel);
    // An experiment (KV cache or attention kernels) occupies the worker; `status` says which.
    void experimentStarted(const QString& status);
    void experimentFinished(const QString& message);

  private:
    void buildLensPanel();
    void buildExperimentPanel();
    void connectAttentionKernels();
    void updateKvLesson();

    EngineWorker* worker_;
    std::function<bool()> busy_;
    TourPanel* tour_;
    StepCostsView* costs_;
    QWidget* lensPanel_;
    QCheckBox* lensBox_;
    widgets::LogitLensWidget* lens_;
    QWidget* experimentPanel_;
    QSpinBox* experimentTokens_;
    QPushButton* experimentButton_;
    QProgressBar* experimentProgress_;
    widgets::KvExperimentChartWidget* experimentChart_;
    QLabel* kvLesson_;
    AttentionKernelsView* kernels_;
    std::optional<ModelSummary> model_;
    TourFacts facts_;
    int64_t positions_ = 0;
    bool experimentRunning_ = false;
    LiveTexts texts_;
};

}  // namespace inferlens::gui
