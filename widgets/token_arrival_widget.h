#pragma once
// The outer loop of a model that runs elsewhere (a server), seen from here: when each token
// arrived. A histogram of the waits between tokens (inter-token latency), with the time to the
// first token and the median and 95th percentile of the waits in the title. A QCustomPlot itself,
// like the other charts, with its texts fitted to the size it gets.

#include <vector>

#include <qcustomplot.h>

#include "drawn_text.h"

namespace inferlens::widgets {

class TokenArrivalWidget : public QCustomPlot {
    Q_OBJECT
  public:
    explicit TokenArrivalWidget(QWidget* parent = nullptr);

    // Step 0's wait is the time to the first token (it starts a new answer); each later step's
    // is the wait since the token before.
    void addArrival(int step, double seconds);
    void clear();

    double firstTokenMs() const { return firstTokenMs_; }
    const std::vector<double>& waitsMs() const { return waitsMs_; }
    double medianMs() const;
    double percentileMs(double fraction) const;
    // The bins drawn: their width (ms) and the count in each, from 0 ms on.
    double binWidthMs() const { return binWidthMs_; }
    std::vector<int> binCounts() const;
    QString titleText() const { return fullTitle_; }

    QRect dataArea() const { return axisRect()->rect(); }
    DrawnTexts drawnTexts() const;

  protected:
    void updateLayout() override;

  private:
    void rebuild();

    double firstTokenMs_ = 0;
    std::vector<double> waitsMs_;
    double binWidthMs_ = 1;
    QString fullTitle_;
    QCPTextElement* title_;
    QCPBars* bars_;
    QCPItemStraightLine* medianLine_;
};

}  // namespace inferlens::widgets
