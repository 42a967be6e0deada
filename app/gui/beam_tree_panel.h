#pragma once
// The beam tree dock: the search's tree as it grows (widgets/beam_tree_widget.h), with a line
// above it on what the search is doing, its n-best list once it ends, and how many pruned
// candidates of each beam to draw.

#include <QWidget>
#include <optional>
#include <vector>

#include "engine_worker.h"
#include "live_texts.h"

class QLabel;
class QScrollArea;
class QSpinBox;

namespace inferlens::widgets {
class BeamTreeWidget;
}

namespace inferlens::gui {

class BeamTreePanel : public QWidget {
    Q_OBJECT

  public:
    explicit BeamTreePanel(QWidget* parent = nullptr);

    // A search of `width` beams starts: the tree before it goes.
    void begin(int width);
    void appendStep(const std::vector<widgets::BeamTreeNode>& nodes);
    void finish(const BeamSearchSummary& summary);

    widgets::BeamTreeWidget* tree() const { return tree_; }
    QString summaryText() const;
    QSpinBox* prunedBox() const { return pruned_; }

  protected:
    void changeEvent(QEvent* event) override;

  private:
    void refresh();

    QLabel* summary_;
    QSpinBox* pruned_;
    QScrollArea* scroll_;
    widgets::BeamTreeWidget* tree_;
    int width_ = 0;
    std::optional<BeamSearchSummary> result_;
    LiveTexts texts_;
};

}  // namespace inferlens::gui
