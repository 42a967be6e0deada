#include "beam_tree_widget.h"

#include <QEvent>
#include <QHelpEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace inferlens::widgets {

namespace {

constexpr double kMargin = 8;
constexpr double kNodeWidth = 84;
constexpr double kColumn = 132;  // node plus the edge and its label
constexpr double kEdgeLabelWidth = kColumn - kNodeWidth - 6;

const QColor kInk(0x20, 0x20, 0x20);
const QColor kKeptFill(0xFF, 0xFF, 0xFF);
const QColor kFinishedFill(0xD6, 0xEF, 0xD6);
const QColor kFinishedBorder(0x2E, 0x8B, 0x3E);
const QColor kWinnerFill(0xFF, 0xE0, 0xA6);
const QColor kWinner(0xE0, 0x84, 0x00);
const QColor kDimFill(0xF3, 0xF3, 0xF3);
const QColor kDim(0xB4, 0xB4, 0xB4);

}  // namespace

BeamTreeWidget::BeamTreeWidget(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    relayout();
}

void BeamTreeWidget::clear() {
    nodes_.clear();
    children_.clear();
    rootChildren_.clear();
    winner_ = -1;
    relayout();
}

void BeamTreeWidget::appendStep(const std::vector<BeamTreeNode>& nodes) {
    for (const BeamTreeNode& node : nodes) {
        const bool parentOk =
            node.parent == -1 || (node.parent >= 0 && node.parent < nodeCount() &&
                                  nodes_[size_t(node.parent)].fate == BeamTreeNode::Fate::Kept);
        if (node.id != nodeCount() || !parentOk)
            continue;
        nodes_.push_back(node);
        children_.emplace_back();
        (node.parent < 0 ? rootChildren_ : children_[size_t(node.parent)]).push_back(node.id);
    }
    relayout();
}

void BeamTreeWidget::setWinner(int node) {
    winner_ = node >= 0 && node < nodeCount() ? node : -1;
    relayout();
}

void BeamTreeWidget::setPrunedPerParent(int count) {
    prunedPerParent_ = std::max(count, 0);
    relayout();
}

void BeamTreeWidget::relayout() {
    const size_t n = nodes_.size();
    steps_ = 0;
    for (const BeamTreeNode& node : nodes_)
        steps_ = std::max(steps_, node.step);

    // Alive: on the way to a finished hypothesis or to a beam of the last step (still live, or left
    // as a hypothesis when the budget ran out). Children come after parents, so walk backwards.
    alive_.assign(n, 0);
    for (size_t i = n; i-- > 0;) {
        const BeamTreeNode& node = nodes_[i];
        if (node.fate == BeamTreeNode::Fate::Finished ||
            (node.fate == BeamTreeNode::Fate::Kept && node.step == steps_))
            alive_[i] = 1;
        if (alive_[i] && node.parent >= 0)
            alive_[size_t(node.parent)] = 1;
    }
    winning_.assign(n, 0);
    for (int id = winner_; id >= 0; id = nodes_[size_t(id)].parent)
        winning_[size_t(id)] = 1;

    // Rows: leaves take the next row in depth-first order (best child first), a parent sits
    // midway between its first and last drawn child.
    row_.assign(n, -1);
    int nextRow = 0;
    const auto place = [&](auto&& self, const std::vector<int>& kids) -> std::pair<double, double> {
        double first = -1, last = -1;
        int prunedDrawn = 0;
        for (const int kid : kids) {
            const BeamTreeNode& node = nodes_[size_t(kid)];
            if (node.fate == BeamTreeNode::Fate::Pruned && prunedDrawn++ >= prunedPerParent_)
                continue;
            const std::vector<int>& grandchildren = children_[size_t(kid)];
            const auto [a, b] = self(self, grandchildren);
            row_[size_t(kid)] = a < 0 ? double(nextRow++) : (a + b) / 2;
            if (first < 0)
                first = row_[size_t(kid)];
            last = row_[size_t(kid)];
        }
        return {first, last};
    };
    const auto [first, last] = place(place, rootChildren_);
    rootRow_ = first < 0 ? 0 : (first + last) / 2;
    rows_ = std::max(nextRow, 1);
    layOutTexts();
    updateGeometry();
    resize(sizeHint());
    update();
}

QFont BeamTreeWidget::edgeLabelFont() const {
    QFont small = font();
    small.setPointSizeF(std::max(6.0, font().pointSizeF() * 0.8));
    return small;
}

void BeamTreeWidget::layOutTexts() {
    const QFontMetrics metrics = fontMetrics();
    const QFontMetrics small(edgeLabelFont());
    // A box holds a line of text; rows leave room between boxes; the first row's edge label (above
    // its box) stays inside the widget.
    nodeHeight_ = std::max(18.0, metrics.height() + 4.0);
    rowHeight_ = std::max(22.0, nodeHeight_ + 4);
    top_ = std::max(kMargin, small.height() - (rowHeight_ - nodeHeight_) / 2 + 1);
    texts_.clear();
    textNode_.clear();
    // Log-probabilities right-aligned at the end of each edge, above its box: between the columns,
    // where only edges run.
    for (int id = 0; id < nodeCount(); ++id) {
        if (row_[size_t(id)] < 0)
            continue;
        const QPointF to = centre(id) - QPointF(kNodeWidth / 2, 0);
        const QString text =
            small.elidedText(QString::number(nodes_[size_t(id)].tokenLogProbability, 'f', 2),
                             Qt::ElideRight, int(kEdgeLabelWidth));
        texts_.push_back(placeText(small, text, int(to.x()) - 2,
                                   int(to.y() - nodeHeight_ / 2) - small.height() / 2 - 1,
                                   Qt::AlignRight, DrawnText::Kind::Annotation));
        textNode_.push_back(id);
    }
    edgeLabelCount_ = texts_.size();
    // Each box's token, elided to the box.
    const auto boxText = [&](const QRectF& box, const QString& label, int id) {
        const QString text = metrics.elidedText(label, Qt::ElideRight, int(box.width()) - 8);
        texts_.push_back(placeText(metrics, text, int(box.center().x()), int(box.center().y()),
                                   Qt::AlignHCenter, DrawnText::Kind::Annotation));
        textNode_.push_back(id);
    };
    boxText(rootRect(), tr("prompt"), -1);
    for (int id = 0; id < nodeCount(); ++id) {
        if (const std::optional<QRectF> r = nodeRect(id))
            boxText(*r, nodes_[size_t(id)].label, id);
    }
}

QSize BeamTreeWidget::sizeHint() const {
    return {int(2 * kMargin + kNodeWidth + kColumn * steps_),
            int(std::ceil(top_ + kMargin + rowHeight_ * rows_))};
}

QRect BeamTreeWidget::dataArea() const {
    QRectF bounds = rootRect();
    for (int id = 0; id < nodeCount(); ++id) {
        if (const std::optional<QRectF> r = nodeRect(id))
            bounds |= *r;
    }
    return bounds.toAlignedRect();
}

QPointF BeamTreeWidget::centre(int id) const {
    const double step = id < 0 ? 0 : nodes_[size_t(id)].step;
    const double row = id < 0 ? rootRow_ : row_[size_t(id)];
    return {kMargin + kNodeWidth / 2 + kColumn * step, top_ + rowHeight_ * (row + 0.5)};
}

QRectF BeamTreeWidget::rootRect() const {
    const QPointF c = centre(-1);
    return {c.x() - kNodeWidth / 2, c.y() - nodeHeight_ / 2, kNodeWidth, nodeHeight_};
}

std::optional<QRectF> BeamTreeWidget::nodeRect(int id) const {
    if (id < 0 || id >= nodeCount() || row_[size_t(id)] < 0)
        return std::nullopt;
    const QPointF c = centre(id);
    return QRectF(c.x() - kNodeWidth / 2, c.y() - nodeHeight_ / 2, kNodeWidth, nodeHeight_);
}

bool BeamTreeWidget::dimmed(int id) const {
    return id >= 0 && id < nodeCount() && !alive_[size_t(id)];
}

bool BeamTreeWidget::onWinningPath(int id) const {
    return id >= 0 && id < nodeCount() && winning_[size_t(id)];
}

QColor BeamTreeWidget::fillOf(int id) const {
    if (onWinningPath(id))
        return kWinnerFill;
    if (dimmed(id))
        return kDimFill;
    return nodes_[size_t(id)].fate == BeamTreeNode::Fate::Finished ? kFinishedFill : kKeptFill;
}

int BeamTreeWidget::nodeAt(QPointF point) const {
    for (int id = 0; id < nodeCount(); ++id)
        if (const std::optional<QRectF> r = nodeRect(id); r && r->contains(point))
            return id;
    return -1;
}

QString BeamTreeWidget::toolTipFor(int id) const {
    const BeamTreeNode& node = nodes_[size_t(id)];
    QString fate;
    switch (node.fate) {
        case BeamTreeNode::Fate::Kept: {
            const std::vector<int>& kids = children_[size_t(id)];
            const auto pruned = std::count_if(kids.begin(), kids.end(), [this](int kid) {
                return nodes_[size_t(kid)].fate == BeamTreeNode::Fate::Pruned;
            });
            fate = tr("kept as a beam; %n of its continuations pruned", nullptr, int(pruned));
            break;
        }
        case BeamTreeNode::Fate::Pruned:
            fate = tr("pruned: other continuations were more probable");
            break;
        case BeamTreeNode::Fate::Finished:
            fate = tr("finished: a stop token ends this hypothesis");
            break;
    }
    return tr("“%1” at step %2\nlog p = %3 (p = %4)\ncumulative log p = %5\n%6")
        .arg(node.label)
        .arg(node.step)
        .arg(node.tokenLogProbability, 0, 'f', 3)
        .arg(std::exp(node.tokenLogProbability), 0, 'f', 3)
        .arg(node.logProbability, 0, 'f', 3)
        .arg(fate);
}

bool BeamTreeWidget::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int id = nodeAt(help->pos());
        if (id >= 0)
            QToolTip::showText(help->globalPos(), toolTipFor(id), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

void BeamTreeWidget::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.fillRect(rect(), palette().base());
    // Edges first, the winning path last so that it stays on top.
    for (const bool winningPass : {false, true}) {
        for (int id = 0; id < nodeCount(); ++id) {
            if (row_[size_t(id)] < 0 || bool(winning_[size_t(id)]) != winningPass)
                continue;
            const BeamTreeNode& node = nodes_[size_t(id)];
            const QPointF from = centre(node.parent) + QPointF(kNodeWidth / 2, 0);
            const QPointF to = centre(id) - QPointF(kNodeWidth / 2, 0);
            const QColor colour = winningPass ? kWinner : dimmed(id) ? kDim : kInk;
            painter.setPen(QPen(colour, winningPass ? 3 : dimmed(id) ? 1 : 1.5));
            QPainterPath path(from);
            const double bend = (to.x() - from.x()) / 2;
            path.cubicTo(from + QPointF(bend, 0), to - QPointF(bend, 0), to);
            painter.drawPath(path);
        }
    }
    const auto drawBox = [&](const QRectF& r, const QColor& fill, const QColor& border,
                             double borderWidth) {
        painter.setPen(QPen(border, borderWidth));
        painter.setBrush(fill);
        painter.drawRoundedRect(r, 4, 4);
    };
    drawBox(rootRect(), palette().color(QPalette::AlternateBase), kInk, 1);
    for (int id = 0; id < nodeCount(); ++id) {
        const std::optional<QRectF> r = nodeRect(id);
        if (!r)
            continue;
        const bool finished = nodes_[size_t(id)].fate == BeamTreeNode::Fate::Finished;
        const QColor border = onWinningPath(id) ? kWinner
                              : dimmed(id)      ? kDim
                              : finished        ? kFinishedBorder
                                                : kInk;
        drawBox(*r, fillOf(id), border, onWinningPath(id) || finished ? 2 : 1);
    }
    // The texts laid out with the tree, over edges and boxes, in their node's ink.
    for (size_t i = 0; i < texts_.size(); ++i) {
        painter.setFont(i < edgeLabelCount_ ? edgeLabelFont() : font());
        painter.setPen(dimmed(textNode_[i]) ? kDim : kInk);
        paintText(painter, texts_[i]);
    }
}

void BeamTreeWidget::changeEvent(QEvent* event) {
    if (event->type() == QEvent::FontChange || event->type() == QEvent::LanguageChange) {
        relayout();  // box sizes and texts
    }
    QWidget::changeEvent(event);
}

}  // namespace inferlens::widgets
