// How tokens read on chips, axes and sampling bars: sentencepiece pieces ("▁" as a space) and
// byte-level BPE pieces (GPT-2's byte alphabet: "Ġ" a space, "Ċ" a newline), whitespace made
// visible, part characters as hex. Expected strings follow from GPT-2's published table (printable
// Latin-1 bytes spell themselves, the other 68 bytes take U+0100 onwards in byte order).

#include <QTest>

#include "display_text.h"

using namespace inferlens::widgets;

class TestWidgetDisplayText : public QObject {
    Q_OBJECT

  private slots:
    void pieceBytes_data() {
        QTest::addColumn<QString>("piece");
        QTest::addColumn<QByteArray>("bytes");
        QTest::newRow("byte-level space")
            << QString::fromUtf8("\u0120world") << QByteArray(" world");
        QTest::newRow("byte-level newline") << QString::fromUtf8("\u010A") << QByteArray("\n");
        QTest::newRow("byte-level tab and space")
            << QString::fromUtf8("\u0109\u0120") << QByteArray("\t ");
        QTest::newRow("byte-level Chinese")
            << QString::fromUtf8("\u00E5\u00A5\u00BD") << QByteArray("\xE5\xA5\xBD");
        QTest::newRow("sentencepiece space")
            << QString::fromUtf8("\u2581the") << QByteArray(" the");
        QTest::newRow("sentencepiece Latin-1")
            << QString::fromUtf8("\u00E9") << QByteArray("\xC3\xA9");
        QTest::newRow("plain ASCII") << QString("Hello") << QByteArray("Hello");
    }

    void pieceBytes() {
        QFETCH(QString, piece);
        QFETCH(QByteArray, bytes);
        QCOMPARE(inferlens::widgets::pieceBytes(piece), bytes);
    }

    void tokenDisplayText_data() {
        QTest::addColumn<QString>("piece");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<bool>("special");
        QTest::addColumn<QString>("shown");
        QTest::newRow("byte-level word, bytes given")
            << QString::fromUtf8("\u0120world") << QByteArray(" world") << false
            << QString::fromUtf8("\u2423world");
        QTest::newRow("byte-level word, label only")
            << QString::fromUtf8("\u0120world") << QByteArray() << false
            << QString::fromUtf8("\u2423world");
        QTest::newRow("byte-level newline label")
            << QString::fromUtf8("\u010A\u010A") << QByteArray() << false
            << QString::fromUtf8("\u21B5\u21B5");
        QTest::newRow("byte-level part of a character")
            << QString::fromUtf8("\u00E4\u00BD") << QByteArray("\xE4\xBD") << false
            << QString("<E4 BD>");
        QTest::newRow("sentencepiece byte fallback")
            << QString("<0xE4>") << QByteArray("\xE4") << false << QString("<0xE4>");
        QTest::newRow("special") << QString("<|im_start|>") << QByteArray() << true
                                 << QString("<|im_start|>");
    }

    void tokenDisplayText() {
        QFETCH(QString, piece);
        QFETCH(QByteArray, bytes);
        QFETCH(bool, special);
        QFETCH(QString, shown);
        QCOMPARE(inferlens::widgets::tokenDisplayText(piece, bytes, special), shown);
    }
};

QTEST_APPLESS_MAIN(TestWidgetDisplayText)
#include "test_widget_display_text.moc"
