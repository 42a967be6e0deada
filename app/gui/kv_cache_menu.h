#pragma once
// The Device menu's KV cache entries: how the CPU's cache stores keys and values (f32, f16 or
// int8) and its sliding window with attention sinks. Both are remembered between runs and handed
// to the engine worker, which applies them from the next generation on.

#include <QObject>

class QAction;
class QMenu;
class QWidget;

namespace inferlens::gui {

class EngineWorker;
class LiveTexts;
struct KvCacheLayout;

class KvCacheMenu : public QObject {
    Q_OBJECT
  public:
    // Adds the entries to `menu`; `dialogParent` owns the window dialog.
    KvCacheMenu(QMenu* menu, EngineWorker* worker, LiveTexts& texts, QWidget* dialogParent);

    // Opens the sliding-window dialog (objectName "slidingWindowDialog"; non-modal, so that the
    // engine's panels keep updating); accepting it applies the window.
    void chooseWindow();
    // Uses `layout` for this session without remembering it (the headless switches).
    void use(const KvCacheLayout& layout);

  private:
    void apply();  // the remembered settings → use()
    void retranslateWindowAction();

    EngineWorker* worker_;
    QWidget* dialogParent_;
    QAction* typeActions_[3];  // f32, f16, int8
    QAction* windowAction_;
};

}  // namespace inferlens::gui
