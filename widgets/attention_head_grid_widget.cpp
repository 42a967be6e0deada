#include "attention_head_grid_widget.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>

#include "attention_heatmap_widget.h"
#include "panel_hints.h"

namespace inferlens::widgets {

namespace {

constexpr int kMargin = 6;
constexpr int kGap = 6;
constexpr int kCells = AttentionHeadGridWidget::kThumbnailCells;

}  // namespace

AttentionHeadGridWidget::AttentionHeadGridWidget(QWidget* parent)
    : QWidget(parent), map_(ColourMap::Palette::Viridis) {
    setMouseTracking(true);
}

QRgb AttentionHeadGridWidget::rgbFor(float weight) const {
    if (!logScale_) {
        return map_.rgbAt(weight);
    }
    // The same scale as the heat map, so a head looks the same in both.
    const double floorLog = std::log10(double(AttentionHeatmapWidget::kLogFloor));
    const double w = std::max(double(weight), double(AttentionHeatmapWidget::kLogFloor));
    return map_.rgbAt((std::log10(w) - floorLog) / -floorLog);
}

void AttentionHeadGridWidget::ensureHeads(int count) {
    if (count > headCount()) {
        heads_.resize(size_t(count));
        layoutValid_ = false;
    }
}

void AttentionHeadGridWidget::setLayer(int layer, int headCount) {
    layer_ = layer;
    heads_.clear();
    ensureHeads(std::max(headCount, 0));
    if (selected_ >= this->headCount()) {
        selected_ = -1;
    }
    layoutValid_ = false;
    update();
}

void AttentionHeadGridWidget::clear() {
    setLayer(-1, 0);
}

void AttentionHeadGridWidget::pool(Thumbnail& t, const AttentionMatrix& m, bool set) {
    const AttentionStore::Change change = set ? t.store.set(m) : t.store.append(m);
    // A decode row changes one row of cells; only a merge moves them all.
    if (change.relaid || t.image.isNull())
        recolour(t);
    else
        recolour(t, change.firstRow, change.endRow);
}

void AttentionHeadGridWidget::recolour(Thumbnail& t, int firstRow, int endRow) const {
    if (t.image.isNull()) {
        t.image = QImage(kCells, kCells, QImage::Format_RGB32);
    }
    const QRgb masked = AttentionHeatmapWidget::maskedColour().rgb();
    for (int row = firstRow; row < std::min(endRow, kCells); ++row) {
        auto* line = reinterpret_cast<QRgb*>(t.image.scanLine(row));
        for (int column = 0; column < kCells; ++column) {
            const float value = t.store.cell(row, column);
            line[column] =
                AttentionStore::masked(row, column) || std::isnan(value) ? masked : rgbFor(value);
        }
    }
}

void AttentionHeadGridWidget::setMatrix(const AttentionMatrix& matrix) {
    if (matrix.head < 0) {
        return;
    }
    if (matrix.layer != layer_) {
        setLayer(matrix.layer, headCount());
    }
    ensureHeads(matrix.head + 1);
    pool(heads_[size_t(matrix.head)], matrix, true);
    update(thumbnailRect(matrix.head).adjusted(-3, -3, 3, 3));
}

void AttentionHeadGridWidget::appendRows(const AttentionMatrix& rows) {
    if (rows.head < 0) {
        return;
    }
    if (rows.layer != layer_) {
        setMatrix(rows);
        return;
    }
    ensureHeads(rows.head + 1);
    pool(heads_[size_t(rows.head)], rows, false);
    update(thumbnailRect(rows.head).adjusted(-3, -3, 3, 3));
}

float AttentionHeadGridWidget::pooledWeight(int head, int row, int column) const {
    if (head < 0 || head >= headCount()) {
        return 0;
    }
    const float value = heads_[size_t(head)].store.cell(row, column);
    return std::isnan(value) ? 0.0f : value;
}

void AttentionHeadGridWidget::setLogScale(bool on) {
    if (on == logScale_) {
        return;
    }
    logScale_ = on;
    for (Thumbnail& t : heads_) {
        recolour(t);
    }
    update();
}

void AttentionHeadGridWidget::setSelectedHead(int head) {
    if (head < 0 || head >= headCount()) {
        head = -1;
    }
    if (head != selected_) {
        selected_ = head;
        update();
    }
}

void AttentionHeadGridWidget::layOut() const {
    if (layoutValid_) {
        return;
    }
    layoutValid_ = true;
    rects_.clear();
    texts_.clear();
    const int n = headCount();
    if (n == 0) {
        texts_.push_back(placePlaceholder(*this, tr("No attention heads yet")));
        return;
    }
    const QFontMetrics metrics = fontMetrics();
    const int label = metrics.height();
    const QRect area = rect().adjusted(kMargin, kMargin + label + 4, -kMargin, -kMargin);
    // The column count that gives the largest square thumbnails in this area.
    int bestColumns = 1, bestSide = 0;
    for (int columns = 1; columns <= n; ++columns) {
        const int rows = (n + columns - 1) / columns;
        const int side = std::min((area.width() - (columns - 1) * kGap) / columns,
                                  (area.height() - rows * (label + kGap)) / rows);
        if (side > bestSide) {
            bestSide = side;
            bestColumns = columns;
        }
    }
    bestSide = std::max(bestSide, 4);
    for (int head = 0; head < n; ++head) {
        const int row = head / bestColumns, column = head % bestColumns;
        rects_.emplace_back(area.left() + column * (bestSide + kGap),
                            area.top() + row * (bestSide + label + kGap), bestSide, bestSide);
    }
    texts_.push_back(placeText(metrics,
                               metrics.elidedText(tr("Layer %1 · %2 heads").arg(layer_).arg(n),
                                                  Qt::ElideRight, width() - 2 * kMargin),
                               kMargin, kMargin + label / 2, Qt::AlignLeft,
                               DrawnText::Kind::Title));
    // A caption under each thumbnail, no wider than the thumbnail and its gap: "head 12" when it
    // fits, else the number alone.
    const int captionWidth = bestSide + kGap - 2;
    for (int head = 0; head < n; ++head) {
        const QRect& r = rects_[size_t(head)];
        QString caption = tr("head %1").arg(head);
        if (metrics.horizontalAdvance(caption) > captionWidth) {
            caption = metrics.elidedText(QString::number(head), Qt::ElideRight, captionWidth);
        }
        placeIfFree(texts_,
                    placeText(metrics, caption, r.center().x() + 1, r.bottom() + 1 + label / 2,
                              Qt::AlignHCenter, DrawnText::Kind::TickLabel),
                    rect());
    }
}

QRect AttentionHeadGridWidget::dataArea() const {
    layOut();
    QRect bounds;
    for (const QRect& r : rects_) {
        bounds |= r;
    }
    return bounds;
}

DrawnTexts AttentionHeadGridWidget::drawnTexts() const {
    layOut();
    return drawnTextsOf(texts_);
}

QRect AttentionHeadGridWidget::thumbnailRect(int head) const {
    layOut();
    return head >= 0 && head < int(rects_.size()) ? rects_[size_t(head)] : QRect();
}

int AttentionHeadGridWidget::headAt(QPoint point) const {
    layOut();
    for (size_t head = 0; head < rects_.size(); ++head) {
        if (rects_[head].contains(point)) {
            return int(head);
        }
    }
    return -1;
}

bool AttentionHeadGridWidget::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        const int head = headAt(static_cast<QHelpEvent*>(event)->pos());
        if (head < 0)
            return answerToolTip(this, event, QString(), QRect());
        const Thumbnail& t = heads_[size_t(head)];
        return answerToolTip(
            this, event,
            tr("Layer %1, head %2: %3 tokens, %4 per cell (maximum)\n"
               "Click to show this head in the heat map")
                .arg(layer_)
                .arg(head)
                .arg(t.extent())
                .arg(t.store.block() == 1 ? tr("1 token")
                                          : tr("%1 × %1 tokens").arg(t.store.block())),
            thumbnailRect(head));
    }
    return QWidget::event(event);
}

void AttentionHeadGridWidget::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().window());
    if (heads_.empty()) {
        layOut();
        painter.setPen(palette().color(QPalette::PlaceholderText));
        paintTexts(painter, texts_);
        return;
    }
    layOut();
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    for (int head = 0; head < headCount(); ++head) {
        const QRect r = rects_[size_t(head)];
        const Thumbnail& t = heads_[size_t(head)];
        if (t.extent() > 0 && !t.image.isNull()) {
            const int used = (t.extent() + t.store.block() - 1) / t.store.block();
            painter.drawImage(QRectF(r), t.image, QRectF(0, 0, used, used));
        } else {
            painter.fillRect(r, palette().base());
        }
        const bool selected = head == selected_;
        painter.setPen(selected ? QPen(palette().color(QPalette::Highlight), 3)
                                : QPen(palette().color(QPalette::Mid), 1));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(r.adjusted(0, 0, -1, -1));
    }
    painter.setPen(palette().color(QPalette::WindowText));
    paintTexts(painter, texts_);
}

void AttentionHeadGridWidget::mousePressEvent(QMouseEvent* event) {
    const int head = headAt(event->position().toPoint());
    if (event->button() == Qt::LeftButton && head >= 0) {
        setSelectedHead(head);
        emit headSelected(head);
        return;
    }
    QWidget::mousePressEvent(event);
}

void AttentionHeadGridWidget::resizeEvent(QResizeEvent* event) {
    layoutValid_ = false;
    QWidget::resizeEvent(event);
}

void AttentionHeadGridWidget::changeEvent(QEvent* event) {
    // The texts are laid out with the rest: in another font or language they are laid out again.
    if (event->type() == QEvent::FontChange || event->type() == QEvent::LanguageChange) {
        layoutValid_ = false;
        update();
    }
    QWidget::changeEvent(event);
}

}  // namespace inferlens::widgets
