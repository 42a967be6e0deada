#pragma once
// The guided tour's panel: one step at a time, Back and Next, and the step's text with its live
// figures. Showing a step asks the window to highlight the panel that step talks about.

#include <QWidget>
#include <vector>

#include "guided_tour.h"
#include "live_texts.h"

class QLabel;
class QPushButton;
class QTextBrowser;

namespace inferlens::gui {

class TourPanel : public QWidget {
    Q_OBJECT

  public:
    explicit TourPanel(QWidget* parent = nullptr);

    // New figures (a model loaded, a generation finished): the same step, updated.
    void setSteps(std::vector<TourStep> steps);
    const std::vector<TourStep>& steps() const { return steps_; }
    int current() const { return current_; }
    int stepCount() const { return int(steps_.size()); }
    void show(int step);

  signals:
    // The step on show talks about this dock (its object name).
    void highlightPanel(const QString& panel);

  protected:
    void changeEvent(QEvent* event) override;

  private:
    void refresh();

    std::vector<TourStep> steps_;
    int current_ = 0;
    QLabel* counter_;
    QLabel* title_;
    QTextBrowser* body_;
    QPushButton* back_;
    QPushButton* next_;
    LiveTexts texts_;
};

}  // namespace inferlens::gui
