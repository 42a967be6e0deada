#pragma once
// One head's attention as a query × key heat map. The weights live in an AttentionStore, which
// keeps them within a memory budget by pooling block × block positions into one cell once the
// matrix outgrows it (the title then says so). Cells are coloured into a QImage of the store's
// capacity, one pixel each, and drawn scaled with nearest-neighbour sampling: a decode step colours
// one row and the paint is one image blit, whatever the number of tokens.

#include <QImage>
#include <QStringList>
#include <QWidget>
#include <optional>
#include <utility>
#include <vector>

#include "attention_store.h"
#include "colour_map.h"
#include "drawn_text.h"
#include "label_thinning.h"
#include "panel_data.h"

namespace inferlens::widgets {

class AttentionHeatmapWidget : public QWidget {
    Q_OBJECT
  public:
    // The smallest weight the log scale tells apart from zero (1/10,000 of a query's attention).
    static constexpr float kLogFloor = 1e-4f;

    explicit AttentionHeatmapWidget(QWidget* parent = nullptr);

    // Replaces what is shown: rows matrix.firstQuery onwards.
    void setMatrix(AttentionMatrix matrix);
    // Adds or overwrites rows firstQuery .. firstQuery + queryCount − 1 (a decode step: one row),
    // colouring only those rows. Rows of another layer or head replace the matrix instead.
    void appendRows(const AttentionMatrix& rows);
    void clear();

    // Token text by position, for the axes and the tooltip (whitespace is made visible here).
    void setTokenLabels(const QStringList& labels);
    // One more label (the token a decode step produced), without re-measuring the others.
    void appendTokenLabel(const QString& label);

    // Marks one position's query row and key column (e.g. the token clicked in the strip); -1
    // clears. Kept across new matrices, so the mark follows the position while tokens arrive.
    void setSelectedPosition(int position);
    int selectedPosition() const { return selectedPosition_; }

    // Log colour mapping spreads small weights apart, so that attention sinks (one key taking most
    // of every row) do not leave the rest of the map uniformly dark.
    void setLogScale(bool on);
    bool logScale() const { return logScale_; }

    // The colour of a weight on the current scale (exactly what its cells are painted with).
    QColor colourFor(float weight) const { return QColor::fromRgb(rgbFor(weight)); }
    // Cells of future keys (key > query), which the causal mask hides.
    static QColor maskedColour() { return QColor(0x9A, 0x9A, 0x9A); }
    // Cells of keys a sliding KV cache had evicted (AttentionMatrix::kEvicted).
    static QColor evictedColour() { return QColor(0xC8, 0x8C, 0x8C); }
    // Cells of keys before a local layer's own window (AttentionMatrix::kOutsideWindow).
    static QColor outsideWindowColour() { return QColor(0x8C, 0xA8, 0xC8); }

    // Most bytes the weights and their image may take (AttentionStore); a smaller budget pools
    // what is shown further at once.
    void setMemoryBudget(int64_t bytes);
    int64_t memoryBudget() const { return store_.budgetBytes(); }
    int64_t memoryBytes() const { return store_.bytes(); }
    // Positions per cell side: 1 while the matrix fits the budget at full resolution.
    int block() const { return store_.block(); }

    int layer() const { return store_.layer(); }
    int head() const { return store_.head(); }
    int firstQuery() const { return store_.firstQuery(); }
    int queryCount() const { return store_.queryCount(); }
    int keyCount() const { return store_.keyCount(); }
    // The weight of (query position, key position): exact at block 1, else the maximum of its
    // cell; 0 where nothing was given.
    float weight(int query, int key) const { return store_.weight(query, key); }

    // (query position, key position) of the cell under a point, if any; the rectangle of a cell.
    std::optional<std::pair<int, int>> cellAt(QPoint point) const;
    QRect cellRect(int query, int key) const;
    QString toolTipAt(QPoint point) const;
    // What the title adds once the matrix is pooled to fit the memory budget (empty before).
    QString poolingNote() const;

    // Where the cells are drawn, and every text drawn (title, token labels, colour bar labels), in
    // widget coordinates: what the layout tests measure.
    QRect dataArea() const { return geometry().plot; }
    DrawnTexts drawnTexts() const { return drawnTextsOf(geometry().texts); }
    // The colour bar with its tick marks (its labels are among drawnTexts()).
    QRect colourBarArea() const { return geometry().legend.adjusted(0, 0, 5, 0); }

    QSize sizeHint() const override { return {480, 480}; }
    QSize minimumSizeHint() const override { return {160, 160}; }

  signals:
    void cellClicked(int query, int key);

  protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

  private:
    struct Geometry {
        QRect plot;       // the cells
        double cell = 0;  // pixels per cell (whole when cells are at least a pixel)
        int labelWidth = 0;
        QRect legend;       // the colour bar
        PlacedTexts texts;  // every text painted, laid out with the rest
    };
    const Geometry& geometry() const;
    void invalidateGeometry() { geometryValid_ = false; }

    QRgb rgbFor(float weight) const;
    // Brings the image up to date with a change of the store.
    void show(const AttentionStore::Change& change);
    void colourRow(int cellRow);
    void recolourAll();
    // Rows of cells in use (queries are pooled block by block like keys).
    int cellRowCount() const { return store_.endCellRow() - store_.firstCellRow(); }
    QString labelFor(int position) const;
    QString titleText() const;
    // The token labels: the selected position's first, then every k-th that has room.
    void layOutAxisLabels(Geometry& g) const;
    void paintSelection(QPainter& painter, const Geometry& g) const;

    AttentionStore store_;
    QImage image_;  // the store's capacity; [cellColumns, cell rows] in use
    QStringList labels_;
    int labelTextWidth_ = 0;  // widest label in pixels
    bool logScale_ = false;
    int selectedPosition_ = -1;
    ColourMap map_;
    mutable Geometry geometry_;
    mutable bool geometryValid_ = false;
};

}  // namespace inferlens::widgets
