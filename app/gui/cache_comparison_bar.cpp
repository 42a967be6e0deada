#include "cache_comparison_bar.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

#include "engine_worker.h"

namespace inferlens::gui {

CacheComparisonBar::CacheComparisonBar(EngineWorker* worker, QWidget* parent)
    : QWidget(parent), worker_(worker) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    compare_ = new QPushButton;
    compare_->setObjectName(QStringLiteral("compareCacheButton"));
    result_ = new QLabel;
    result_->setObjectName(QStringLiteral("cacheComparisonLabel"));
    result_->setWordWrap(true);
    result_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(compare_);
    layout->addWidget(result_, 1);
    connect(compare_, &QPushButton::clicked, this, [this] {
        compare_->setEnabled(false);
        result_->setText(tr("Running the sequence again with an exact f32 cache…"));
        QMetaObject::invokeMethod(worker_, "compareWithExactCache", Qt::QueuedConnection);
    });
    connect(worker_, &EngineWorker::cacheCompared, this, &CacheComparisonBar::showResult);
    retranslate();
}

QString CacheComparisonBar::resultText() const {
    return result_->text();
}

void CacheComparisonBar::showResult(const CacheComparisonSummary& summary) {
    compare_->setEnabled(true);
    if (!summary.error.isEmpty()) {
        result_->setText(tr("No comparison: %1").arg(summary.error));
        return;
    }
    result_->setText(
        tr("Step %1, %2 cache against an exact one: KL divergence %3 nats, largest probability "
           "difference %4; most likely next token %5 (exact cache: %6)")
            .arg(summary.step)
            .arg(summary.cache)
            .arg(summary.klDivergence, 0, 'g', 3)
            .arg(summary.largestDifference, 0, 'g', 3)
            .arg(summary.testTop, summary.exactTop));
}

void CacheComparisonBar::retranslate() {
    compare_->setText(tr("Compare with an exact cache"));
    compare_->setToolTip(
        tr("Recomputes the current step with an f32 KV cache that keeps every token and shows "
           "how far this step's distribution is from it"));
}

void CacheComparisonBar::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

}  // namespace inferlens::gui
