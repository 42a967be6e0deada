#pragma once
// The sampling panel: for the top candidates of a step, grouped bars of their probability after
// each stage of the sampler (raw → penalties → temperature → final), the cut-off after the last
// kept candidate, the cumulative mass, and the chosen token; below, entropy and the chosen token's
// probability over the steps so far. A QCustomPlot itself (not a wrapper), so that export can ask
// it for vector output.

#include <array>
#include <optional>

#include <qcustomplot.h>

#include "drawn_text.h"
#include "panel_data.h"

namespace inferlens::widgets {

class SamplingChartWidget : public QCustomPlot {
    Q_OBJECT
  public:
    explicit SamplingChartWidget(QWidget* parent = nullptr);

    // How many of a step's candidates are drawn (the best ones).
    void setTopN(int count);
    int topN() const { return topN_; }

    void setStep(const SamplingStep& step);
    // A step not after the last one starts the history over (a new generation).
    void appendHistory(int step, double entropy, double chosenProbability);
    void clearHistory();
    void clear();  // the step and the history

    // What is drawn, for tests and the app's status line.
    const SamplingStep& step() const { return step_; }  // the step shown (empty before one)
    int barCount() const;                               // candidates shown
    int cutoffIndex() const;                            // the step's number of kept candidates
    int chosenIndex() const;                            // the chosen row, -1 if not in the list
    int historyCount() const;                           // steps in the history
    // The probability drawn for a candidate after a stage (SamplingStageIndex).
    double barValue(int stage, int index) const;
    // The x of the cut-off line (between bars cutoffIndex − 1 and cutoffIndex) when it is drawn;
    // it is not when every candidate shown was kept.
    std::optional<double> cutoffLineX() const;
    // The x of the chosen token's highlight band when it is drawn.
    std::optional<double> chosenBandX() const;
    // A server's step: the bar after the candidates that stands for the rest of the vocabulary
    // (its unknown mass), when it is drawn.
    std::optional<double> unknownTailValue() const;
    // The cumulative mass curve's value at a candidate.
    double cumulativeMass(int index) const;
    // The chart's title, with its line about masked tokens.
    QString titleText() const;
    // The candidate whose bars are under a point of the distribution chart, if any.
    std::optional<int> candidateAt(QPoint point) const;

    // After the last replot, in widget coordinates: the distribution chart's data area, the
    // history's (empty when the panel is too short to show the history), and every text drawn.
    QRect dataArea() const;
    QRect historyArea() const;
    DrawnTexts drawnTexts() const;

  signals:
    // A click on a candidate's bars: the app forces it at this step (what-if branching).
    void candidateClicked(int index);

  protected:
    void mousePressEvent(QMouseEvent* event) override;
    // Every replot lays the texts out for the panel's size: the title wrapped, the tick counts and
    // candidate labels thinned to what fits, the history and legends dropped when there is no
    // room, and "chosen" / "cut off" placed apart.
    void updateLayout() override;

  private:
    void applyStep();
    void fitTexts();
    void fitCandidateLabels();
    void placeMarkers();
    // Puts an element into its row of the layout, or takes it out (and hides it).
    void showInRow(QCPLayoutElement* element, int row, double stretch, bool shown);
    // The title's line about tokens the logit processors masked (empty when none were).
    QString maskedLine() const;
    void requestReplot();

    int topN_ = 12;
    SamplingStep step_;
    bool hasStep_ = false;

    QString fullTitle_;                 // the title before it is wrapped to the width
    QVector<QString> candidateLabels_;  // what each candidate is labelled with when there is room
    std::vector<std::pair<QCPAxis*, QString>> axisLabels_;  // each axis' full label

    QCPTextElement* title_ = nullptr;
    std::array<QCPBars*, kSamplingStageCount> bars_{};
    QCPBarsGroup* group_ = nullptr;
    QCPGraph* cumulative_ = nullptr;
    QCPBars* unknownTail_ = nullptr;
    QCPItemStraightLine* cutoffLine_ = nullptr;
    QCPItemText* cutoffText_ = nullptr;
    QCPItemRect* chosenBand_ = nullptr;
    QCPItemText* chosenText_ = nullptr;
    QSharedPointer<QCPAxisTickerText> labelTicker_;

    QCPAxisRect* historyRect_ = nullptr;
    QCPGraph* entropyGraph_ = nullptr;
    QCPGraph* chosenGraph_ = nullptr;
    QCPLegend* historyLegend_ = nullptr;
};

}  // namespace inferlens::widgets
