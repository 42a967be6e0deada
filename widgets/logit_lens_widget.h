#pragma once
// The logit lens as a layers × rank table: row l holds the tokens the model would predict if it
// stopped after layer l, most probable first, each cell shaded by its probability (viridis), with
// the layer's residual-stream norm and attention entropy beside it. Watching the rows fill in
// layer by layer shows where in the inner loop the prediction forms.

#include <QTableWidget>

#include "colour_map.h"
#include "drawn_text.h"
#include "panel_data.h"

namespace inferlens::widgets {

class LogitLensWidget : public QTableWidget {
    Q_OBJECT
  public:
    explicit LogitLensWidget(QWidget* parent = nullptr);

    void setSnapshot(const LensSnapshot& snapshot);
    void clear();
    const LensSnapshot& snapshot() const { return snapshot_; }
    // The shade of a probability cell.
    QColor colourFor(float probability) const { return map_.colourAt(probability); }
    // Columns before the ranks: the layer's norm and entropy.
    static constexpr int kRankColumn = 2;

    // The cells' viewport, and the texts shown (header labels, then cells), in widget coordinates.
    // The table draws each text elided and clipped to its cell, so a cell's visible part bounds its
    // text.
    QRect dataArea() const;
    DrawnTexts drawnTexts() const;

  protected:
    void changeEvent(QEvent* event) override;

  private:
    void rebuild();

    LensSnapshot snapshot_;
    ColourMap map_;
};

}  // namespace inferlens::widgets
