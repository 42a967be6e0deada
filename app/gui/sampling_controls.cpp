#include "sampling_controls.h"

#include <QDoubleSpinBox>
#include <QEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <cmath>

#include "core/error.h"
#include "grammar/grammar.h"
#include "grammar/json_schema.h"

namespace inferlens::gui {

SamplingControls::SamplingControls(QWidget* parent) : QWidget(parent) {
    auto* form = new QFormLayout(this);
    const SamplingParams defaults;
    // Decoding: sampling (one beam) or beam search, which the sampler's settings do not touch.
    beams_ = new QSpinBox;
    beams_->setRange(1, 16);
    lengthPenalty_ = new QDoubleSpinBox;
    lengthPenalty_->setRange(0, 4);
    lengthPenalty_->setSingleStep(0.1);
    lengthPenalty_->setDecimals(1);
    lengthPenalty_->setValue(1.0);
    auto* beamsLabel = new QLabel;
    auto* lengthLabel = new QLabel;
    form->addRow(beamsLabel, beams_);
    form->addRow(lengthLabel, lengthPenalty_);
    texts_.add([=, this] {
        beamsLabel->setText(tr("Beams"));
        beams_->setToolTip(
            tr("1: sample with the settings below. 2 or more: beam search keeps "
               "that many continuations and answers with the most probable; the "
               "sampling settings do not apply, and the Beam tree panel shows it"));
        lengthLabel->setText(tr("Length penalty"));
        lengthPenalty_->setToolTip(
            tr("Beam search scores a hypothesis by its log-probability "
               "divided by its length to this power: above 0 favours "
               "longer answers"));
    });
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

    // The logit processors.
    logitBias_ = new QLineEdit;
    banned_ = new QLineEdit;
    stops_ = new QLineEdit;
    minNewTokens_ = new QSpinBox;
    minNewTokens_->setRange(0, 4096);
    auto* biasLabel = new QLabel;
    auto* bannedLabel = new QLabel;
    auto* stopLabel = new QLabel;
    auto* minLabel = new QLabel;
    form->addRow(biasLabel, logitBias_);
    form->addRow(bannedLabel, banned_);
    form->addRow(minLabel, minNewTokens_);
    form->addRow(stopLabel, stops_);
    auto* grammarLabel = new QLabel;
    auto* grammarRow = new QWidget;
    auto* grammarLayout = new QHBoxLayout(grammarRow);
    grammarLayout->setContentsMargins(0, 0, 0, 0);
    grammarName_ = new QLabel;
    auto* loadGrammar = new QPushButton;
    auto* clearGrammar = new QPushButton;
    grammarLayout->addWidget(grammarName_, 1);
    grammarLayout->addWidget(loadGrammar);
    grammarLayout->addWidget(clearGrammar);
    form->addRow(grammarLabel, grammarRow);
    connect(loadGrammar, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Load a grammar"), QString(),
            tr("Grammars and JSON schemas (*.gbnf *.txt *.json);;All files (*)"));
        QString error;
        if (!path.isEmpty() && !loadGrammarFile(path, &error))
            QMessageBox::warning(this, tr("Grammar"), error);
    });
    connect(clearGrammar, &QPushButton::clicked, this, [this] { setGrammar({}, {}); });
    texts_.add([=, this] {
        biasLabel->setText(tr("Logit bias"));
        logitBias_->setPlaceholderText(tr("ID=value, … (-inf bans, +inf forces)"));
        bannedLabel->setText(tr("Banned text"));
        banned_->setPlaceholderText(tr("never generated; separate with |"));
        minLabel->setText(tr("Min new tokens"));
        minNewTokens_->setToolTip(tr("The answer cannot end before this many tokens"));
        stopLabel->setText(tr("Stop at"));
        stops_->setPlaceholderText(tr("ends the answer, not shown; separate with |"));
        grammarLabel->setText(tr("Grammar"));
        loadGrammar->setText(tr("Load…"));
        clearGrammar->setText(tr("Clear"));
        grammarName_->setText(grammar_.isEmpty() ? tr("none") : grammarName_->toolTip());
    });
    for (QLineEdit* field : {logitBias_, banned_})
        connect(field, &QLineEdit::editingFinished, this, [this] { emit paramsChanged(params()); });
    connect(minNewTokens_, &QSpinBox::valueChanged, this, [this] { emit paramsChanged(params()); });

    // What beam search ignores is greyed out while it is chosen.
    for (QWidget* field : std::initializer_list<QWidget*>{
             temperature_->parentWidget(), topK_->parentWidget(), topP_->parentWidget(),
             minP_->parentWidget(), repeatPenalty_->parentWidget(),
             frequencyPenalty_->parentWidget(), presencePenalty_->parentWidget(), seed_, logitBias_,
             banned_, minNewTokens_, stops_, grammarRow})
        samplerOnly_.push_back(field);
    connect(beams_, &QSpinBox::valueChanged, this, [this] { updateDecodingMode(); });
    texts_.add([this] { showServerReasons(); });  // after the tooltips above
    updateDecodingMode();
}

void SamplingControls::updateDecodingMode() {
    const bool sampling = beams_->value() == 1;
    for (QWidget* field : samplerOnly_)
        field->setEnabled(sampling);
    lengthPenalty_->setEnabled(!sampling && !onServer_);
    beams_->setEnabled(!onServer_);
    banned_->setEnabled(sampling && !onServer_);
    minNewTokens_->setEnabled(sampling && !onServer_);
}

void SamplingControls::setOnServer(bool onServer) {
    onServer_ = onServer;
    if (onServer)
        beams_->setValue(1);
    texts_.retranslate();  // the local tooltips, then (on a server) the reasons over them
    updateDecodingMode();
}

void SamplingControls::showServerReasons() {
    if (!onServer_)
        return;
    beams_->setToolTip(
        tr("Not available for a model on a server: beam search needs every "
           "hypothesis's scores at each step, which the API does not return"));
    const QString apiCannot =
        tr("Not available for a model on a server: the API does not carry it");
    banned_->setToolTip(apiCannot);
    minNewTokens_->setToolTip(apiCannot);
}

int SamplingControls::beamWidth() const {
    return beams_->value();
}

double SamplingControls::lengthPenalty() const {
    return lengthPenalty_->value();
}

void SamplingControls::setBeamWidth(int width) {
    beams_->setValue(width);
}

namespace {

// Entries of a "|"-separated field, empty ones left out (spaces inside an entry count).
std::vector<std::string> entries(const QString& text) {
    std::vector<std::string> out;
    for (const QString& entry : text.split(QLatin1Char('|'), Qt::SkipEmptyParts))
        out.push_back(entry.toStdString());
    return out;
}

}  // namespace

std::vector<std::string> SamplingControls::stopStrings() const {
    return entries(stops_->text());
}

void SamplingControls::setLogitBiasText(const QString& text) {
    logitBias_->setText(text);
    emit paramsChanged(params());
}

void SamplingControls::setBannedText(const QString& text) {
    banned_->setText(text);
    emit paramsChanged(params());
}

void SamplingControls::setStopText(const QString& text) {
    stops_->setText(text);
}

bool SamplingControls::loadGrammarFile(const QString& path, QString* error) {
    QFile file(path);
    try {
        if (!file.open(QIODevice::ReadOnly))
            throw Error(path.toStdString() + ": cannot read the file");
        // A .json file is a JSON schema, turned into its grammar.
        const QByteArray text = file.readAll();
        setGrammar(path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive)
                       ? QString::fromStdString(grammarFromJsonSchema(text.toStdString()))
                       : QString::fromUtf8(text),
                   QFileInfo(path).fileName());
        return true;
    } catch (const Error& e) {
        *error = QString::fromUtf8(e.what());
        return false;
    }
}

void SamplingControls::setGrammar(const QString& text, const QString& name) {
    if (!text.isEmpty())
        compileGrammar(text.toStdString());  // throws, keeping the grammar before
    grammar_ = text;
    grammarName_->setToolTip(name);
    grammarName_->setText(text.isEmpty() ? tr("none") : name);
    emit paramsChanged(params());
}

void SamplingControls::setMinNewTokens(int tokens) {
    minNewTokens_->setValue(tokens);
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
    // An entry that does not parse is left out, and the field says why.
    biasProblem_.clear();
    for (const QString& entry : logitBias_->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        try {
            p.logitBias.push_back(parseLogitBias(entry.trimmed().toStdString()));
        } catch (const Error& error) {
            biasProblem_ = QString::fromUtf8(error.what());
        }
    }
    logitBias_->setStyleSheet(biasProblem_.isEmpty() ? QString()
                                                     : QStringLiteral("color: #c0392b;"));
    logitBias_->setToolTip(biasProblem_);
    p.bannedTexts = entries(banned_->text());
    p.minNewTokens = int32_t(minNewTokens_->value());
    p.grammar = grammar_.toStdString();
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
