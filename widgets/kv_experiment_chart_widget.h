#pragma once
// The KV cache on/off experiment as a chart: time per generated token against its position, one
// line with the cache and one without (each step reruns the whole sequence, so its time grows with
// the position), and below it the speedup of the first n tokens for n = 32, 64, 128, 256 beside
// the FLOP ratio that explains it.

#include <optional>

#include <qcustomplot.h>

#include "drawn_text.h"
#include "panel_data.h"

namespace inferlens::widgets {

class KvExperimentChartWidget : public QCustomPlot {
    Q_OBJECT
  public:
    explicit KvExperimentChartWidget(QWidget* parent = nullptr);

    void setData(const KvExperimentData& data);
    // A run in progress: one more token's time (the chart follows it live).
    void appendPoint(bool withCache, double seconds);
    void clear();
    const KvExperimentData& data() const { return data_; }

    // Time without the cache over time with it for the first n tokens, and the same in FLOPs;
    // empty when either run has fewer than n tokens (or no FLOPs).
    std::optional<double> speedupAt(int tokens) const;
    std::optional<double> flopRatioAt(int tokens) const;
    // The lines drawn: points with and without the cache.
    int pointCount(bool withCache) const;
    QString summaryText() const;

    // After the last replot, in widget coordinates: the plot's data area and every text drawn.
    QRect dataArea() const;
    DrawnTexts drawnTexts() const;

  protected:
    void changeEvent(QEvent* event) override;
    // Every replot wraps the summary to the width and fits the legend and tick counts.
    void updateLayout() override;

  private:
    void refresh();

    KvExperimentData data_;
    QCPGraph* withCache_ = nullptr;
    QCPGraph* withoutCache_ = nullptr;
    QCPTextElement* summary_ = nullptr;
};

}  // namespace inferlens::widgets
