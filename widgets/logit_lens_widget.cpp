#include "logit_lens_widget.h"

#include <QEvent>
#include <QHeaderView>
#include <cmath>

#include "display_text.h"
#include "label_thinning.h"

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

QRect LogitLensWidget::dataArea() const {
    return QRect(viewport()->mapTo(this, QPoint(0, 0)), viewport()->size());
}

DrawnTexts LogitLensWidget::drawnTexts() const {
    DrawnTexts texts;
    const auto add = [&](const QWidget& view, const QRect& cell, const QString& text,
                         DrawnText::Kind kind) {
        const QRectF shown = shownIn(*this, view, cell);
        if (!text.isEmpty() && !shown.isEmpty()) {
            texts.push_back({text, shown, kind});
        }
    };
    const QHeaderView* columns = horizontalHeader();
    const QHeaderView* rows = verticalHeader();
    for (int column = 0; column < columnCount() && !columns->isHidden(); ++column) {
        const QRect section(columns->sectionViewportPosition(column), 0,
                            columns->sectionSize(column), columns->height());
        add(*columns->viewport(), section, horizontalHeaderItem(column)->text(),
            DrawnText::Kind::AxisLabel);
    }
    for (int row = 0; row < rowCount(); ++row) {
        const QRect section(0, rows->sectionViewportPosition(row), rows->width(),
                            rows->sectionSize(row));
        if (!rows->isHidden()) {
            add(*rows->viewport(), section, verticalHeaderItem(row)->text(),
                DrawnText::Kind::TickLabel);
        }
        for (int column = 0; column < columnCount(); ++column) {
            if (const QTableWidgetItem* cell = item(row, column)) {
                add(*viewport(), visualItemRect(cell), cell->text(), DrawnText::Kind::Annotation);
            }
        }
    }
    return texts;
}

void LogitLensWidget::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) {
        rebuild();
    }
    QTableWidget::changeEvent(event);
}

}  // namespace inferlens::widgets
