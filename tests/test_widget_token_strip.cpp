// The token strip: chips for every token with visible whitespace, distinct colours for special,
// byte-fallback and generated tokens, tooltips with id and bytes, selection by click, and a cached
// flow layout that grows one chip at a time and answers a scroll area's height-for-width.

#include <QApplication>
#include <QScrollArea>
#include <QSignalSpy>
#include <QTest>

#include "token_strip_widget.h"

using namespace inferlens::widgets;

namespace {

TokenChip chip(int id, const QString& piece, const QByteArray& bytes, bool special = false,
               bool byteFallback = false, bool generated = false) {
    return TokenChip{id, piece, bytes, special, byteFallback, generated};
}

std::vector<TokenChip> sampleTokens() {
    return {chip(64790, "[gMASK]", {}, true),
            chip(64792, "sop", {}, true),
            chip(30910, "\u2581a", " a"),
            chip(13, "<0x0A>", "\n", false, true),
            chip(36474, "\u4F60\u597D", "\xE4\xBD\xA0\xE5\xA5\xBD"),
            chip(231, "<0xE4>", "\xE4", false, true, true),
            chip(30930, "\u2581b", " b", false, false, true),
            chip(9, "\t", "\t", false, false, true)};
}

QColor pixelAt(QWidget& widget, QPoint point) {
    return widget.grab().toImage().pixelColor(point);
}

// A point inside a chip's padding: its fill, away from the border and the text.
QPoint fillPoint(const QRect& chip) {
    return {chip.left() + 3, chip.center().y()};
}

}  // namespace

class TestWidgetTokenStrip : public QObject {
    Q_OBJECT
  private slots:
    void countsAppendsAndClears() {
        TokenStripWidget strip;
        QCOMPARE(strip.tokenCount(), 0);
        strip.setTokens(sampleTokens());
        QCOMPARE(strip.tokenCount(), 8);
        strip.appendToken(chip(42, "\u2581c", " c", false, false, true));
        QCOMPARE(strip.tokenCount(), 9);
        QCOMPARE(strip.token(8).id, 42);
        strip.clear();
        QCOMPARE(strip.tokenCount(), 0);
        QVERIFY(strip.chipRect(0).isNull());
    }

    void whitespaceIsVisible() {
        TokenStripWidget strip;
        strip.setTokens(sampleTokens());
        QVERIFY(strip.chipText(2).contains(QChar(0x2423)));  // " a" → "␣a"
        QCOMPARE(strip.chipText(2), QString("\u2423a"));
        QCOMPARE(strip.chipText(3), QString("\u21B5"));  // newline
        QCOMPARE(strip.chipText(7), QString("\u2192"));  // tab
        QCOMPARE(strip.chipText(4), QString("\u4F60\u597D"));
        // Specials show their name; half a UTF-8 character shows the byte piece.
        QCOMPARE(strip.chipText(0), QString("[gMASK]"));
        QCOMPARE(strip.chipText(5), QString("<0xE4>"));
    }

    void tooltipHasIdPieceAndHexBytes() {
        TokenStripWidget strip;
        strip.setTokens(sampleTokens());
        const QString tip = strip.chipToolTip(4);
        QVERIFY2(tip.contains("36474"), qPrintable(tip));
        QVERIFY2(tip.contains("E4 BD A0 E5 A5 BD"), qPrintable(tip));
        QVERIFY2(tip.contains("\u4F60\u597D"), qPrintable(tip));
        QVERIFY(strip.chipToolTip(5).contains(QStringLiteral("byte fallback")));
        QVERIFY(strip.chipToolTip(0).contains(QStringLiteral("special")));
        QVERIFY(strip.chipToolTip(99).isEmpty());
    }

    void clickSelectsAPosition() {
        TokenStripWidget strip;
        strip.resize(300, 200);
        strip.setTokens(sampleTokens());
        QSignalSpy spy(&strip, &TokenStripWidget::positionSelected);
        QTest::mouseClick(&strip, Qt::LeftButton, {}, strip.chipRect(4).center());
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toInt(), 4);
        QCOMPARE(strip.selectedPosition(), 4);
        // Between chips nothing is selected and nothing is emitted.
        QTest::mouseClick(&strip, Qt::LeftButton, {}, QPoint(299, 199));
        QCOMPARE(spy.count(), 1);
        // Selecting from the app highlights without echoing a signal.
        strip.setSelectedPosition(1);
        QCOMPARE(strip.selectedPosition(), 1);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(strip.chipAt(strip.chipRect(6).center()), 6);
    }

    void kindsHaveDistinctColours() {
        TokenStripWidget strip;
        strip.resize(600, 100);
        strip.setTokens(sampleTokens());
        const QImage image = strip.grab().toImage();
        auto fill = [&](int position) {
            return image.pixelColor(fillPoint(strip.chipRect(position)));
        };
        const QColor special = fill(0), prompt = fill(2), byteFallback = fill(3),
                     generated = fill(6);
        QCOMPARE(fill(1), special);
        QVERIFY(special != prompt);
        QVERIFY(byteFallback != prompt);
        QVERIFY(byteFallback != special);
        QVERIFY(generated != prompt);
        QVERIFY(generated != special);
        // Selection outlines the chip in the highlight colour.
        const QRect rect = strip.chipRect(2);
        const QColor before = image.pixelColor(rect.left(), rect.center().y());
        strip.setSelectedPosition(2);
        QVERIFY(pixelAt(strip, QPoint(rect.left(), rect.center().y())) != before);
    }

    void flowWrapsAndGrowsIncrementally() {
        std::vector<TokenChip> tokens;
        for (int i = 0; i < 3000; ++i) {
            tokens.push_back(
                chip(i, QString("w%1").arg(i), QByteArray(" w") + QByteArray::number(i)));
        }
        TokenStripWidget whole, appended;
        whole.resize(320, 100);
        appended.resize(320, 100);
        whole.setTokens(tokens);
        for (const TokenChip& token : tokens) {
            appended.appendToken(token);
        }
        // Appending one chip at a time lays out exactly as laying out everything at once.
        for (int position : {0, 1, 17, 1500, 2999}) {
            QCOMPARE(appended.chipRect(position), whole.chipRect(position));
        }
        const QRect first = whole.chipRect(0), last = whole.chipRect(2999);
        QVERIFY(last.top() > first.bottom());  // it wrapped
        for (int position = 0; position < 3000; position += 37) {
            QVERIFY(whole.chipRect(position).right() < 320);
        }
        QCOMPARE(whole.heightForWidth(320), last.bottom() + 1 + 4);
        QVERIFY(whole.heightForWidth(160) > whole.heightForWidth(320));
        QVERIFY(whole.heightForWidth(1000) < whole.heightForWidth(320));
        // Relayout at another width keeps every chip inside.
        whole.resize(200, 100);
        QVERIFY(whole.chipRect(2999).right() < 200);
        QVERIFY(whole.chipRect(2999).top() > last.top());
    }

    void worksInAScrollArea() {
        QScrollArea area;
        area.resize(240, 120);
        auto* strip = new TokenStripWidget;
        area.setWidget(strip);
        area.setWidgetResizable(true);
        area.show();
        QVERIFY(QTest::qWaitForWindowExposed(&area));
        for (int i = 0; i < 400; ++i) {
            strip->appendToken(
                chip(i, QString("t%1").arg(i), QByteArray(" t") + QByteArray::number(i)));
        }
        QTRY_VERIFY(strip->height() > area.viewport()->height());
        QCOMPARE(strip->width(), area.viewport()->width());
        QCOMPARE(strip->height(), strip->heightForWidth(strip->width()));
    }
};

QTEST_MAIN(TestWidgetTokenStrip)
#include "test_widget_token_strip.moc"
