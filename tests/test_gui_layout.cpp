// The window on real screens: run in an X server of its own (Xvfb, tests/support/xvfb_run.sh) at
// 1366×768, 1920×1080, and 1920×1080 at scale factors 1.5 and 2, on the bundled model after one
// answer. In every workspace: the window and every dock of the workspace lie on the screen, no
// minimum size pushes the window past it, each plot's texts neither overlap nor leave the plot and
// no legend covers data (measured from the widgets' own layout rectangles), no label or button
// is narrower than its text, and the chat's input is there; the sampling chart in the Sampling
// lab and the heat map in Attention have room (at least 360 × 220 and 300 × 300 px at scale 1).
// Also: what a workspace remembers, Reset layout, a layout saved before workspaces, --workspace,
// and the guided tour switching workspaces.

#include <QAbstractButton>
#include <QDockWidget>
#include <QLabel>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QTest>
#include <QToolButton>

#include "attention_head_grid_widget.h"
#include "attention_heatmap_widget.h"
#include "attention_overview_widget.h"
#include "beam_tree_widget.h"
#include "branch_compare_widget.h"
#include "chat_view.h"
#include "double_loop_grid_widget.h"
#include "eliding_label.h"
#include "kv_cache_chart_widget.h"
#include "kv_experiment_chart_widget.h"
#include "layout_checks.h"
#include "logit_lens_widget.h"
#include "main_window.h"
#include "sampling_chart_widget.h"
#include "support/app_windows.h"
#include "teaching_views.h"
#include "tour_panel.h"
#include "workspace_layouts.h"

using namespace inferlens;
using namespace inferlens::gui;

namespace {

double scaleFactor() {
    return qEnvironmentVariableIsSet("INFERLENS_TEST_SCALE")
               ? qEnvironmentVariable("INFERLENS_TEST_SCALE").toDouble()
               : 1.0;
}

QString where(const QWidget* widget) {
    const QRect r(widget->mapToGlobal(QPoint(0, 0)), widget->size());
    return QStringLiteral("%1 (%2) at %3,%4 %5×%6")
        .arg(QString::fromLatin1(widget->metaObject()->className()), widget->objectName())
        .arg(r.x())
        .arg(r.y())
        .arg(r.width())
        .arg(r.height());
}

// Widgets visible to the person: shown, and not behind another tab.
bool onShow(const QWidget* widget) {
    return widget->isVisible() && !widget->visibleRegion().isEmpty();
}

// A plot of the window with what it drew and its data areas.
struct Plot {
    QWidget* widget;
    std::function<widgets::DrawnTexts()> texts;
    std::function<std::vector<QRect>()> areas;
};

template <typename Widget>
Plot plotOf(Widget* widget) {
    return {widget, [widget] { return widget->drawnTexts(); },
            [widget] { return std::vector<QRect>{widget->dataArea()}; }};
}

std::vector<Plot> plotsOf(MainWindow& window) {
    widgets::SamplingChartWidget* sampling = window.samplingChart();
    return {{sampling, [sampling] { return sampling->drawnTexts(); },
             [sampling] {
                 return std::vector<QRect>{sampling->dataArea(), sampling->historyArea()};
             }},
            plotOf(window.attentionHeatmap()),
            plotOf(window.attentionHeads()),
            plotOf(window.attentionOverview()),
            plotOf(window.loopGrid()),
            plotOf(window.findChild<widgets::KvCacheChartWidget*>()),
            plotOf(window.teaching()->experimentChart()),
            plotOf(window.findChild<widgets::LogitLensWidget*>()),
            plotOf(window.branches()),
            plotOf(window.findChild<widgets::BeamTreeWidget*>())};
}

// Labels and buttons on show that are smaller than what they say: a wrapped label lower than its
// lines at its width, any other narrower or lower than its text. (The model bar's description
// elides on purpose, with the whole in its tooltip; tool buttons overflow into their toolbar's
// menu.)
QStringList clippedTexts(const QWidget& window) {
    QStringList clipped;
    const auto check = [&clipped](const QWidget* widget, const QString& text, QSize needed) {
        if (widget->width() < needed.width() || widget->height() < needed.height())
            clipped << QStringLiteral("\"%1\" clipped: %2, needs %3×%4")
                           .arg(text, where(widget))
                           .arg(needed.width())
                           .arg(needed.height());
    };
    for (const QLabel* label : window.findChildren<QLabel*>()) {
        if (!onShow(label) || label->text().isEmpty() || qobject_cast<const ElidingLabel*>(label))
            continue;
        check(label, label->text(),
              label->wordWrap() ? QSize(0, label->heightForWidth(label->width()))
                                : label->minimumSizeHint());
    }
    for (const QAbstractButton* button : window.findChildren<QAbstractButton*>()) {
        if (onShow(button) && !button->text().isEmpty() &&
            !qobject_cast<const QToolButton*>(button))
            check(button, button->text(), button->minimumSizeHint());
    }
    return clipped;
}

}  // namespace

class TestGuiLayout : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        test::startFresh();
        const QString platform = QGuiApplication::platformName();
        if (platform != QLatin1String("xcb"))
            QSKIP(qPrintable(QStringLiteral("needs a real X server (run by ctest under Xvfb); the "
                                            "platform here is %1")
                                 .arg(platform)));
        qInfo("screen %d×%d (logical), scale %.1f",
              QGuiApplication::primaryScreen()->availableGeometry().width(),
              QGuiApplication::primaryScreen()->availableGeometry().height(), scaleFactor());
    }

    void everyWorkspaceFitsTheScreenAndEveryPlotIsReadable() {
        MainWindow window(test::bundledWindow(40));
        window.showOnScreen();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(test::waitForModel(window));
        QSignalSpy finished(window.worker(), &EngineWorker::generationFinished);
        window.chat()->send(QStringLiteral("Tell me a fortune."));
        QVERIFY(test::waitForSignals(finished, 60000));
        QVERIFY(window.tokensGenerated() > 0);

        const QRect screen = window.screen()->availableGeometry();
        QVERIFY2(window.minimumSizeHint().width() <= screen.width() &&
                     window.minimumSizeHint().height() <= screen.height(),
                 qPrintable(QStringLiteral("the window needs at least %1×%2 on a %3×%4 screen")
                                .arg(window.minimumSizeHint().width())
                                .arg(window.minimumSizeHint().height())
                                .arg(screen.width())
                                .arg(screen.height())));
        for (Workspace workspace : kWorkspaces) {
            window.showWorkspace(workspace);
            QTest::qWait(300);  // the layout's second sizing, once shown, and the replots
            const QString name = workspaceKey(workspace);
            QCOMPARE(window.currentWorkspace(), workspace);
            QVERIFY2(screen.contains(window.frameGeometry()),
                     qPrintable(name + QStringLiteral(": the window leaves the screen")));
            QVERIFY2(window.minimumSizeHint().width() <= screen.width() &&
                         window.minimumSizeHint().height() <= screen.height(),
                     qPrintable(name + QStringLiteral(": a minimum size larger than the screen")));

            const QStringList docks = WorkspaceLayouts::defaultDocks(workspace);
            for (QDockWidget* dock : window.findChildren<QDockWidget*>()) {
                const bool inWorkspace = docks.contains(dock->objectName());
                QCOMPARE(dock->toggleViewAction()->isChecked(), inWorkspace);
                if (!onShow(dock))
                    continue;
                const QRect global(dock->mapToGlobal(QPoint(0, 0)), dock->size());
                QVERIFY2(screen.contains(global),
                         qPrintable(name + QStringLiteral(": off the screen: ") + where(dock)));
                QVERIFY2(dock->width() >= 120 && dock->height() >= 80,
                         qPrintable(name + QStringLiteral(": a sliver: ") + where(dock)));
            }
            // The chat's input: a person can ask in every workspace.
            auto* input = window.chat()->findChild<QWidget*>(QStringLiteral("chatInput"));
            QVERIFY(input != nullptr);
            QVERIFY2(onShow(input) && input->width() >= 200 && input->height() >= 40,
                     qPrintable(name + QStringLiteral(": no room to ask: ") + where(input)));

            for (const Plot& plot : plotsOf(window)) {
                if (!onShow(plot.widget))
                    continue;
                const QStringList problems =
                    layout_checks::problems(plot.texts(), plot.widget->rect(), plot.areas());
                QVERIFY2(problems.isEmpty(),
                         qPrintable(name + QStringLiteral(": ") + where(plot.widget) +
                                    QStringLiteral("\n") + problems.join(QLatin1Char('\n'))));
            }
            const QStringList clipped = clippedTexts(window);
            QVERIFY2(clipped.isEmpty(),
                     qPrintable(name + QStringLiteral(": ") + clipped.join(QLatin1Char('\n'))));

            const QRect chart = window.samplingChart()->dataArea();
            const QRect heatmap = window.attentionHeatmap()->dataArea();
            if (workspace == Workspace::SamplingLab) {
                qInfo("%s: sampling chart data area %d × %d px (history %d × %d)", qPrintable(name),
                      chart.width(), chart.height(), window.samplingChart()->historyArea().width(),
                      window.samplingChart()->historyArea().height());
                if (scaleFactor() == 1.0)
                    QVERIFY2(chart.width() >= 360 && chart.height() >= 220,
                             qPrintable(QStringLiteral("the sampling chart has %1 × %2 px")
                                            .arg(chart.width())
                                            .arg(chart.height())));
                QVERIFY(onShow(window.samplingChart()));
            }
            if (workspace == Workspace::Attention) {
                qInfo("%s: heat map data area %d × %d px", qPrintable(name), heatmap.width(),
                      heatmap.height());
                if (scaleFactor() == 1.0)
                    QVERIFY2(heatmap.width() >= 300 && heatmap.height() >= 300,
                             qPrintable(QStringLiteral("the heat map has %1 × %2 px")
                                            .arg(heatmap.width())
                                            .arg(heatmap.height())));
                QVERIFY(onShow(window.attentionHeatmap()));
            }
        }
    }

    void eachWorkspaceRemembersItsLayoutUntilReset() {
        test::startFresh();
        {
            MainWindow window(test::bundledWindow(4));
            window.showOnScreen();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            QCOMPARE(window.currentWorkspace(), Workspace::Chat);  // the first start
            window.showWorkspace(Workspace::SamplingLab);
            auto* branches = window.findChild<QDockWidget*>(QStringLiteral("branchesDock"));
            branches->close();
            window.showWorkspace(Workspace::Attention);
            QVERIFY(!branches->toggleViewAction()->isChecked());
            window.showWorkspace(Workspace::SamplingLab);
            QVERIFY2(!branches->toggleViewAction()->isChecked(),
                     "the Sampling lab forgot that Branches was closed");
            window.close();  // saves
        }
        {
            MainWindow window(test::bundledWindow(4));
            window.showOnScreen();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            QCOMPARE(window.currentWorkspace(), Workspace::SamplingLab);  // the last one used
            auto* branches = window.findChild<QDockWidget*>(QStringLiteral("branchesDock"));
            QVERIFY(!branches->toggleViewAction()->isChecked());
            window.resetLayout();
            QVERIFY(branches->toggleViewAction()->isChecked());
            window.showWorkspace(Workspace::Chat);
            window.showWorkspace(Workspace::SamplingLab);
            QVERIFY(branches->toggleViewAction()->isChecked());
        }
    }

    void aLayoutFromBeforeWorkspacesIsSetAside() {
        test::startFresh();
        {
            // The single layout of earlier versions, every dock in it: saved by such a window.
            MainWindow old(test::bundledWindow(4));
            for (QDockWidget* dock : old.findChildren<QDockWidget*>())
                dock->show();
            QSettings().setValue("window/state", old.saveState());
        }
        MainWindow window(test::bundledWindow(4));
        window.showOnScreen();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(!QSettings().contains("window/state"));
        QCOMPARE(window.currentWorkspace(), Workspace::Chat);
        for (QDockWidget* dock : window.findChildren<QDockWidget*>())
            QCOMPARE(dock->toggleViewAction()->isChecked(),
                     WorkspaceLayouts::defaultDocks(Workspace::Chat).contains(dock->objectName()));
        // A saved layout that cannot be read is replaced by the default, not half-applied.
        QSettings().setValue("workspaces/layout/attention", QByteArray("not a layout"));
        MainWindow second(test::bundledWindow(4));
        second.showOnScreen();
        QVERIFY(QTest::qWaitForWindowExposed(&second));
        second.showWorkspace(Workspace::Attention);
        QVERIFY(second.findChild<QDockWidget*>(QStringLiteral("attentionDock"))
                    ->toggleViewAction()
                    ->isChecked());
    }

    void theWorkspaceSwitchChoosesTheFirstWorkspace() {
        test::startFresh();
        StartupOptions options = test::bundledWindow(4);
        options.workspace = QStringLiteral("attention");
        MainWindow window(options);
        window.showOnScreen();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCOMPARE(window.currentWorkspace(), Workspace::Attention);
        QVERIFY(window.findChild<QAction*>(QStringLiteral("workspace_attention"))->isChecked());
    }

    void theTourGoesAlongToEachStepsWorkspace() {
        test::startFresh();
        MainWindow window(test::bundledWindow(4));
        window.showOnScreen();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(test::waitForModel(window));
        window.startTour();
        auto* tourDock = window.findChild<QDockWidget*>(QStringLiteral("tourDock"));
        TourPanel* tour = window.teaching()->tour();
        QVERIFY(tour->stepCount() > 5);
        for (int step = 0; step < tour->stepCount(); ++step) {
            tour->show(step);
            const QString panel = window.highlightedPanel();
            auto* dock = window.findChild<QDockWidget*>(panel);
            QVERIFY2(
                onShow(dock),
                qPrintable(QStringLiteral("step %1: %2 not on show").arg(step + 1).arg(panel)));
            QVERIFY2(onShow(tourDock),
                     qPrintable(QStringLiteral("step %1: the tour left behind").arg(step + 1)));
            const QStringList docks = WorkspaceLayouts::defaultDocks(window.currentWorkspace());
            QVERIFY2(docks.contains(panel),
                     qPrintable(QStringLiteral("step %1: %2 shown in %3")
                                    .arg(step + 1)
                                    .arg(panel, workspaceKey(window.currentWorkspace()))));
        }
    }
};

QTEST_MAIN(TestGuiLayout)
#include "test_gui_layout.moc"
