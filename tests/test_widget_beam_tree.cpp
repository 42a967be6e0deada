// The beam tree panel on a hand-made search of width 2 over three steps: which nodes are drawn
// (pruned candidates per beam), the layout (children right of their parent, a parent between its
// children, no boxes overlapping), which branches are dimmed (pruned, and a beam all of whose
// continuations were pruned), the winning path in the picture, and input that would make the tree
// inconsistent being ignored.

#include <QImage>
#include <QTest>

#include "beam_tree_widget.h"

using namespace inferlens::widgets;
using Fate = BeamTreeNode::Fate;

namespace {

BeamTreeNode node(int id, int parent, int step, const char* label, double tokenLogP, double logP,
                  Fate fate) {
    return {id, parent, step, QString::fromUtf8(label), tokenLogP, logP, fate};
}

// Step 1: A and B kept, C D E pruned. Step 2: A → F finishes, A → G and A → I kept, B's two
// candidates and A → K pruned (so B is a dead branch). Step 3: G → L finishes, I → M kept, G → N,
// I → O and G → P pruned.
std::vector<std::vector<BeamTreeNode>> search() {
    return {
        {node(0, -1, 1, "A", -0.5, -0.5, Fate::Kept), node(1, -1, 1, "B", -0.9, -0.9, Fate::Kept),
         node(2, -1, 1, "C", -1.6, -1.6, Fate::Pruned),
         node(3, -1, 1, "D", -2.0, -2.0, Fate::Pruned),
         node(4, -1, 1, "E", -2.5, -2.5, Fate::Pruned)},
        {node(5, 0, 2, "F", -0.3, -0.8, Fate::Finished), node(6, 0, 2, "G", -0.7, -1.2, Fate::Kept),
         node(7, 0, 2, "I", -0.8, -1.3, Fate::Kept), node(8, 1, 2, "H", -0.5, -1.4, Fate::Pruned),
         node(9, 1, 2, "J", -0.6, -1.5, Fate::Pruned),
         node(10, 0, 2, "K", -1.1, -1.6, Fate::Pruned)},
        {node(11, 6, 3, "L", -0.3, -1.5, Fate::Finished),
         node(12, 7, 3, "M", -0.3, -1.6, Fate::Kept), node(13, 6, 3, "N", -0.5, -1.7, Fate::Pruned),
         node(14, 7, 3, "O", -0.6, -1.9, Fate::Pruned),
         node(15, 6, 3, "P", -0.9, -2.1, Fate::Pruned)}};
}

bool near(QColor a, QColor b) {
    return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) +
               std::abs(a.blue() - b.blue()) <=
           12;
}

}  // namespace

class TestWidgetBeamTree : public QObject {
    Q_OBJECT

  private slots:
    void drawsTheBestPrunedCandidatesOfEachBeam() {
        BeamTreeWidget tree;
        for (const auto& step : search())
            tree.appendStep(step);
        QCOMPARE(tree.nodeCount(), 16);
        QCOMPARE(tree.steps(), 3);
        // Two pruned per beam by default: C and D of the prompt's, not E; both of G's.
        QVERIFY(tree.nodeRect(2) && tree.nodeRect(3) && !tree.nodeRect(4));
        QVERIFY(tree.nodeRect(13) && tree.nodeRect(15));
        tree.setPrunedPerParent(1);  // the more probable: N of G's, C of the prompt's
        QVERIFY(tree.nodeRect(13) && !tree.nodeRect(15));
        QVERIFY(tree.nodeRect(2) && !tree.nodeRect(3));
        tree.setPrunedPerParent(0);
        for (const int pruned : {2, 3, 4, 8, 9, 10, 13, 14, 15})
            QVERIFY(!tree.nodeRect(pruned));
        for (const int drawn : {0, 1, 5, 6, 7, 11, 12})
            QVERIFY(tree.nodeRect(drawn));
        tree.setPrunedPerParent(8);
        for (int id = 0; id < tree.nodeCount(); ++id)
            QVERIFY(tree.nodeRect(id));
    }

    void childrenSitRightOfTheirParentAndBetweenEachOther() {
        BeamTreeWidget tree;
        tree.setPrunedPerParent(8);
        for (const auto& step : search())
            tree.appendStep(step);
        for (int id = 0; id < tree.nodeCount(); ++id) {
            const QRectF r = *tree.nodeRect(id);
            QVERIFY(tree.rect().contains(r.toAlignedRect()));
            for (int other = id + 1; other < tree.nodeCount(); ++other)
                QVERIFY(!r.intersects(*tree.nodeRect(other)));
            const int parent = tree.node(id).parent;
            if (parent >= 0)
                QVERIFY(r.left() > tree.nodeRect(parent)->right());
            double top = 1e9, bottom = -1e9;
            for (int child = 0; child < tree.nodeCount(); ++child) {
                if (tree.node(child).parent == id) {
                    top = std::min(top, tree.nodeRect(child)->center().y());
                    bottom = std::max(bottom, tree.nodeRect(child)->center().y());
                }
            }
            if (top <= bottom)
                QVERIFY(r.center().y() >= top && r.center().y() <= bottom);
        }
        QVERIFY(tree.sizeHint().width() > 3 * 100);
        QVERIFY(tree.sizeHint().height() >= 12 * 22);  // a row for each of the 12 leaves
    }

    void deadBranchesAreDimmedAndTheWinnerIsHighlighted() {
        BeamTreeWidget tree;
        tree.resize(800, 600);
        for (const auto& step : search())
            tree.appendStep(step);
        for (const int dim : {1, 2, 3, 8, 9, 10, 13, 14})
            QVERIFY2(tree.dimmed(dim), qPrintable(QString::number(dim)));
        for (const int lit : {0, 5, 6, 7, 11, 12})  // lead to a finished or a live beam
            QVERIFY2(!tree.dimmed(lit), qPrintable(QString::number(lit)));
        QCOMPARE(tree.winner(), -1);
        tree.setWinner(11);
        for (const int on : {11, 6, 0})
            QVERIFY(tree.onWinningPath(on));
        for (const int off : {5, 7, 12, 1})
            QVERIFY(!tree.onWinningPath(off));

        const QImage image = tree.grab().toImage();
        const auto insideLeft = [&](int id) {
            const QRectF r = *tree.nodeRect(id);
            return image.pixelColor(int(r.left()) + 6, int(r.center().y()));
        };
        QVERIFY(near(insideLeft(11), tree.fillOf(11)));
        QVERIFY(near(insideLeft(1), tree.fillOf(1)));
        QVERIFY(near(insideLeft(5), tree.fillOf(5)));
        QVERIFY(!near(tree.fillOf(11), tree.fillOf(1)));  // winner, dimmed, finished all differ
        QVERIFY(!near(tree.fillOf(5), tree.fillOf(1)));
        QVERIFY(!near(tree.fillOf(5), tree.fillOf(11)));
        // The edge from A to G is orange (the winning path); from A to I it is not.
        const auto edgeMiddle = [&](int id) {
            const QRectF child = *tree.nodeRect(id);
            const QRectF parent = *tree.nodeRect(tree.node(id).parent);
            return image.pixelColor(int((parent.right() + child.left()) / 2),
                                    int((parent.center().y() + child.center().y()) / 2));
        };
        const QColor winning = edgeMiddle(6), other = edgeMiddle(7);
        QVERIFY2(winning.red() > 200 && winning.blue() < 80, qPrintable(winning.name()));
        QVERIFY2(!(other.red() > 200 && other.blue() < 80), qPrintable(other.name()));
    }

    void tooltipsAndHitsNameTheNode() {
        BeamTreeWidget tree;
        for (const auto& step : search())
            tree.appendStep(step);
        QCOMPARE(tree.nodeAt(tree.nodeRect(6)->center()), 6);
        QCOMPARE(tree.nodeAt(QPointF(-5, -5)), -1);
        const QString kept = tree.toolTipFor(6);
        QVERIFY2(kept.contains(QStringLiteral("“G” at step 2")), qPrintable(kept));
        QVERIFY(kept.contains(QStringLiteral("-0.700")));  // its token's log p
        QVERIFY(kept.contains(QStringLiteral("-1.200")));  // cumulative
        QVERIFY(kept.contains(QStringLiteral("2 of its continuations pruned")));
        QVERIFY(tree.toolTipFor(5).contains(QStringLiteral("stop token")));
        QVERIFY(tree.toolTipFor(2).contains(QStringLiteral("pruned")));
    }

    void inconsistentNodesAreIgnored() {
        BeamTreeWidget tree;
        tree.appendStep(search()[0]);
        // A skipped id, a parent that was pruned, a parent that does not exist yet.
        tree.appendStep({node(7, 0, 2, "x", -1, -1.5, Fate::Kept)});
        tree.appendStep({node(5, 2, 2, "y", -1, -2.6, Fate::Kept)});
        tree.appendStep({node(5, 9, 2, "z", -1, -2.6, Fate::Kept)});
        QCOMPARE(tree.nodeCount(), 5);
        tree.setWinner(42);
        QCOMPARE(tree.winner(), -1);
        tree.clear();
        QCOMPARE(tree.nodeCount(), 0);
        QCOMPARE(tree.steps(), 0);
        QCOMPARE(tree.nodeAt(QPointF(20, 15)), -1);
    }
};

QTEST_MAIN(TestWidgetBeamTree)
#include "test_widget_beam_tree.moc"
