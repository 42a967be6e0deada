#include "workspace_layouts.h"

#include <QDockWidget>
#include <QGuiApplication>
#include <QList>
#include <QMainWindow>
#include <QScreen>
#include <QSettings>
#include <QTimer>
#include <vector>

namespace inferlens::gui {

namespace {

// Saved with every layout; a layout of another version is not restored. 0 was the single layout
// of the versions before workspaces (settings key window/state).
constexpr int kLayoutVersion = 1;

// Where a dock goes in a default layout: into an area of the window, in a new row below another
// dock, or as a tab behind another dock.
struct Placement {
    enum class How { Area, Below, TabWith };
    const char* dock;
    How how;
    Qt::DockWidgetArea area = Qt::NoDockWidgetArea;
    const char* other = nullptr;
};

// A dock's share of the window's width (Horizontal) or height (Vertical).
struct Share {
    const char* dock;
    Qt::Orientation orientation;
    double fraction;
};

struct DefaultLayout {
    std::vector<Placement> placements;
    std::vector<Share> shares;
    std::vector<const char*> inFront;  // of their tab groups
};

Placement inArea(const char* dock, Qt::DockWidgetArea area) {
    return {dock, Placement::How::Area, area};
}
Placement below(const char* dock, const char* other) {
    return {dock, Placement::How::Below, Qt::NoDockWidgetArea, other};
}
Placement tabWith(const char* dock, const char* other) {
    return {dock, Placement::How::TabWith, Qt::NoDockWidgetArea, other};
}

// The defaults give the plot a workspace is about most of the window (at 1366×768: the sampling
// chart's data area about 600 × 330 px, the heat map's about 560 × 470) and leave the chat a
// column between the panels.
DefaultLayout defaultLayout(Workspace workspace) {
    switch (workspace) {
        case Workspace::Chat:
            return {{inArea("tokenizationDock", Qt::TopDockWidgetArea),
                     inArea("samplingSummaryDock", Qt::RightDockWidgetArea)},
                    {{"tokenizationDock", Qt::Vertical, 0.14},
                     {"samplingSummaryDock", Qt::Horizontal, 0.26}},
                    {}};
        case Workspace::SamplingLab:
            return {{inArea("samplingParametersDock", Qt::LeftDockWidgetArea),
                     below("branchesDock", "samplingParametersDock"),
                     tabWith("beamTreeDock", "branchesDock"),
                     tabWith("tokenArrivalDock", "branchesDock"),
                     inArea("samplingDock", Qt::RightDockWidgetArea)},
                    {{"samplingParametersDock", Qt::Horizontal, 0.27},
                     {"samplingDock", Qt::Horizontal, 0.50},
                     {"samplingParametersDock", Qt::Vertical, 0.55},
                     {"branchesDock", Qt::Vertical, 0.45}},
                    {"branchesDock"}};
        case Workspace::Attention:
            return {{inArea("tokenizationDock", Qt::TopDockWidgetArea),
                     inArea("attentionHeadsDock", Qt::LeftDockWidgetArea),
                     below("attentionOverviewDock", "attentionHeadsDock"),
                     inArea("attentionDock", Qt::RightDockWidgetArea)},
                    {{"tokenizationDock", Qt::Vertical, 0.12},
                     {"attentionHeadsDock", Qt::Horizontal, 0.25},
                     {"attentionDock", Qt::Horizontal, 0.50},
                     {"attentionHeadsDock", Qt::Vertical, 0.5},
                     {"attentionOverviewDock", Qt::Vertical, 0.5}},
                    {}};
        case Workspace::Teaching:
            return {
                {inArea("doubleLoopDock", Qt::LeftDockWidgetArea),
                 below("stepCostsDock", "doubleLoopDock"),
                 inArea("kvCacheDock", Qt::RightDockWidgetArea),
                 tabWith("kvExperimentDock", "kvCacheDock"), below("logitLensDock", "kvCacheDock"),
                 tabWith("attentionKernelsDock", "logitLensDock"),
                 // Not beside a panel the tour talks about, which it would cover.
                 tabWith("tourDock", "logitLensDock")},
                {{"doubleLoopDock", Qt::Horizontal, 0.40},
                 {"kvCacheDock", Qt::Horizontal, 0.38},
                 {"doubleLoopDock", Qt::Vertical, 0.4},
                 {"stepCostsDock", Qt::Vertical, 0.6},
                 {"kvCacheDock", Qt::Vertical, 0.5},
                 {"logitLensDock", Qt::Vertical, 0.5}},
                {"stepCostsDock", "kvCacheDock", "logitLensDock"}};
    }
    return {};
}

QString settingsKey(Workspace workspace) {
    return QStringLiteral("workspaces/layout/") + workspaceKey(workspace);
}

}  // namespace

WorkspaceLayouts::WorkspaceLayouts(QMainWindow* window) : QObject(window), window_(window) {}

QStringList WorkspaceLayouts::defaultDocks(Workspace workspace) {
    QStringList docks;
    for (const Placement& placement : defaultLayout(workspace).placements)
        docks << QString::fromLatin1(placement.dock);
    return docks;
}

std::optional<Workspace> WorkspaceLayouts::homeOf(const QString& dock) {
    for (Workspace workspace : kWorkspaces)
        if (defaultDocks(workspace).contains(dock))
            return workspace;
    return std::nullopt;
}

QDockWidget* WorkspaceLayouts::dock(const char* name) const {
    return window_->findChild<QDockWidget*>(QString::fromLatin1(name));
}

void WorkspaceLayouts::applyDefault() {
    const DefaultLayout layout = defaultLayout(current_);
    // The docks of other workspaces are hidden, not removed: a dock outside the window's layout
    // would be missing from the state saved for this workspace, and restoring that state would
    // bring it back into view.
    QStringList placed;
    for (const Placement& placement : layout.placements)
        placed << QString::fromLatin1(placement.dock);
    for (QDockWidget* each : window_->findChildren<QDockWidget*>()) {
        each->setFloating(false);
        if (!placed.contains(each->objectName()))
            each->hide();
    }
    // Rows before tabs: splitting a dock that already has tabs would add a tab instead.
    for (const bool tabs : {false, true}) {
        for (const Placement& placement : layout.placements) {
            if ((placement.how == Placement::How::TabWith) != tabs)
                continue;
            QDockWidget* target = dock(placement.dock);
            switch (placement.how) {
                case Placement::How::Area:
                    window_->addDockWidget(placement.area, target);
                    break;
                case Placement::How::Below:
                    window_->splitDockWidget(dock(placement.other), target, Qt::Vertical);
                    break;
                case Placement::How::TabWith:
                    window_->tabifyDockWidget(dock(placement.other), target);
                    break;
            }
            target->show();
        }
    }
    for (const char* name : layout.inFront)
        dock(name)->raise();
    applyShares();
    // Once more when the window has its final size on screen: the docks' sizes are only exact
    // once the window's layout has run.
    QTimer::singleShot(0, this, [this, workspace = current_] {
        if (workspace == current_)
            applyShares();
    });
}

void WorkspaceLayouts::applyShares() {
    const QSize size = window_->size();
    for (const Share& share : defaultLayout(current_).shares) {
        const int extent = share.orientation == Qt::Horizontal ? size.width() : size.height();
        window_->resizeDocks({dock(share.dock)}, {int(extent * share.fraction)}, share.orientation);
    }
}

bool WorkspaceLayouts::restore(Workspace workspace) {
    const QByteArray state = saved_.value(workspaceKey(workspace));
    if (state.isEmpty())
        return false;
    // Docks the saved layout does not mention (added by a later version) stay out of sight.
    for (QDockWidget* each : window_->findChildren<QDockWidget*>())
        each->hide();
    if (!window_->restoreState(state, kLayoutVersion)) {
        saved_.remove(workspaceKey(workspace));  // unreadable: the default replaces it for good
        return false;
    }
    redockLostFloatingDocks();
    return true;
}

void WorkspaceLayouts::redockLostFloatingDocks() {
    for (QDockWidget* each : window_->findChildren<QDockWidget*>()) {
        if (!each->isFloating() || !each->isVisible())
            continue;
        bool onScreen = false;
        for (const QScreen* screen : QGuiApplication::screens())
            onScreen = onScreen || screen->availableGeometry().intersects(each->frameGeometry());
        if (!onScreen)
            each->setFloating(false);
    }
}

void WorkspaceLayouts::start(Workspace workspace) {
    started_ = true;
    current_ = workspace;
    if (!restore(workspace))
        applyDefault();
    emit switched(workspace);
}

void WorkspaceLayouts::show(Workspace workspace) {
    if (!started_)
        return start(workspace);
    saved_[workspaceKey(current_)] = window_->saveState(kLayoutVersion);
    current_ = workspace;
    if (!restore(workspace))
        applyDefault();
    emit switched(workspace);
}

void WorkspaceLayouts::resetAll() {
    saved_.clear();
    applyDefault();
    emit switched(current_);
}

bool WorkspaceLayouts::load(bool* droppedLegacy) {
    QSettings settings;
    *droppedLegacy = settings.contains("window/state");
    // The single layout of earlier versions held every dock at once; restored now it would
    // show all fifteen in slivers again. It is dropped, and each workspace starts from its
    // default.
    settings.remove("window/state");
    bool any = false;
    for (Workspace workspace : kWorkspaces) {
        const QByteArray state = settings.value(settingsKey(workspace)).toByteArray();
        if (!state.isEmpty()) {
            saved_[workspaceKey(workspace)] = state;
            any = true;
        }
    }
    current_ =
        parseWorkspace(settings.value("workspaces/current").toString()).value_or(Workspace::Chat);
    return any;
}

void WorkspaceLayouts::save() {
    if (started_)
        saved_[workspaceKey(current_)] = window_->saveState(kLayoutVersion);
    QSettings settings;
    settings.setValue("workspaces/current", workspaceKey(current_));
    for (Workspace workspace : kWorkspaces) {
        const QByteArray state = saved_.value(workspaceKey(workspace));
        if (state.isEmpty())
            settings.remove(settingsKey(workspace));
        else
            settings.setValue(settingsKey(workspace), state);
    }
}

}  // namespace inferlens::gui
