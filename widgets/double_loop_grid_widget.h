#pragma once
// The double loop made visible: one column per step of the outer loop (the prompt's prefill, then
// one decode step per token), one row per layer of the inner loop, each cell coloured by the time
// that layer took in that step. Prefill columns are marked apart from decode ones; the header gives
// the time to first token and the decode speed. Cells live in a QImage (one pixel per cell) that
// grows by doubling, so a step colours one column.

#include <QImage>
#include <QWidget>
#include <optional>
#include <utility>
#include <vector>

#include "colour_map.h"
#include "drawn_text.h"
#include "label_thinning.h"
#include "panel_data.h"

namespace inferlens::widgets {

class DoubleLoopGridWidget : public QWidget {
    Q_OBJECT
  public:
    explicit DoubleLoopGridWidget(QWidget* parent = nullptr);

    // A timing with the same step number as the last one replaces it, so the app may send a step's
    // layers as they finish (the inner loop filling in live) and then the whole step.
    void appendStep(const LoopTiming& timing);
    void clear();

    // Outlines the column of the step with this number (LoopTiming::step), e.g. the step that ran a
    // token clicked in the tokenization panel; −1: none.
    void setSelectedStep(int step);
    int selectedStep() const { return selectedStep_; }

    int stepCount() const { return int(steps_.size()); }
    int layerCount() const { return layers_; }
    const LoopTiming& step(int index) const { return steps_[size_t(index)]; }

    // Colours follow log10(seconds) over whole decades that cover every time seen (a prefill layer
    // can take a hundred times a decode layer); the decades only widen, and then every cell is
    // recoloured.
    QColor colourFor(double seconds) const { return QColor::fromRgb(rgbFor(seconds)); }
    std::pair<double, double> colourRange() const;  // seconds at the bottom and top of the scale

    // Over the current generation (from its prefill on): decode tokens per second of decode time;
    // the prefill steps' time, which ends with the first token drawn. Empty until known.
    std::optional<double> tokensPerSecond() const;
    std::optional<double> timeToFirstToken() const;
    QString summaryText() const;

    // (step index, layer) under a point; a cell's rectangle (empty when scrolled out of view: the
    // grid shows the latest steps that fit).
    std::optional<std::pair<int, int>> cellAt(QPoint point) const;
    QRect cellRect(int stepIndex, int layer) const;
    QString toolTipAt(QPoint point) const;

    // Where the cells and their prefill / decode band are drawn, every text drawn (the summary,
    // layer and step numbers, the band's key, the colour bar's labels) and the colour bar with its
    // ticks, in widget coordinates.
    QRect dataArea() const { return geometry().plot | geometry().band; }
    DrawnTexts drawnTexts() const { return drawnTextsOf(geometry().texts); }
    QRect colourBarArea() const { return geometry().legend.adjusted(0, 0, 5, 0); }

    QSize sizeHint() const override { return {520, 320}; }
    QSize minimumSizeHint() const override { return {200, 120}; }

  protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

  private:
    struct Geometry {
        QRect plot;
        int cellWidth = 0;
        double cellHeight = 0;
        int firstVisible = 0, visibleCount = 0;
        QRect band;  // prefill / decode marks above the columns
        QRect legend;
        int labelWidth = 0;
        PlacedTexts texts;               // every text painted, laid out with the rest
        std::vector<QRect> keySwatches;  // the band's key: prefill, decode
    };
    const Geometry& geometry() const;
    void layOutTexts(Geometry& g) const;
    QRgb rgbFor(double seconds) const;
    void ensureCapacity(int steps, int layers);
    void colourColumn(int index);
    void recolourAll();
    bool widenRange(const std::vector<double>& seconds);
    int generationStart() const;
    std::vector<std::pair<double, QString>> legendTicks() const;

    std::vector<LoopTiming> steps_;
    int layers_ = 0;
    QImage image_;  // columns: steps, rows: layers; transparent where a layer has no time yet
    int lowDecade_ = -4, highDecade_ = -1;  // log10 seconds at the ends of the colour scale
    bool rangeSet_ = false;
    int selectedStep_ = -1;
    ColourMap map_;
    mutable Geometry geometry_;
    mutable bool geometryValid_ = false;
};

}  // namespace inferlens::widgets
