#include "sampling_controls.h"

#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QSpinBox>
#include <cmath>

namespace inferlens::gui {

SamplingControls::SamplingControls(QWidget* parent) : QWidget(parent) {
    auto* form = new QFormLayout(this);
    const SamplingParams defaults;
    temperature_ = addRow(
        form, [] { return tr("Temperature"); }, 0, 2, 0.05, 2, defaults.temperature);
    topK_ = addRow(
        form, [] { return tr("Top-k"); }, 0, 200, 1, 0, defaults.topK);
    topP_ = addRow(
        form, [] { return tr("Top-p"); }, 0.01, 1, 0.01, 2, defaults.topP);
    minP_ = addRow(
        form, [] { return tr("Min-p"); }, 0, 1, 0.01, 2, defaults.minP);
    repeatPenalty_ = addRow(
        form, [] { return tr("Repetition penalty"); }, 0.5, 2, 0.01, 2, 1.0);
    frequencyPenalty_ = addRow(
        form, [] { return tr("Frequency penalty"); }, -2, 2, 0.05, 2, 0.0);
    presencePenalty_ = addRow(
        form, [] { return tr("Presence penalty"); }, -2, 2, 0.05, 2, 0.0);
    maxTokens_ = addRow(
        form, [] { return tr("Max new tokens"); }, 1, 2048, 1, 0, 256);
    seed_ = new QSpinBox;
    seed_->setRange(0, std::numeric_limits<int>::max());
    auto* seedLabel = new QLabel;
    form->addRow(seedLabel, seed_);
    texts_.add([seedLabel] { seedLabel->setText(tr("Seed")); });
    connect(seed_, &QSpinBox::valueChanged, this, [this] { emit paramsChanged(params()); });
}

QDoubleSpinBox* SamplingControls::addRow(QFormLayout* form, std::function<QString()> label,
                                         double min, double max, double step, int decimals,
                                         double value) {
    auto* row = new QWidget;
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* slider = new QSlider(Qt::Horizontal);
    auto* spin = new QDoubleSpinBox;
    spin->setRange(min, max);
    spin->setSingleStep(step);
    spin->setDecimals(decimals);
    spin->setValue(value);
    // The slider moves in spin-box steps: integer positions keep both exactly in sync.
    slider->setRange(0, int(std::lround((max - min) / step)));
    slider->setValue(int(std::lround((value - min) / step)));
    connect(slider, &QSlider::valueChanged, spin,
            [spin, min, step](int position) { spin->setValue(min + position * step); });
    connect(spin, &QDoubleSpinBox::valueChanged, slider, [slider, min, step](double v) {
        const QSignalBlocker block(slider);
        slider->setValue(int(std::lround((v - min) / step)));
    });
    connect(spin, &QDoubleSpinBox::valueChanged, this, [this] { emit paramsChanged(params()); });
    layout->addWidget(slider, 1);
    layout->addWidget(spin);
    auto* caption = new QLabel;
    form->addRow(caption, row);
    texts_.add([caption, label = std::move(label)] { caption->setText(label()); });
    return spin;
}

SamplingParams SamplingControls::params() const {
    SamplingParams p;
    p.temperature = float(temperature_->value());
    p.topK = int32_t(topK_->value());
    p.topP = float(topP_->value());
    p.minP = float(minP_->value());
    p.repetitionPenalty = float(repeatPenalty_->value());
    p.frequencyPenalty = float(frequencyPenalty_->value());
    p.presencePenalty = float(presencePenalty_->value());
    p.seed = uint64_t(seed_->value());
    return p;
}

int SamplingControls::maxNewTokens() const {
    return int(maxTokens_->value());
}

void SamplingControls::setMaxNewTokens(int tokens) {
    maxTokens_->setValue(tokens);
}

void SamplingControls::setTemperature(double temperature) {
    temperature_->setValue(temperature);
}

void SamplingControls::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        texts_.retranslate();
    QWidget::changeEvent(event);
}

}  // namespace inferlens::gui
