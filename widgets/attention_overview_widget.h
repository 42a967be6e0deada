#pragma once
// Every head of every layer at once: a layers × heads grid of one number per head (how spread out
// its attention is, or how strongly it fixes on one key), drawn as an image with a colour legend.
// It answers "which heads are worth opening?" before the heat map shows one of them.

#include <QImage>
#include <QString>
#include <QWidget>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "colour_map.h"
#include "drawn_text.h"
#include "label_thinning.h"
#include "panel_data.h"

namespace inferlens::widgets {

class AttentionOverviewWidget : public QWidget {
    Q_OBJECT
  public:
    explicit AttentionOverviewWidget(QWidget* parent = nullptr);

    // Summaries of one head's matrix the app can put in the grid: the mean over query rows of the
    // entropy of each row, in nats (low: focused heads); and the mean over rows of the row maximum.
    static float meanRowEntropy(const AttentionMatrix& matrix);
    static float meanRowMaximum(const AttentionMatrix& matrix);
    // The entropy of one row of weights, in nats (zeros, the causal mask, add nothing).
    static double rowEntropy(std::span<const float> row);

    // Starts over with every value unknown (drawn grey).
    void setShape(int layers, int heads);
    // Row-major [layers, heads]; NaN marks an unknown value.
    void setValues(int layers, int heads, std::vector<float> values);
    // One head; the grid grows to hold it.
    void setValue(int layer, int head, float value);
    void clear() { setShape(0, 0); }

    // What the number is, for the title and tooltips, e.g. tr("entropy (nats)").
    void setMetricName(const QString& name);
    // A fixed colour range; without one the range follows the known values.
    void setRange(float minimum, float maximum);
    void setAutoRange();
    std::pair<float, float> range() const { return {minimum_, maximum_}; }

    int layerCount() const { return layers_; }
    int headCount() const { return heads_; }
    float value(int layer, int head) const;  // NaN when unknown
    QColor colourFor(float value) const { return QColor::fromRgb(rgbFor(value)); }
    static QColor unknownColour() { return QColor(0x9A, 0x9A, 0x9A); }

    void setSelected(int layer, int head);  // does not emit headSelected
    std::pair<int, int> selected() const { return selected_; }

    // (layer, head) under a point; a cell's rectangle.
    std::optional<std::pair<int, int>> cellAt(QPoint point) const;
    QRect cellRect(int layer, int head) const;

    // Where the grid is drawn, every text drawn (title, layer and head numbers, the colour bar's
    // labels) and the colour bar with its ticks, in widget coordinates.
    QRect dataArea() const { return geometry().plot; }
    DrawnTexts drawnTexts() const { return drawnTextsOf(geometry().texts); }
    QRect colourBarArea() const { return geometry().legend.adjusted(0, 0, 5, 0); }

    QSize sizeHint() const override { return {420, 360}; }
    QSize minimumSizeHint() const override { return {160, 120}; }

  signals:
    void headSelected(int layer, int head);

  protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

  private:
    struct Geometry {
        QRect plot;
        double cellWidth = 0, cellHeight = 0;
        QRect legend;
        int labelWidth = 0;
        PlacedTexts texts;  // every text painted, laid out with the rest
    };
    const Geometry& geometry() const;
    void layOutLabels(Geometry& g) const;
    QRgb rgbFor(float value) const;
    void updateAutoRange();
    void recolourAll();
    void colourCell(int layer, int head);
    std::vector<std::pair<double, QString>> legendTicks() const;

    int layers_ = 0, heads_ = 0;
    std::vector<float> values_;
    QImage image_;  // heads_ × layers_
    QString metric_;
    bool autoRange_ = true;
    float minimum_ = 0, maximum_ = 1;
    std::pair<int, int> selected_{-1, -1};
    ColourMap map_;
    mutable Geometry geometry_;
    mutable bool geometryValid_ = false;
};

}  // namespace inferlens::widgets
