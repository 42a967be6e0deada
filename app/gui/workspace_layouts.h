#pragma once
// Arranges the main window's docks into workspaces. Each workspace has a default layout (which
// docks, where, how large — as fractions of the window, so it fits any screen) and remembers the
// person's changes to it: switching away saves the layout under the workspace's name, switching
// back restores it. The chat stays the central widget in every workspace, so its input is always
// there to ask and watch.

#include <QByteArray>
#include <QMap>
#include <QObject>
#include <QStringList>

#include "workspace.h"

class QDockWidget;
class QMainWindow;

namespace inferlens::gui {

class WorkspaceLayouts : public QObject {
    Q_OBJECT

  public:
    // Every dock of `window` must exist (with its object name) before the first show().
    explicit WorkspaceLayouts(QMainWindow* window);

    Workspace current() const { return current_; }
    // The docks a workspace shows by default (object names).
    static QStringList defaultDocks(Workspace workspace);
    // The workspace a dock belongs to by default (the first that shows it).
    static std::optional<Workspace> homeOf(const QString& dock);

    // The first layout of the window, once it is shown at its size: `workspace`'s saved one or
    // its default.
    void start(Workspace workspace);
    // Saves the current layout, then lays out `workspace`: the layout last saved for it, or its
    // default when there is none or it cannot be restored.
    void show(Workspace workspace);
    // Forgets every saved layout and lays out the current workspace's default.
    void resetAll();
    // The current workspace's default layout, for the window's present size.
    void applyDefault();
    // Reads the saved layouts (false: nothing of a workspace layout was saved yet). A layout
    // saved by a version before workspaces existed is dropped; `droppedLegacy` says so.
    bool load(bool* droppedLegacy);
    // Writes the current workspace and every remembered layout to the settings.
    void save();

  signals:
    void switched(Workspace workspace);

  private:
    QDockWidget* dock(const char* name) const;
    bool restore(Workspace workspace);
    // The default layout's sizes, as shares of the window's present size.
    void applyShares();
    // A floating dock restored off every screen comes back into the window.
    void redockLostFloatingDocks();

    QMainWindow* window_;
    Workspace current_ = Workspace::Chat;
    bool started_ = false;             // until start(), the window's state is no workspace's layout
    QMap<QString, QByteArray> saved_;  // by workspace key
};

}  // namespace inferlens::gui
