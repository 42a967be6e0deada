#pragma once
// The shapes-and-costs table: every stage of the step that just ran, with the shape of its tensor,
// its FLOPs and the bytes it moves (per layer for the layer's stages), and above it the step's
// arithmetic intensity beside what this machine achieved — so that a decode step shows itself
// memory-bound and a prefill compute-bound.

#include <QWidget>
#include <optional>

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

    void setModel(const ModelConfig& config, double bytesPerWeight);
    // A step ran: its tokens came after `firstPosition` others; its layer times are measured.
    void showStep(const widgets::LoopTiming& timing, int64_t firstPosition);
    void clear();

    const std::optional<StepCosts>& costs() const { return costs_; }
    QTableWidget* table() const { return table_; }
    QString summaryText() const;

  protected:
    void changeEvent(QEvent* event) override;

  private:
    void refresh();

    std::optional<ModelConfig> config_;
    double bytesPerWeight_ = 2;
    std::optional<StepCosts> costs_;
    widgets::LoopTiming timing_;
    QLabel* summary_;
    QTableWidget* table_;
    LiveTexts texts_;
};

}  // namespace inferlens::gui
