#pragma once
// The shapes-and-costs table: every stage of the step that just ran, with the shape of its tensor,
// its FLOPs and the bytes it moves (per layer for the layer's stages), and above it the step's
// arithmetic intensity beside what this machine achieved — so that a decode step shows itself
// memory-bound and a prefill compute-bound. On the CPU, below it, how close the step came to the
// machine's ceilings (measured once, in the background): a decode step's weight bytes per second
// against the read bandwidth, a prefill's int8 operations per second against the kernels' peak.

#include <QFutureWatcher>
#include <QWidget>
#include <optional>

#include "evaluation/machine_limits.h"
#include "live_texts.h"
#include "models/model_config.h"
#include "panel_data.h"
#include "teaching/step_costs.h"

class QLabel;
class QTableWidget;

namespace inferlens::gui {

class StepCostsView : public QWidget {
    Q_OBJECT

  public:
    explicit StepCostsView(QWidget* parent = nullptr);

    // `onCpu`: the model runs on the CPU, so the machine's CPU ceilings apply (measured the first
    // time).
    void setModel(const ModelConfig& config, double bytesPerWeight, bool onCpu = true);
    // A step ran: its tokens came after `firstPosition` others; its layer times are measured.
    void showStep(const widgets::LoopTiming& timing, int64_t firstPosition);
    void clear();

    const std::optional<StepCosts>& costs() const { return costs_; }
    QTableWidget* table() const { return table_; }
    QString summaryText() const;
    QString limitsText() const;
    const std::optional<MachineLimits>& machineLimits() const { return limits_; }

  protected:
    void changeEvent(QEvent* event) override;

  private:
    void refresh();
    void measureMachineOnce();

    std::optional<ModelConfig> config_;
    double bytesPerWeight_ = 2;
    std::optional<StepCosts> costs_;
    widgets::LoopTiming timing_;
    bool onCpu_ = true;
    std::optional<MachineLimits> limits_;
    QFutureWatcher<MachineLimits>* measuring_ = nullptr;
    QLabel* summary_;
    QLabel* limitsLabel_;
    QTableWidget* table_;
    LiveTexts texts_;
};

}  // namespace inferlens::gui
