#pragma once
// What-if branches side by side. Every generation from one prompt is a branch: the original answer,
// and each answer continued after forcing another candidate at some step. The list picks a branch;
// it is shown beside the branch it departed from, token by token, each token shaded by the
// probability the model gave it, the forced token marked and the shared prefix greyed.

#include <QString>
#include <QWidget>
#include <utility>
#include <vector>

#include "drawn_text.h"

class QListWidget;
class QTextBrowser;

namespace inferlens::widgets {

struct BranchToken {
    QString text;           // what the token adds to the answer
    float probability = 0;  // the final probability it was drawn with (forced: it would have had)
    bool forced = false;
};

struct BranchRecord {
    QString title;
    int parent = -1;    // the branch it departed from; −1 for an original answer
    int divergeAt = 0;  // tokens shared with the parent (the forced token's index)
    std::vector<BranchToken> tokens;
};

class BranchCompareWidget : public QWidget {
    Q_OBJECT
  public:
    explicit BranchCompareWidget(QWidget* parent = nullptr);

    // Adds a branch and selects it; returns its index.
    int addBranch(BranchRecord branch);
    // Appends a token to a branch (a branch grows while it generates).
    void appendToken(int branch, BranchToken token);
    void clear();

    int branchCount() const { return int(branches_.size()); }
    const BranchRecord& branch(int index) const { return branches_[size_t(index)]; }
    // The branch shown on the left (the list's selection) and the one beside it (its parent, or
    // the first branch); −1 when none.
    std::pair<int, int> compared() const;
    void select(int branch);
    // The HTML a branch is shown as (for the two views, and tests).
    QString branchHtml(int index) const;

    // The two answers' views, and the texts shown (the list's branches, then each paragraph of the
    // two answers as Qt laid it out, clipped to what its view shows), in widget coordinates.
    QRect dataArea() const;
    DrawnTexts drawnTexts() const;

    QSize sizeHint() const override { return {520, 320}; }

  protected:
    void changeEvent(QEvent* event) override;

  private:
    void refresh();
    QString itemText(int index) const;

    std::vector<BranchRecord> branches_;
    QListWidget* list_;
    QTextBrowser* left_;
    QTextBrowser* right_;
};

}  // namespace inferlens::widgets
