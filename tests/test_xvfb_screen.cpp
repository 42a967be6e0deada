// The Xvfb harness itself (tests/support/xvfb_run.sh, inferlens_add_xvfb_test): under it a Qt
// application is on the xcb platform and sees the screen it was given, in logical pixels (the
// screen's size divided by the scale factor), with that scale as its device pixel ratio. The
// layout tests measure panels against this screen, so they are only as good as this.

#include <QApplication>
#include <QScreen>
#include <QTest>
#include <QWidget>

class TestXvfbScreen : public QObject {
    Q_OBJECT

    QSize screen_;  // in device pixels, as Xvfb was started
    double scale_ = 1;

  private slots:
    void initTestCase() {
        const QStringList size = qEnvironmentVariable("INFERLENS_TEST_SCREEN").split('x');
        QVERIFY2(size.size() == 2, "run by inferlens_add_xvfb_test (INFERLENS_TEST_SCREEN=WxH)");
        screen_ = QSize(size[0].toInt(), size[1].toInt());
        QVERIFY(!screen_.isEmpty());
        bool number = false;
        scale_ = qEnvironmentVariable("INFERLENS_TEST_SCALE").toDouble(&number);
        QVERIFY(number && scale_ > 0);
    }

    void theScreenIsTheOneAsked() {
        QCOMPARE(QGuiApplication::platformName(), QStringLiteral("xcb"));
        const QScreen* screen = QGuiApplication::primaryScreen();
        QVERIFY(screen);
        QCOMPARE(screen->size(),
                 QSize(qRound(screen_.width() / scale_), qRound(screen_.height() / scale_)));
        QCOMPARE(screen->devicePixelRatio(), scale_);
    }

    // A window drawn on it has the scale's pixels: what a screenshot of the app would hold.
    void aWindowIsDrawnAtTheScale() {
        QWidget window;
        window.resize(400, 300);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCOMPARE(window.devicePixelRatio(), scale_);
        const QPixmap grab = window.grab();
        QCOMPARE(grab.size(), QSize(qRound(400 * scale_), qRound(300 * scale_)));
    }
};

QTEST_MAIN(TestXvfbScreen)
#include "test_xvfb_screen.moc"
