#pragma once
// The Chat workspace's compact sampling view: the token just chosen among the five best
// candidates, each with the probability it was drawn with, and the sampling settings in force —
// enough to see at a glance how sure the model was, without the Sampling lab's large chart.

#include <QWidget>
#include <array>

#include "live_texts.h"
#include "panel_data.h"
#include "sampling/sampling_params.h"

class QLabel;
class QProgressBar;

namespace inferlens::gui {

class SamplingSummaryView : public QWidget {
    Q_OBJECT

  public:
    static constexpr int kRows = 5;

    explicit SamplingSummaryView(QWidget* parent = nullptr);

    void setStep(const widgets::SamplingStep& step);
    void setParams(const SamplingParams& params);
    void clear();

    // For tests: a row's token and probability as shown, and the settings line.
    QString rowToken(int row) const;
    QString rowProbability(int row) const;
    bool rowIsChosen(int row) const;
    QString settingsText() const;

  protected:
    void changeEvent(QEvent* event) override;

  private:
    void refresh();

    LiveTexts texts_;
    widgets::SamplingStep step_;
    bool hasStep_ = false;
    SamplingParams params_;
    QLabel* heading_;
    std::array<QLabel*, kRows> tokens_{};
    std::array<QProgressBar*, kRows> bars_{};
    std::array<QLabel*, kRows> chosenMarks_{};
    QLabel* settings_;
};

}  // namespace inferlens::gui
