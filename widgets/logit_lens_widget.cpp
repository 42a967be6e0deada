#include "logit_lens_widget.h"

#include <QEvent>
#include <QHeaderView>
#include <cmath>

#include "display_text.h"

namespace inferlens::widgets {

LogitLensWidget::LogitLensWidget(QWidget* parent) : QTableWidget(parent) {
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionMode(QAbstractItemView::NoSelection);
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    rebuild();
}

void LogitLensWidget::setSnapshot(const LensSnapshot& snapshot) {
    snapshot_ = snapshot;
    rebuild();
}

void LogitLensWidget::clear() {
    snapshot_ = {};
    rebuild();
}

void LogitLensWidget::rebuild() {
    size_t ranks = 0;
    for (const LensLayer& layer : snapshot_.layers) {
        ranks = std::max(ranks, layer.top.size());
    }
    setRowCount(int(snapshot_.layers.size()));
    setColumnCount(kRankColumn + int(ranks));
    QStringList headers{tr("‖h‖"), tr("entropy")};
    for (size_t rank = 0; rank < ranks; ++rank) {
        headers << tr("#%1").arg(rank + 1);
    }
    setHorizontalHeaderLabels(headers);
    QStringList layers;
    for (int row = 0; row < rowCount(); ++row) {
        const LensLayer& layer = snapshot_.layers[size_t(row)];
        layers << tr("layer %1").arg(layer.layer);
        setItem(row, 0, new QTableWidgetItem(QString::number(layer.residualNorm, 'f', 1)));
        setItem(row, 1,
                new QTableWidgetItem(std::isfinite(layer.attentionEntropy)
                                         ? QString::number(layer.attentionEntropy, 'f', 2)
                                         : QStringLiteral("–")));
        for (size_t rank = 0; rank < ranks; ++rank) {
            auto* item = new QTableWidgetItem;
            if (rank < layer.top.size()) {
                const LensCandidate& candidate = layer.top[rank];
                item->setText(QStringLiteral("%1  %2%")
                                  .arg(visibleWhitespace(candidate.label))
                                  .arg(100.0 * candidate.probability, 0, 'f', 1));
                const QColor shade = colourFor(candidate.probability);
                item->setBackground(shade);
                // Text stays readable on the dark and the light end of the scale.
                item->setForeground(shade.lightnessF() < 0.5 ? Qt::white : Qt::black);
            }
            setItem(row, kRankColumn + int(rank), item);
        }
    }
    setVerticalHeaderLabels(layers);
    resizeColumnsToContents();
}

void LogitLensWidget::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) {
        rebuild();
    }
    QTableWidget::changeEvent(event);
}

}  // namespace inferlens::widgets
