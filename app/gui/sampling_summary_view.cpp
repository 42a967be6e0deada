#include "sampling_summary_view.h"

#include <QEvent>
#include <QGridLayout>
#include <QLabel>
#include <QProgressBar>
#include <QVBoxLayout>

#include "display_text.h"

namespace inferlens::gui {

namespace {

// The bars count in tenths of a percent, so that a 0.4 % candidate still shows a sliver.
constexpr int kBarScale = 1000;

QString percent(double probability) {
    return QStringLiteral("%1 %").arg(probability * 100, 0, 'f', probability < 0.1 ? 1 : 0);
}

}  // namespace

SamplingSummaryView::SamplingSummaryView(QWidget* parent) : QWidget(parent) {
    heading_ = new QLabel;
    heading_->setWordWrap(true);
    auto* rows = new QGridLayout;
    rows->setColumnStretch(1, 1);
    for (int row = 0; row < kRows; ++row) {
        tokens_[size_t(row)] = new QLabel;
        tokens_[size_t(row)]->setTextFormat(Qt::PlainText);
        bars_[size_t(row)] = new QProgressBar;
        bars_[size_t(row)]->setRange(0, kBarScale);
        bars_[size_t(row)]->setTextVisible(true);
        chosenMarks_[size_t(row)] = new QLabel;
        rows->addWidget(tokens_[size_t(row)], row, 0);
        rows->addWidget(bars_[size_t(row)], row, 1);
        rows->addWidget(chosenMarks_[size_t(row)], row, 2);
    }
    settings_ = new QLabel;
    settings_->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(heading_);
    layout->addLayout(rows);
    layout->addWidget(settings_);
    layout->addStretch(1);
    texts_.add([this] { refresh(); });
}

void SamplingSummaryView::setStep(const widgets::SamplingStep& step) {
    step_ = step;
    hasStep_ = true;
    refresh();
}

void SamplingSummaryView::setParams(const SamplingParams& params) {
    params_ = params;
    refresh();
}

void SamplingSummaryView::clear() {
    step_ = {};
    hasStep_ = false;
    refresh();
}

void SamplingSummaryView::refresh() {
    const int shown = std::min<int>(kRows, int(step_.candidates.size()));
    heading_->setText(!hasStep_
                          ? tr("The next token's candidates appear here as the model answers.")
                      : step_.fromServer
                          ? tr("Step %1 · the five likeliest tokens, with the model's probability "
                               "as the server reports it")
                                .arg(step_.step)
                          : tr("Step %1 · the five likeliest tokens, with the probability each was "
                               "drawn with")
                                .arg(step_.step));
    for (int row = 0; row < kRows; ++row) {
        const bool filled = row < shown;
        QLabel* token = tokens_[size_t(row)];
        QProgressBar* bar = bars_[size_t(row)];
        QLabel* mark = chosenMarks_[size_t(row)];
        token->setVisible(filled);
        bar->setVisible(filled);
        mark->setVisible(filled);
        if (!filled)
            continue;
        const widgets::SamplingCandidate& candidate = step_.candidates[size_t(row)];
        // A server tells the model's own probabilities only (before its sampling).
        const double probability =
            candidate.probability[step_.fromServer ? widgets::kStageRaw : widgets::kStageFinal];
        const bool chosen = row == step_.chosenIndex;
        token->setText(widgets::visibleWhitespace(candidate.label));
        QFont font = token->font();
        font.setBold(chosen);
        token->setFont(font);
        bar->setValue(int(probability * kBarScale + 0.5));
        bar->setFormat(percent(probability));
        mark->setText(chosen ? tr("◀ chosen") : QString());
    }
    const QString greedy = params_.temperature <= 0 ? tr(" (greedy)") : QString();
    settings_->setText(tr("Temperature %1%2 · top-p %3 · top-k %4")
                           .arg(double(params_.temperature), 0, 'f', 2)
                           .arg(greedy)
                           .arg(double(params_.topP), 0, 'f', 2)
                           .arg(params_.topK == 0 ? tr("off") : QString::number(params_.topK)));
}

QString SamplingSummaryView::rowToken(int row) const {
    return row >= 0 && row < kRows && tokens_[size_t(row)]->isVisibleTo(this)
               ? tokens_[size_t(row)]->text()
               : QString();
}

QString SamplingSummaryView::rowProbability(int row) const {
    return row >= 0 && row < kRows && bars_[size_t(row)]->isVisibleTo(this)
               ? bars_[size_t(row)]->text()
               : QString();
}

bool SamplingSummaryView::rowIsChosen(int row) const {
    return row >= 0 && row < kRows && !chosenMarks_[size_t(row)]->text().isEmpty();
}

QString SamplingSummaryView::settingsText() const {
    return settings_->text();
}

void SamplingSummaryView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        texts_.retranslate();
    QWidget::changeEvent(event);
}

}  // namespace inferlens::gui
