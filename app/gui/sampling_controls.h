#pragma once
// The sampling panel: every parameter of the sampler chain as a slider with a spin box. Emits the
// whole parameter set on every change; the worker applies it from the next token, even in the
// middle of a generation.

#include <QWidget>
#include <functional>

#include "live_texts.h"
#include "sampling/sampling_params.h"

class QDoubleSpinBox;
class QFormLayout;
class QSpinBox;

namespace inferlens::gui {

class SamplingControls : public QWidget {
    Q_OBJECT

  public:
    explicit SamplingControls(QWidget* parent = nullptr);
    SamplingParams params() const;
    int maxNewTokens() const;
    void setMaxNewTokens(int tokens);
    void setTemperature(double temperature);

  signals:
    void paramsChanged(const inferlens::SamplingParams& params);

  protected:
    void changeEvent(QEvent* event) override;

  private:
    QDoubleSpinBox* addRow(QFormLayout* form, std::function<QString()> label, double min,
                           double max, double step, int decimals, double value);

    QDoubleSpinBox* temperature_;
    QDoubleSpinBox* topK_;
    QDoubleSpinBox* topP_;
    QDoubleSpinBox* minP_;
    QDoubleSpinBox* repeatPenalty_;
    QDoubleSpinBox* frequencyPenalty_;
    QDoubleSpinBox* presencePenalty_;
    QDoubleSpinBox* maxTokens_;
    QSpinBox* seed_;
    LiveTexts texts_;
};

}  // namespace inferlens::gui

Q_DECLARE_METATYPE(inferlens::SamplingParams)
