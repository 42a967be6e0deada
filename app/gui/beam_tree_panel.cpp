#include "beam_tree_panel.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>

#include "beam_tree_widget.h"

namespace inferlens::gui {

BeamTreePanel::BeamTreePanel(QWidget* parent)
    : QWidget(parent),
      summary_(new QLabel),
      pruned_(new QSpinBox),
      scroll_(new QScrollArea),
      tree_(new widgets::BeamTreeWidget) {
    summary_->setWordWrap(true);
    summary_->setTextFormat(Qt::RichText);
    pruned_->setRange(0, 32);
    pruned_->setValue(QSettings().value("beams/prunedPerBeam", 2).toInt());
    tree_->setPrunedPerParent(pruned_->value());
    scroll_->setWidget(tree_);
    scroll_->setBackgroundRole(QPalette::Base);
    auto* prunedLabel = new QLabel;
    auto* controls = new QHBoxLayout;
    controls->addWidget(prunedLabel);
    controls->addWidget(pruned_);
    controls->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(summary_);
    layout->addLayout(controls);
    layout->addWidget(scroll_, 1);
    connect(pruned_, &QSpinBox::valueChanged, this, [this](int count) {
        tree_->setPrunedPerParent(count);
        QSettings().setValue("beams/prunedPerBeam", count);
    });
    texts_.add([this, prunedLabel] {
        prunedLabel->setText(tr("Pruned candidates shown per beam"));
        pruned_->setToolTip(
            tr("Each beam offers twice the width in candidates at every step; "
               "the most probable of those pruned are drawn, dimmed"));
        refresh();
    });
}

void BeamTreePanel::begin(int width) {
    width_ = width;
    result_.reset();
    tree_->clear();
    refresh();
}

void BeamTreePanel::appendStep(const std::vector<widgets::BeamTreeNode>& nodes) {
    tree_->appendStep(nodes);
    // Follow the growing edge of the tree.
    scroll_->horizontalScrollBar()->setValue(scroll_->horizontalScrollBar()->maximum());
    refresh();
}

void BeamTreePanel::finish(const BeamSearchSummary& summary) {
    result_ = summary;
    tree_->setWinner(summary.winner);
    if (const std::optional<QRectF> winner = tree_->nodeRect(summary.winner))
        scroll_->ensureVisible(int(winner->center().x()), int(winner->center().y()), 60, 60);
    refresh();
}

QString BeamTreePanel::summaryText() const {
    if (width_ == 0)
        return tr(
            "Set Beams above 1 in the sampling parameters to answer by beam search: its "
            "tree grows here, step by step.");
    if (!result_)
        return tr("Beam search with %1 beams: step %2").arg(width_).arg(tree_->steps());
    QString text = tr("Beam search with %1 beams: %n step(s), at most %2 KV caches at once",
                      nullptr, int(result_->steps))
                       .arg(width_)
                       .arg(result_->cachesUsed);
    if (result_->stopped)
        text += tr(" (stopped)");
    QStringList lines;
    for (qsizetype i = 0; i < result_->hypotheses.size(); ++i) {
        const BeamSearchSummary::Hypothesis& h = result_->hypotheses[i];
        const QString line = tr("%1. “%2” — log p %3, score %4%5")
                                 .arg(i + 1)
                                 .arg(h.text.simplified().toHtmlEscaped())
                                 .arg(h.logProbability, 0, 'f', 2)
                                 .arg(h.score, 0, 'f', 3)
                                 .arg(h.finished ? QString() : tr(", unfinished"));
        lines << (i == 0 ? QStringLiteral("<b>%1</b>").arg(line) : line);
    }
    return text.toHtmlEscaped() + QStringLiteral("<br>") + lines.join(QStringLiteral("<br>"));
}

void BeamTreePanel::refresh() {
    summary_->setText(summaryText());
}

void BeamTreePanel::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        texts_.retranslate();
    QWidget::changeEvent(event);
}

}  // namespace inferlens::gui
