#pragma once
// What the tests of the desktop app share: a window on the bundled model, waiting for it to load
// or for the worker's signals, and a fresh start (no settings, layout or conversation left by an
// earlier window).

#include <QCoreApplication>
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

#include "conversation_store.h"
#include "main_window.h"

namespace inferlens::test {

inline gui::StartupOptions bundledWindow(int maxTokens) {
    gui::StartupOptions options;
    options.model = QStringLiteral(INFERLENS_BUNDLED_MODEL);
    options.maxTokens = maxTokens;
    return options;
}

// The worker may announce the model before a spy could connect: ask the window instead.
inline bool waitForModel(const gui::MainWindow& window) {
    return QTest::qWaitFor([&] { return window.modelReady(); }, 60000);
}

// Whether `spy` has seen `count` signals within `ms`. A spy on the worker records a signal at once
// in the worker's thread, which can be before QSignalSpy::wait() starts to wait — it then waits
// for one more, in vain (a reconnection to a fast server did so under a sanitizer); counting
// cannot miss it. The window's own slots for the signal were queued before the spy saw it, so
// they run before this returns, as they would have inside wait().
inline bool waitForSignals(const QSignalSpy& spy, int ms, int count = 1) {
    if (!QTest::qWaitFor([&] { return spy.count() >= count; }, ms))
        return false;
    QCoreApplication::processEvents();
    return true;
}

// Test mode for QStandardPaths, then no settings and no saved conversation.
inline void startFresh() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    QFile::remove(gui::ConversationStore().path());
}

}  // namespace inferlens::test
