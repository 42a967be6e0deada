#pragma once
// What the tests of the desktop app share: a window on the bundled model, waiting for it to load,
// and a fresh start (no settings, layout or conversation left by an earlier window).

#include <QFile>
#include <QSettings>
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

// Test mode for QStandardPaths, then no settings and no saved conversation.
inline void startFresh() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    QFile::remove(gui::ConversationStore().path());
}

}  // namespace inferlens::test
