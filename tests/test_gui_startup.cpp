// The real `inferlens` binary started where no display is: --help and --version answer, a window
// that cannot open is a clear message and exit 1 (not Qt's abort), and invalid --workspace and
// --window-size values are refused with exit 2 before any window is needed.

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct Run {
    int exitCode = -1;
    bool crashed = false;
    QString out, err;
};

class TestGuiStartup : public QObject {
    Q_OBJECT

    QTemporaryDir home_;

    // No display of any kind, a fresh home (no saved language), English messages.
    QProcessEnvironment headless() const {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
            environment.remove(QString::fromLatin1(name));
        environment.insert("HOME", home_.path());
        environment.insert("XDG_CONFIG_HOME", home_.filePath("config"));
        environment.insert("LC_ALL", "C.UTF-8");
        environment.insert("LANGUAGE", "en");
        return environment;
    }

    Run run(const QStringList& arguments, const QProcessEnvironment& environment) const {
        QProcess process;
        process.setProcessEnvironment(environment);
        process.start(QStringLiteral(INFERLENS_GUI_PATH), arguments);
        Run result;
        if (!process.waitForFinished(60000)) {
            process.kill();
            process.waitForFinished();
            result.crashed = true;
            result.err = QStringLiteral("did not finish in 60 s");
            return result;
        }
        result.exitCode = process.exitCode();
        result.crashed = process.exitStatus() != QProcess::NormalExit;
        result.out = QString::fromUtf8(process.readAllStandardOutput());
        result.err = QString::fromUtf8(process.readAllStandardError());
        return result;
    }

  private slots:
    void initTestCase() { QVERIFY(home_.isValid()); }

    void helpNeedsNoDisplay_data() {
        QTest::addColumn<QString>("switch_");
        QTest::newRow("--help") << "--help";
        QTest::newRow("-h") << "-h";
        QTest::newRow("--help-all") << "--help-all";
    }
    void helpNeedsNoDisplay() {
        QFETCH(QString, switch_);
        const Run r = run({switch_}, headless());
        QVERIFY2(!r.crashed, qPrintable(r.err));
        QCOMPARE(r.exitCode, 0);
        for (const char* option : {"--workspace", "--window-size", "--ask", "--screenshot"})
            QVERIFY2(r.out.contains(QLatin1String(option)), qPrintable(option + r.out));
        QVERIFY(!r.out.contains(QLatin1String("1600")));  // the screenshot is the window's size
    }

    // Qt's own switches (-platform) are not mistaken for ours, nor refused, before QApplication.
    void versionNeedsNoDisplay_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::newRow("--version") << QStringList{"--version"};
        QTest::newRow("-v") << QStringList{"-v"};
        QTest::newRow("-platform offscreen --version")
            << QStringList{"-platform", "offscreen", "--version"};
        QTest::newRow("-reverse --version") << QStringList{"-reverse", "--version"};
    }
    void versionNeedsNoDisplay() {
        QFETCH(QStringList, arguments);
        const Run r = run(arguments, headless());
        QVERIFY2(!r.crashed, qPrintable(r.err));
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out.trimmed(), QStringLiteral("InferLens " INFERLENS_VERSION));
    }

    // Valid values pass the checks and reach the display check.
    void noDisplayIsAClearMessage_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::newRow("no switches") << QStringList{};
        QTest::newRow("valid values") << QStringList{
            "--workspace", "Sampling", "--window-size", "1366x768", "--ask", "《春晓》是谁写的？"};
    }
    void noDisplayIsAClearMessage() {
        QFETCH(QStringList, arguments);
        const Run r = run(arguments, headless());
        QVERIFY2(!r.crashed, qPrintable(r.err));
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QLatin1String("no display")), qPrintable(r.err));
        QVERIFY(r.err.contains(QLatin1String("DISPLAY")));
        QVERIFY(r.err.contains(QLatin1String("QT_QPA_PLATFORM=offscreen")));
        QVERIFY(r.err.contains(QLatin1String("inferlens-cli")));
    }

    void badWorkspaceIsRefused_data() {
        QTest::addColumn<bool>("offscreen");
        QTest::newRow("no display") << false;
        QTest::newRow("offscreen") << true;
    }
    void badWorkspaceIsRefused() {
        QFETCH(bool, offscreen);
        QProcessEnvironment environment = headless();
        if (offscreen)
            environment.insert("QT_QPA_PLATFORM", "offscreen");
        const Run r = run({"--workspace", "kitchen", "--quit-after-generation"}, environment);
        QVERIFY2(!r.crashed, qPrintable(r.err));
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QLatin1String("'kitchen'")), qPrintable(r.err));
        for (const char* choice : {"chat", "sampling", "attention", "teaching"})
            QVERIFY2(r.err.contains(QLatin1String(choice)), qPrintable(r.err));
    }

    void badWindowSizeIsRefused_data() {
        QTest::addColumn<QString>("size");
        QTest::addColumn<bool>("offscreen");
        for (const char* size :
             {"1366", "wide", "1366x", "10x10", "0x768", "99999x768", "-1366x768", "1366x768x2"}) {
            QTest::newRow(size) << QString::fromLatin1(size) << false;
            QTest::addRow("%s offscreen", size) << QString::fromLatin1(size) << true;
        }
    }
    void badWindowSizeIsRefused() {
        QFETCH(QString, size);
        QFETCH(bool, offscreen);
        QProcessEnvironment environment = headless();
        if (offscreen)
            environment.insert("QT_QPA_PLATFORM", "offscreen");
        const Run r =
            run({QStringLiteral("--window-size=") + size, "--quit-after-generation"}, environment);
        QVERIFY2(!r.crashed, qPrintable(r.err));
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QLatin1String("--window-size")), qPrintable(r.err));
        QVERIFY(r.err.contains(size));
    }
};

}  // namespace

QTEST_GUILESS_MAIN(TestGuiStartup)
#include "test_gui_startup.moc"
