#pragma once
// One head's attention as a query × key heat map. The weights are coloured into a QImage with one
// pixel per cell, kept at a capacity that doubles as the matrix grows, and drawn scaled with
// nearest-neighbour sampling: a decode step colours one new row and the paint is one image blit,
// whatever the number of tokens.

#include <QImage>
#include <QStringList>
#include <QWidget>
#include <optional>
#include <utility>
#include <vector>

#include "colour_map.h"
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

    int layer() const { return layer_; }
    int head() const { return head_; }
    int firstQuery() const { return firstQuery_; }
    int queryCount() const { return int(rows_.size()); }
    int keyCount() const { return keyCount_; }
    // The weight of (query position, key position); 0 where nothing was given.
    float weight(int query, int key) const;

    // (query position, key position) of the cell under a point, if any; the rectangle of a cell.
    std::optional<std::pair<int, int>> cellAt(QPoint point) const;
    QRect cellRect(int query, int key) const;
    QString toolTipAt(QPoint point) const;

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
        QRect legend;  // the colour bar
        int rowLabelStep = 1, keyLabelStep = 1;
    };
    const Geometry& geometry() const;
    void invalidateGeometry() { geometryValid_ = false; }

    QRgb rgbFor(float weight) const;
    void ensureCapacity(int rows, int keys);
    void colourRow(int row);
    void recolourAll();
    QString labelFor(int position) const;
    void paintAxisLabels(QPainter& painter, const Geometry& g) const;
    void paintLegend(QPainter& painter, const Geometry& g) const;
    void paintSelection(QPainter& painter, const Geometry& g) const;

    int layer_ = -1, head_ = -1;
    int firstQuery_ = 0;
    int keyCount_ = 0;
    std::vector<std::vector<float>> rows_;  // row i: query position firstQuery_ + i
    QImage image_;                          // capacity-sized; [keyCount_, rows] in use
    QStringList labels_;
    int labelTextWidth_ = 0;  // widest label in pixels
    bool logScale_ = false;
    int selectedPosition_ = -1;
    ColourMap map_;
    mutable Geometry geometry_;
    mutable bool geometryValid_ = false;
};

}  // namespace inferlens::widgets
