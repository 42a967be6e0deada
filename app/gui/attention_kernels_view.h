#pragma once
// The teaching view on the attention kernels: what the fused kernel does differently from the
// reference one, and how long each takes on this machine for one layer of the loaded model at
// 512, 2,048 and 8,192 tokens (measured by the worker, teaching/attention_kernels.h). The table
// also gives how much the outputs differ (rounding only) and the size of the score matrix the
// fused kernel never stores.

#include <QWidget>
#include <optional>
#include <vector>

#include "live_texts.h"
#include "models/model_config.h"
#include "teaching/attention_kernels.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace inferlens::gui {

class AttentionKernelsView : public QWidget {
    Q_OBJECT

  public:
    explicit AttentionKernelsView(QWidget* parent = nullptr);

    void setModel(const ModelConfig& config);
    void started();
    void setProgress(int done, int total);
    void setTimings(const std::vector<AttentionKernelTiming>& timings);
    // One line on the last measurement (for the status bar), or the reason there is none.
    QString summaryText() const;
    int rowCount() const;
    const std::vector<AttentionKernelTiming>& timings() const { return timings_; }
    void retranslate();

  signals:
    void measureRequested();

  private:
    void fillTable();

    QLabel* explanation_;
    QPushButton* measureButton_;
    QProgressBar* progress_;
    QTableWidget* table_;
    std::optional<ModelConfig> config_;
    std::vector<AttentionKernelTiming> timings_;
    LiveTexts texts_;
};

}  // namespace inferlens::gui
