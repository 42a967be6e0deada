#pragma once
// The beam search as a tree that grows step by step: the prompt on the left, one column per new
// token, a box per token considered, each edge labelled with the token's log-probability given its
// parent. Nodes that can no longer lead anywhere — pruned candidates, and beams none of whose
// continuations survived — are dimmed; once the search is over the winning hypothesis's path is
// highlighted. A search considers 2 × width candidates per beam and step, so only the most probable
// pruned candidates of each beam are drawn (setPrunedPerParent); the tooltip of a beam gives the
// count of the rest.

#include <QSize>
#include <QWidget>
#include <optional>
#include <vector>

#include "drawn_text.h"
#include "label_thinning.h"
#include "panel_data.h"

namespace inferlens::widgets {

class BeamTreeWidget : public QWidget {
    Q_OBJECT
  public:
    explicit BeamTreeWidget(QWidget* parent = nullptr);

    void clear();
    // The nodes of the next step. A node is taken only if its id is the next one and its parent
    // an earlier kept node (anything else is ignored: the tree stays consistent).
    void appendStep(const std::vector<BeamTreeNode>& nodes);
    // The search is over and `node` ended the best hypothesis (−1: none).
    void setWinner(int node);
    // How many pruned candidates of each beam are drawn, the most probable first (0: none).
    void setPrunedPerParent(int count);

    int nodeCount() const { return int(nodes_.size()); }
    int steps() const { return steps_; }
    int winner() const { return winner_; }
    const BeamTreeNode& node(int id) const { return nodes_[size_t(id)]; }
    // Where a node is drawn; nullopt when it is not (a pruned candidate past the limit).
    std::optional<QRectF> nodeRect(int id) const;
    // Dimmed: pruned, or a beam none of whose continuations are live or finished.
    bool dimmed(int id) const;
    bool onWinningPath(int id) const;
    // The node under a point of the widget, −1 for none (the prompt's box included).
    int nodeAt(QPointF point) const;
    QString toolTipFor(int id) const;
    // The fill of a node's box (its state in colour).
    QColor fillOf(int id) const;

    QSize sizeHint() const override;

    // The boxes' bounds (the prompt's included), and every text drawn (the edges'
    // log-probabilities, the boxes' tokens), in widget coordinates.
    QRect dataArea() const;
    DrawnTexts drawnTexts() const { return drawnTextsOf(texts_); }

  protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
    void changeEvent(QEvent* event) override;

  private:
    void relayout();
    QPointF centre(int id) const;
    QRectF rootRect() const;
    // Box and row heights from the font, then every text where it will be painted.
    void layOutTexts();
    QFont edgeLabelFont() const;

    std::vector<BeamTreeNode> nodes_;
    std::vector<std::vector<int>> children_;  // per node, in the order considered (best first)
    std::vector<int> rootChildren_;
    std::vector<double> row_;    // per node: its row in the layout; −1 when not drawn
    std::vector<char> alive_;    // per node: leads to a live beam or a finished hypothesis
    std::vector<char> winning_;  // per node: on the winner's path
    double rootRow_ = 0;
    int rows_ = 0;
    int steps_ = 0;
    int winner_ = -1;
    int prunedPerParent_ = 2;
    double nodeHeight_ = 18, rowHeight_ = 22, top_ = 8;
    PlacedTexts texts_;          // the edge labels (edgeLabelCount_ of them), then the boxes' texts
    std::vector<int> textNode_;  // per text: its node (−1: the prompt)
    size_t edgeLabelCount_ = 0;
};

}  // namespace inferlens::widgets
