// The Simplified Chinese translation: it loads from the app's resources and translates, every
// message in translations/inferlens_zh_CN.ts is finished, and lupdate run over today's sources
// finds no string that the committed file lacks (so a new string cannot ship untranslated).

#include <QCoreApplication>
#include <QDomDocument>
#include <QFile>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include "language.h"

namespace {

const QString kTsFile = QStringLiteral(INFERLENS_SOURCE_DIR "/translations/inferlens_zh_CN.ts");

struct Message {
    QString context, source, translation;
    bool unfinished = false;
};

QList<Message> readTs(const QString& path) {
    QFile file(path);
    QDomDocument document;
    if (!file.open(QIODevice::ReadOnly) || !document.setContent(&file))
        return {};
    QList<Message> messages;
    const QDomNodeList contexts = document.elementsByTagName("context");
    for (int c = 0; c < contexts.size(); ++c) {
        const QDomElement context = contexts.at(c).toElement();
        const QString name = context.firstChildElement("name").text();
        for (QDomElement m = context.firstChildElement("message"); !m.isNull();
             m = m.nextSiblingElement("message")) {
            const QDomElement translation = m.firstChildElement("translation");
            messages.append({name, m.firstChildElement("source").text(), translation.text(),
                             translation.attribute("type") == "unfinished"});
        }
    }
    return messages;
}

}  // namespace

class TestTranslations : public QObject {
    Q_OBJECT

  private slots:
    void chineseLoadsAndTranslates() {
        QCOMPARE(inferlens::gui::installTranslator("zh_CN"), QString("zh_CN"));
        QCOMPARE(QCoreApplication::translate("inferlens::gui::ChatView", "Send"), QString("发送"));
        QCOMPARE(QCoreApplication::translate("inferlens::gui::MainWindow", "Attention"),
                 QString("注意力"));
    }

    void everyMessageIsTranslated() {
        const QList<Message> messages = readTs(kTsFile);
        QVERIFY(messages.size() > 100);
        for (const Message& m : messages) {
            QVERIFY2(!m.unfinished && !m.translation.trimmed().isEmpty(),
                     qPrintable(m.context + ": " + m.source));
        }
    }

    void theTranslationCoversTodaysSources() {
        QTemporaryDir dir;
        const QString fresh = dir.filePath("fresh_zh_CN.ts");
        QProcess lupdate;
        lupdate.setWorkingDirectory(QStringLiteral(INFERLENS_SOURCE_DIR));
        lupdate.start(QStringLiteral(INFERLENS_LUPDATE),
                      {"-silent", "-no-obsolete", "-locations", "none", "-I", "widgets", "-I",
                       "app/gui", "app/gui", "widgets", "-ts", fresh});
        QVERIFY(lupdate.waitForFinished(120000));
        QCOMPARE(lupdate.exitCode(), 0);
        QSet<QString> committed;
        for (const Message& m : readTs(kTsFile))
            committed.insert(m.context + '\n' + m.source);
        const QList<Message> current = readTs(fresh);
        QVERIFY(current.size() > 100);
        for (const Message& m : current)
            QVERIFY2(committed.contains(m.context + '\n' + m.source),
                     qPrintable("not in the .ts (run tools/update_translations.py): " + m.context +
                                ": " + m.source));
    }
};

QTEST_GUILESS_MAIN(TestTranslations)
#include "test_translations.moc"
