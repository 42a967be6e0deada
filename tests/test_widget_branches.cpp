// The what-if branches panel: a new branch is selected and shown beside the branch it departed
// from; tokens carry their probability, the forced token is marked and the shared prefix greyed;
// a growing branch updates its view.

#include <QTest>

#include "branch_compare_widget.h"
#include "layout_checks.h"

using namespace inferlens::widgets;

namespace {

BranchRecord branch(const QString& title, int parent, int divergeAt,
                    const std::vector<std::pair<QString, float>>& tokens, int forced = -1) {
    BranchRecord record{title, parent, divergeAt, {}};
    for (size_t i = 0; i < tokens.size(); ++i)
        record.tokens.push_back({tokens[i].first, tokens[i].second, int(i) == forced});
    return record;
}

}  // namespace

class TestWidgetBranches : public QObject {
    Q_OBJECT
  private slots:
    void aBranchIsShownBesideItsParent() {
        BranchCompareWidget widget;
        QCOMPARE(widget.compared(), std::make_pair(-1, -1));
        const int original =
            widget.addBranch(branch("original", -1, 0, {{"床前", 0.9f}, {"明月", 0.8f}}));
        QCOMPARE(original, 0);
        QCOMPARE(widget.compared(), std::make_pair(0, -1));
        const int forced = widget.addBranch(
            branch("forced “白” at 1", 0, 1, {{"床前", 0.9f}, {"白", 0.05f}, {"日", 0.6f}}, 1));
        QCOMPARE(forced, 1);
        QCOMPARE(widget.branchCount(), 2);
        QCOMPARE(widget.compared(), std::make_pair(1, 0));  // the new one, beside its parent

        const QString html = widget.branchHtml(1);
        QVERIFY(html.contains("白"));
        QVERIFY(html.contains("forced, p = 0.05"));
        QVERIFY(html.contains("text-decoration: underline"));
        QVERIFY(html.contains("color: gray"));  // the shared prefix
        QVERIFY(html.contains("p = 0.6"));
        // The original has nothing forced or shared.
        QVERIFY(!widget.branchHtml(0).contains("underline"));
        QVERIFY(!widget.branchHtml(0).contains("color: gray"));
        // An unlikely token is shaded more strongly than a likely one.
        QVERIFY(html.contains("rgba(230, 120, 40, 211)"));  // p = 0.05
        QVERIFY(html.contains("rgba(230, 120, 40, 112)"));  // p = 0.6

        widget.select(0);
        QCOMPARE(widget.compared(), std::make_pair(0, -1));
    }

    // Three branches of a 60-token answer at every size a dock gives the panel: the list's entries
    // and the answers' paragraphs stay apart and inside the panel, and both answers are shown.
    void textsNeverOverprint_data() { layout_checks::addLayoutSizeRows(); }

    void textsNeverOverprint() {
        QFETCH(QSize, size);
        const QStringList pieces{"床前", "明月光", "，", " the", " moon", "疑是", "地上霜", "。\n"};
        std::vector<std::pair<QString, float>> tokens;
        for (int i = 0; i < 60; ++i)
            tokens.emplace_back(pieces[i % pieces.size()], 0.2f + 0.013f * float(i));
        BranchCompareWidget widget;
        widget.resize(size);
        widget.addBranch(branch(QStringLiteral("original answer"), -1, 0, tokens));
        widget.addBranch(branch(QStringLiteral("forced “ the” at token 4"), 0, 4, tokens, 4));
        widget.addBranch(branch(QStringLiteral("forced “疑是” at token 9"), 1, 9, tokens, 9));
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        const DrawnTexts texts = widget.drawnTexts();
        const QStringList problems =
            layout_checks::problems(texts, widget.rect(), {widget.dataArea()});
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
        const auto answers = std::count_if(texts.begin(), texts.end(), [&](const DrawnText& t) {
            return t.kind == DrawnText::Kind::Annotation &&
                   widget.dataArea().contains(t.rect.toRect());
        });
        QVERIFY(answers >= 2);
    }

    void aGrowingBranchUpdates() {
        BranchCompareWidget widget;
        widget.addBranch(branch("original", -1, 0, {{"a", 0.5f}}));
        widget.appendToken(0, {"b", 0.25f, false});
        QCOMPARE(widget.branch(0).tokens.size(), size_t(2));
        QVERIFY(widget.branchHtml(0).contains(">b<"));
        widget.appendToken(5, {"ignored", 1.0f, false});  // no such branch
        QCOMPARE(widget.branchCount(), 1);
        widget.clear();
        QCOMPARE(widget.branchCount(), 0);
    }
};

QTEST_MAIN(TestWidgetBranches)
#include "test_widget_branches.moc"
