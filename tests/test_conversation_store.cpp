// The autosaved conversation: a round trip, what a crash mid-save can leave (the old file or the
// new one, never half), and a file that cannot be read — set aside, reported, never overwritten;
// the app tells the user on start.

#include <QDir>
#include <QFile>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "conversation_store.h"
#include "main_window.h"

using namespace inferlens::gui;

class TestConversationStore : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void aConversationComesBackAsItWasSaved() {
        QTemporaryDir dir;
        const ConversationStore store(dir.filePath("c.json"));
        QVERIFY(store.load().turns.isEmpty());
        QVERIFY(store.load().problem.isEmpty());
        const QList<ChatTurn> turns{{true, "你好\n<|user|>"}, {false, "Hello — \"quoted\""}};
        QCOMPARE(store.save(turns), QString());
        const ConversationStore::Loaded loaded = store.load();
        QVERIFY(loaded.problem.isEmpty());
        QCOMPARE(loaded.turns.size(), 2);
        QCOMPARE(loaded.turns[0].text, turns[0].text);
        QVERIFY(loaded.turns[0].user && !loaded.turns[1].user);
        // Written by rename: nothing else is left in the directory.
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"c.json"});
    }

    void anUnreadableFileIsSetAsideReportedAndNeverOverwritten() {
        QTemporaryDir dir;
        const QString path = dir.filePath("c.json");
        for (const QByteArray& bad :
             {QByteArray("{\"version\":1,\"turns\":[{\"role\":\"us"),
              QByteArray("\xff\xfe garbage"), QByteArray("{\"version\":99,\"turns\":[]}"),
              QByteArray("{\"version\":1,\"turns\":[{\"text\":1}]}")}) {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(bad);
            file.close();
            const ConversationStore store(path);
            const ConversationStore::Loaded loaded = store.load();
            QVERIFY(loaded.turns.isEmpty());
            QVERIFY2(loaded.problem.contains("could not be read"), qPrintable(loaded.problem));
            QVERIFY(!QFile::exists(path));
            const QStringList aside =
                QDir(dir.path()).entryList({"c.unreadable-*.json"}, QDir::Files);
            QVERIFY(!aside.isEmpty());
            QFile kept(dir.filePath(aside.last()));
            QVERIFY(kept.open(QIODevice::ReadOnly));
            QCOMPARE(kept.readAll(), bad);  // kept byte for byte
            QDir(dir.path()).remove(aside.last());
        }
        // A file that is unreadable where it stands is not replaced by a save.
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("not json");
        file.close();
        QVERIFY(!ConversationStore(path).save({{true, "new"}}).isEmpty());
        QFile still(path);
        QVERIFY(still.open(QIODevice::ReadOnly));
        QCOMPARE(still.readAll(), QByteArray("not json"));
    }

    void theAppTellsTheUserAboutAnUnreadableConversation() {
        QSettings().clear();
        const ConversationStore store;
        QDir().mkpath(QFileInfo(store.path()).absolutePath());
        QFile file(store.path());
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{broken");
        file.close();
        StartupOptions options;
        options.model = QStringLiteral(INFERLENS_BUNDLED_MODEL);
        MainWindow window(options);
        QVERIFY(QTest::qWaitFor([&] { return window.modelReady(); }, 60000));
        auto* box = window.findChild<QMessageBox*>("conversationProblem");
        QVERIFY(box != nullptr);
        QVERIFY(box->text().contains("could not be read"));
        QVERIFY(!QFile::exists(store.path()));
        box->accept();
        // Saving now starts a new, readable file.
        window.close();
        QVERIFY(QFile::exists(store.path()));
        QVERIFY(ConversationStore().load().problem.isEmpty());
        for (const QString& name :
             QDir(QFileInfo(store.path()).absolutePath()).entryList({"conversation.*"}))
            QFile::remove(QFileInfo(store.path()).absolutePath() + "/" + name);
    }
};

QTEST_MAIN(TestConversationStore)
#include "test_conversation_store.moc"
