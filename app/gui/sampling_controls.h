#pragma once
// The sampling panel: beam search or sampling first, then every parameter of the sampler chain as
// a slider with a spin box, then the logit processors as text fields (logit bias "ID=V, ID=V";
// banned texts and stop strings separated by "|") and the minimum length. Emits the whole parameter
// set on every change; the worker applies it from the next token, even in the middle of a
// generation. Stop strings apply to the next generation.

#include <QWidget>
#include <functional>
#include <string>
#include <vector>

#include "live_texts.h"
#include "sampling/sampling_params.h"

class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
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
    // Beam search instead of sampling when the width is above 1 (the sampler's fields are greyed
    // out then: they do not apply).
    int beamWidth() const;
    double lengthPenalty() const;
    void setBeamWidth(int width);
    // The stop strings typed (not part of the sampler: the generation ends where one appears).
    std::vector<std::string> stopStrings() const;
    // Setters for the processor fields (tests, and typing them in).
    void setLogitBiasText(const QString& text);
    void setBannedText(const QString& text);
    void setStopText(const QString& text);
    void setMinNewTokens(int tokens);
    // A grammar the output must follow (grammar/grammar.h); throws Error if it does not compile,
    // keeping the one before. An empty text turns it off.
    void setGrammar(const QString& text, const QString& name);
    // The grammar in a file (a .json file is a JSON schema); false with the reason in `error`.
    bool loadGrammarFile(const QString& path, QString* error);
    // A model on a server: beam search and the processors its API cannot carry (banned texts, a
    // minimum of new tokens) are greyed out with the reason in their tooltip; false restores them.
    void setOnServer(bool onServer);
    // The logit-bias entries that do not parse, with why (empty: all do).
    QString logitBiasProblem() const { return biasProblem_; }

  signals:
    void paramsChanged(const inferlens::SamplingParams& params);

  protected:
    void changeEvent(QEvent* event) override;

  private:
    void updateDecodingMode();
    // Over the local tooltips while on a server: why a control is greyed out.
    void showServerReasons();
    QDoubleSpinBox* addRow(QFormLayout* form, std::function<QString()> label, double min,
                           double max, double step, int decimals, double value);

    QSpinBox* beams_;
    QDoubleSpinBox* lengthPenalty_;
    std::vector<QWidget*> samplerOnly_;
    QDoubleSpinBox* temperature_;
    QDoubleSpinBox* topK_;
    QDoubleSpinBox* topP_;
    QDoubleSpinBox* minP_;
    QDoubleSpinBox* repeatPenalty_;
    QDoubleSpinBox* frequencyPenalty_;
    QDoubleSpinBox* presencePenalty_;
    QDoubleSpinBox* maxTokens_;
    QSpinBox* seed_;
    QLineEdit* logitBias_;
    QLineEdit* banned_;
    QLineEdit* stops_;
    QSpinBox* minNewTokens_;
    QString grammar_;
    bool onServer_ = false;
    QLabel* grammarName_;
    mutable QString biasProblem_;
    LiveTexts texts_;
};

}  // namespace inferlens::gui

Q_DECLARE_METATYPE(inferlens::SamplingParams)
