#include "attention_kernels_view.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace inferlens::gui {

AttentionKernelsView::AttentionKernelsView(QWidget* parent)
    : QWidget(parent),
      explanation_(new QLabel),
      measureButton_(new QPushButton),
      progress_(new QProgressBar),
      table_(new QTableWidget(0, 5)) {
    explanation_->setWordWrap(true);
    progress_->hide();
    table_->verticalHeader()->hide();
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    auto* controls = new QHBoxLayout;
    controls->addWidget(measureButton_);
    controls->addWidget(progress_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(explanation_);
    layout->addLayout(controls);
    layout->addWidget(table_, 1);
    connect(measureButton_, &QPushButton::clicked, this, &AttentionKernelsView::measureRequested);
    texts_.add([this] {
        measureButton_->setText(tr("Time both kernels at 512, 2,048 and 8,192 tokens"));
        measureButton_->setToolTip(
            tr("One layer's attention over a whole prompt, on random "
               "numbers in the loaded model's layout (Stop cancels)"));
        table_->setHorizontalHeaderLabels({tr("Tokens"), tr("Reference, ms"), tr("Fused, ms"),
                                           tr("Fused is faster by"),
                                           tr("Score matrix not stored")});
    });
    retranslate();
}

void AttentionKernelsView::setModel(const ModelConfig& config) {
    config_ = config;
    timings_.clear();
    retranslate();
}

void AttentionKernelsView::started() {
    timings_.clear();
    fillTable();
    measureButton_->setEnabled(false);
    progress_->setValue(0);
    progress_->show();
}

void AttentionKernelsView::setProgress(int done, int total) {
    progress_->setMaximum(total);
    progress_->setValue(done);
}

void AttentionKernelsView::setTimings(const std::vector<AttentionKernelTiming>& timings) {
    timings_ = timings;
    measureButton_->setEnabled(true);
    progress_->hide();
    fillTable();
}

int AttentionKernelsView::rowCount() const {
    return table_->rowCount();
}

QString AttentionKernelsView::summaryText() const {
    if (timings_.empty())
        return tr("Attention kernels: nothing measured");
    const AttentionKernelTiming& longest = timings_.back();
    return tr("Attention at %1 tokens: reference %2 ms, fused %3 ms (%4× faster), outputs "
              "differ by %5")
        .arg(QLocale().toString(longest.tokens))
        .arg(longest.referenceSeconds * 1e3, 0, 'f', 1)
        .arg(longest.fusedSeconds * 1e3, 0, 'f', 1)
        .arg(longest.speedup(), 0, 'f', 2)
        .arg(longest.difference, 0, 'g', 2);
}

void AttentionKernelsView::fillTable() {
    table_->setRowCount(int(timings_.size()));
    const QLocale locale;
    for (int row = 0; row < int(timings_.size()); ++row) {
        const AttentionKernelTiming& t = timings_[size_t(row)];
        // The score matrix a kernel that materialised it would hold: tokens² floats per head.
        const double matrixMiB = double(t.tokens) * double(t.tokens) * 4.0 / (1024.0 * 1024.0);
        const QStringList cells{
            locale.toString(t.tokens), QString::number(t.referenceSeconds * 1e3, 'f', 1),
            QString::number(t.fusedSeconds * 1e3, 'f', 1), tr("%1×").arg(t.speedup(), 0, 'f', 2),
            tr("%1 MiB per head").arg(matrixMiB, 0, 'f', matrixMiB < 10 ? 1 : 0)};
        for (int column = 0; column < int(cells.size()); ++column) {
            auto* item = new QTableWidgetItem(cells[column]);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (column == 1 || column == 2)
                item->setToolTip(tr("outputs differ by %1 (relative, rounding only)")
                                     .arg(t.difference, 0, 'g', 2));
            table_->setItem(row, column, item);
        }
    }
}

void AttentionKernelsView::retranslate() {
    texts_.retranslate();
    const QString layout =
        config_ ? tr("Measured here for one layer of the loaded model: %1 query heads in %2 "
                     "key/value groups, head size %3.")
                      .arg(config_->headCount)
                      .arg(config_->kvHeadCount)
                      .arg(config_->headDim)
                : QString();
    explanation_->setText(
        tr("Attention compares every token's query with the keys of all tokens before it. The "
           "reference kernel does it row by row: the scores, their softmax (the probabilities the "
           "attention panels draw), then the weighted sum of the values. The fused kernel streams "
           "blocks of keys past blocks of queries and keeps, per query, only a running maximum, "
           "a running sum and a running weighted sum (an online softmax): the tokens × tokens "
           "score matrix never exists, and each block of keys is read once for many queries. The "
           "output is the same up to rounding, so InferLens uses the fused kernel (Device menu) "
           "and computes the probabilities beside it only for the heads a panel shows.") +
        (layout.isEmpty() ? QString() : QStringLiteral(" ") + layout));
    fillTable();
}

}  // namespace inferlens::gui
