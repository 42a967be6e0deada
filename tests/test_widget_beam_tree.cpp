// The beam tree panel on a hand-made search of width 2 over three steps: which nodes are drawn
// (pruned candidates per beam), the layout (children right of their parent, a parent between its
// children, no boxes overlapping), which branches are dimmed (pruned, and a beam all of whose
// continuations were pruned), the winning path in the picture, and input that would make the tree
// inconsistent being ignored.

#include <QImage>
#include <QTest>

#include "beam_tree_widget.h"
#include "layout_checks.h"

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

// A search of `width` beams over `steps` steps, each beam weighing 2 × width candidates; the best
// `width` go on, one finishes at every fifth step, the rest are pruned. Token labels of 1 to 13
// characters, Chinese among them.
std::vector<std::vector<BeamTreeNode>> wideSearch(int width, int steps) {
    const QStringList labels{"春", "晓",    " spring", "。", "<|assistant|>", "花落知多少",
                             "↵",  " Meng", "haoran",  "1",  " tomorrow",     "夜来风雨声"};
    std::vector<std::vector<BeamTreeNode>> search;
    std::vector<std::pair<int, double>> beams{{-1, 0.0}};  // (node, cumulative log p)
    int next = 0;
    for (int step = 1; step <= steps; ++step) {
        struct Candidate {
            int parent;
            double tokenLogP, logP;
            QString label;
        };
        std::vector<Candidate> candidates;
        for (size_t b = 0; b < beams.size(); ++b) {
            for (int k = 0; k < 2 * width; ++k) {
                const double tokenLogP = -0.15 * (k + 1) - 0.07 * double(b) - 0.01 * step;
                candidates.push_back({beams[b].first, tokenLogP, beams[b].second + tokenLogP,
                                      labels[(step * 5 + int(b) * 3 + k) % labels.size()]});
            }
        }
        std::stable_sort(candidates.begin(), candidates.end(),
                         [](const Candidate& a, const Candidate& b) { return a.logP > b.logP; });
        // Nodes go in parent order (ids must grow), with their fates decided by rank.
        std::vector<std::pair<size_t, Fate>> fates;
        for (size_t i = 0; i < candidates.size(); ++i)
            fates.emplace_back(i, i < size_t(width)
                                      ? (step % 5 == 0 && i == 0 ? Fate::Finished : Fate::Kept)
                                      : Fate::Pruned);
        std::stable_sort(fates.begin(), fates.end(), [&](const auto& a, const auto& b) {
            return candidates[a.first].parent < candidates[b.first].parent;
        });
        std::vector<BeamTreeNode> nodes;
        std::vector<std::pair<int, double>> kept;
        for (const auto& [i, fate] : fates) {
            const Candidate& c = candidates[i];
            nodes.push_back({next, c.parent, step, c.label, c.tokenLogP, c.logP, fate});
            if (fate == Fate::Kept)
                kept.emplace_back(next, c.logP);
            ++next;
        }
        search.push_back(std::move(nodes));
        beams = std::move(kept);
    }
    return search;
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

    // 4 beams over 12 steps: no text of the tree overprints another or leaves the widget, each
    // box's token stays in its box, at the widget's own size and in a larger viewport.
    void textsNeverOverprint_data() {
        QTest::addColumn<int>("pruned");
        QTest::addColumn<int>("pointSize");
        for (const int pruned : {0, 2, 8})
            for (const int pointSize : {7, 9, 13})
                QTest::addRow("%d pruned per beam, %dpt", pruned, pointSize) << pruned << pointSize;
    }

    void textsNeverOverprint() {
        QFETCH(int, pruned);
        QFETCH(int, pointSize);
        BeamTreeWidget tree;
        QFont font = tree.font();
        font.setPointSize(pointSize);
        tree.setFont(font);
        tree.setPrunedPerParent(pruned);
        const auto search = wideSearch(4, 12);
        for (const auto& step : search)
            tree.appendStep(step);
        tree.setWinner(search.back().front().id);
        QCOMPARE(tree.steps(), 12);
        for (const QSize extra : {QSize(0, 0), QSize(300, 200)}) {
            tree.resize(tree.sizeHint() + extra);
            const DrawnTexts texts = tree.drawnTexts();
            QVERIFY(texts.size() > size_t(4 * 12));
            const QStringList problems =
                layout_checks::problems(texts, tree.rect(), {tree.dataArea()});
            QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
            QVERIFY(tree.rect().contains(tree.dataArea()));
        }
        // A box's token lies within its box.
        for (int id = 0; id < tree.nodeCount(); ++id) {
            const std::optional<QRectF> box = tree.nodeRect(id);
            if (!box)
                continue;
            const QString shown = QFontMetrics(font).elidedText(tree.node(id).label, Qt::ElideRight,
                                                                int(box->width()) - 8);
            const DrawnTexts texts = tree.drawnTexts();
            QVERIFY(std::any_of(texts.begin(), texts.end(), [&](const DrawnText& t) {
                return t.text == shown && box->contains(t.rect);
            }));
        }
    }
};

QTEST_MAIN(TestWidgetBeamTree)
#include "test_widget_beam_tree.moc"
