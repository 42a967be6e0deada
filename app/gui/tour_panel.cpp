#include "tour_panel.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace inferlens::gui {

TourPanel::TourPanel(QWidget* parent) : QWidget(parent) {
    counter_ = new QLabel;
    title_ = new QLabel;
    QFont bold = title_->font();
    bold.setBold(true);
    bold.setPointSizeF(bold.pointSizeF() * 1.15);
    title_->setFont(bold);
    title_->setWordWrap(true);
    body_ = new QTextBrowser;
    back_ = new QPushButton;
    next_ = new QPushButton;
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(counter_);
    buttons->addStretch();
    buttons->addWidget(back_);
    buttons->addWidget(next_);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(title_);
    layout->addWidget(body_, 1);
    layout->addLayout(buttons);
    connect(back_, &QPushButton::clicked, this, [this] { show(current_ - 1); });
    connect(next_, &QPushButton::clicked, this, [this] { show(current_ + 1); });
    texts_.add([this] {
        back_->setText(tr("Back"));
        next_->setText(tr("Next"));
        refresh();
    });
}

void TourPanel::setSteps(std::vector<TourStep> steps) {
    steps_ = std::move(steps);
    current_ = std::clamp(current_, 0, std::max(int(steps_.size()) - 1, 0));
    refresh();
}

void TourPanel::show(int step) {
    if (step < 0 || step >= int(steps_.size()))
        return;
    current_ = step;
    refresh();
    emit highlightPanel(steps_[size_t(step)].panel);
}

void TourPanel::refresh() {
    const bool any = !steps_.empty();
    counter_->setText(any ? tr("Step %1 of %2").arg(current_ + 1).arg(steps_.size()) : QString());
    title_->setText(any ? steps_[size_t(current_)].title : tr("Open a model to start the tour"));
    body_->setHtml(any ? steps_[size_t(current_)].body : QString());
    back_->setEnabled(any && current_ > 0);
    next_->setEnabled(any && current_ + 1 < int(steps_.size()));
}

void TourPanel::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        texts_.retranslate();  // the steps themselves are rebuilt by the window
    QWidget::changeEvent(event);
}

}  // namespace inferlens::gui
