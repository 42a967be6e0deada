#pragma once
// Small multiples: every head of one layer side by side, each a thumbnail of its attention. A
// thumbnail is an AttentionStore whose budget holds kThumbnailCells × kThumbnailCells cells: each
// cell is the maximum over a square block of positions, and blocks double as positions outgrow the
// grid, so a decode step only updates the cells its row touches and memory stays fixed per head.

#include <QImage>
#include <QWidget>
#include <vector>

#include "attention_store.h"
#include "colour_map.h"
#include "drawn_text.h"
#include "label_thinning.h"
#include "panel_data.h"

namespace inferlens::widgets {

class AttentionHeadGridWidget : public QWidget {
    Q_OBJECT
  public:
    static constexpr int kThumbnailCells = 64;

    explicit AttentionHeadGridWidget(QWidget* parent = nullptr);

    // Starts over with `headCount` empty thumbnails of `layer`.
    void setLayer(int layer, int headCount);
    // Replaces one head's thumbnail with this matrix (its head index picks the thumbnail; the grid
    // grows to hold it). A matrix of another layer starts the grid over for that layer.
    void setMatrix(const AttentionMatrix& matrix);
    // Pools more rows (a decode step) into one head's thumbnail.
    void appendRows(const AttentionMatrix& rows);
    void clear();

    void setLogScale(bool on);
    bool logScale() const { return logScale_; }
    QColor colourFor(float weight) const { return QColor::fromRgb(rgbFor(weight)); }

    void setSelectedHead(int head);  // does not emit headSelected
    int selectedHead() const { return selected_; }

    int layer() const { return layer_; }
    int headCount() const { return int(heads_.size()); }
    // Positions per thumbnail cell of a head (1 until it holds more than kThumbnailCells tokens).
    int blockSize(int head) const { return heads_[size_t(head)].store.block(); }
    // The pooled (maximum) weight of thumbnail cell (row, column) of a head.
    float pooledWeight(int head, int row, int column) const;

    QRect thumbnailRect(int head) const;
    int headAt(QPoint point) const;

    // The thumbnails' bounds, and every text drawn (title, the heads' captions), in widget
    // coordinates.
    QRect dataArea() const;
    DrawnTexts drawnTexts() const;

    QSize sizeHint() const override { return {420, 420}; }
    QSize minimumSizeHint() const override { return {120, 120}; }

  signals:
    void headSelected(int head);

  protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

  private:
    struct Thumbnail {
        AttentionStore store{int64_t(kThumbnailCells) * kThumbnailCells *
                             AttentionStore::kBytesPerCell};
        QImage image;  // kThumbnailCells², the store's cells from row 0 and column 0
        // Positions covered so far (rows and keys).
        int extent() const {
            return std::max(store.firstQuery() + store.queryCount(), store.keyCount());
        }
    };
    // Pools rows into a thumbnail (set: replacing what it held) and recolours what changed.
    void pool(Thumbnail& thumbnail, const AttentionMatrix& matrix, bool set);
    // Recolours rows [firstRow, endRow) of a thumbnail's cells (all by default).
    void recolour(Thumbnail& thumbnail, int firstRow = 0, int endRow = kThumbnailCells) const;
    QRgb rgbFor(float weight) const;
    void ensureHeads(int count);
    void layOut() const;

    int layer_ = -1;
    std::vector<Thumbnail> heads_;
    int selected_ = -1;
    bool logScale_ = false;
    ColourMap map_;
    mutable std::vector<QRect> rects_;  // thumbnails, valid while layoutValid_
    mutable PlacedTexts texts_;         // every text painted, laid out with the thumbnails
    mutable bool layoutValid_ = false;
};

}  // namespace inferlens::widgets
