#pragma once
// The KV cache panel: bytes held against tokens, with the capacity allocated so far, what a full
// multi-head cache would need for the same tokens (the GQA/MQA saving), during a beam search what
// all the beams' caches take together, optionally one line per layer, and a vertical line at the
// context limit (none for a sliding cache, which stays flat against the tokens run). The current
// figures, with what an f16 or int8 cache saves and what a window evicted, are written on the
// chart in binary units. A QCustomPlot itself, so that export gets vector output.

#include <optional>
#include <vector>

#include <qcustomplot.h>

#include "drawn_text.h"
#include "panel_data.h"

namespace inferlens::widgets {

class KvCacheChartWidget : public QCustomPlot {
    Q_OBJECT
  public:
    explicit KvCacheChartWidget(QWidget* parent = nullptr);

    // A point with fewer tokens than the last one starts a new series (the cache was cleared, e.g.
    // a new conversation), since bytes against tokens only makes sense for one growing cache.
    void appendPoint(const KvCachePoint& point);
    void clear();

    // The model's context size in tokens (0: unknown, no line).
    void setContextLimit(qint64 tokens);
    qint64 contextLimit() const { return contextLimit_; }
    // Widen the token axis to the whole context, so the line at the limit is always in view
    // (otherwise the axis follows the tokens held, and takes in the limit once the cache is half
    // full).
    void setShowWholeContext(bool on);
    // One thin line per layer (all layers' lines add up to the total).
    void setShowPerLayer(bool on);
    bool showPerLayer() const { return showPerLayer_; }

    // The last point of the "bytes held" line, (tokens, bytes), if any; the summary text.
    std::optional<QPointF> lastPoint() const;
    int pointCount() const;
    // Whether the line of all beams' caches is drawn (a point of a beam search came).
    bool showsBeams() const;
    QString summaryText() const;
    // The x of the context limit line when it is drawn.
    std::optional<double> contextLimitLineX() const;

    // After the last replot, in widget coordinates: the plot's data area and every text drawn.
    QRect dataArea() const;
    DrawnTexts drawnTexts() const;

  protected:
    // Every replot lays the texts out for the panel's size: the figures beside the plot when
    // there is room, else under it; tick counts and the legend's columns to what fits.
    void updateLayout() override;

  private:
    void fitTexts();
    // Puts an element into a cell of `grid` or takes it out of the grid (and hides it).
    static void placeInGrid(QCPLayoutGrid* grid, QCPLayoutElement* element, int row, int column,
                            bool shown);
    void rebuildPerLayerGraphs();
    // Shows the context limit's line unless the cache slides, then updates ranges and summary.
    void updateLimitLine();
    bool sliding() const { return !points_.empty() && points_.back().slides; }
    void updateRanges();
    void updateSummary();
    void requestReplot();

    std::vector<KvCachePoint> points_;
    qint64 contextLimit_ = 0;
    bool showWholeContext_ = false;
    bool showPerLayer_ = false;

    QCPGraph* held_ = nullptr;
    QCPGraph* allocated_ = nullptr;
    QCPGraph* fullMultiHead_ = nullptr;
    QCPGraph* allBeams_ = nullptr;  // this cache plus the other beams' (beam search only)
    std::vector<QCPGraph*> perLayer_;
    QCPItemStraightLine* limitLine_ = nullptr;
    QCPItemText* limitText_ = nullptr;
    QCPTextElement* title_ = nullptr;
    QCPLayoutGrid* body_ = nullptr;  // the axis rect and, beside or under it, the figures
    QCPTextElement* summary_ = nullptr;
};

}  // namespace inferlens::widgets
