#pragma once
// The main window: the chat in the middle, the model bar and run controls on top, and every panel
// in a dock the user can move (layout and conversation remembered between runs). It only wires
// things: the engine runs in EngineSession's thread, the panels draw what the worker sends.

#include <QLabel>
#include <QMainWindow>

#include "engine_worker.h"

class QAction;
class QDockWidget;
class QMenu;
class QCheckBox;
class QSpinBox;

namespace inferlens::widgets {
class TokenStripWidget;
class AttentionHeatmapWidget;
class SamplingChartWidget;
class KvCacheChartWidget;
class DoubleLoopGridWidget;
}  // namespace inferlens::widgets

namespace inferlens::gui {

class ChatView;
class SamplingControls;
class StallMonitor;

// The headless switches (main.cpp), for tests and documentation.
struct StartupOptions {
    QString model;  // empty: the bundled model
    QString prompt;
    int maxTokens = 0;  // 0: the panel's value
    QString screenshot;
    bool quitAfterGeneration = false;
};

class MainWindow : public QMainWindow {
    Q_OBJECT

  public:
    explicit MainWindow(StartupOptions options, QWidget* parent = nullptr);
    ~MainWindow() override;

    // For the end-to-end test: what the panels received during the last generation.
    bool modelReady() const { return modelReady_; }
    int stepsReceived() const { return stepsReceived_; }
    int tokensGenerated() const { return tokensGenerated_; }
    double longestStallMs() const;
    EngineWorker* worker() const { return session_->worker(); }
    widgets::TokenStripWidget* tokenStrip() const { return tokens_; }
    SamplingControls* samplingControls() const { return sampling_; }
    ChatView* chat() const { return chat_; }

  protected:
    void closeEvent(QCloseEvent* event) override;

  private:
    void buildPanels();
    // A panel in a dock the user can move; also listed in File → Export panel.
    QDockWidget* addDock(const QString& title, const QString& objectName, QWidget* content,
                         Qt::DockWidgetArea area);
    void showAbout();
    void buildToolBar();
    void loadModel(const QString& path);
    void openModelDialog(bool directory);
    void onModelLoaded(const ModelSummary& summary);
    void onModelFailed(const QString& message);
    void startGeneration(const QList<ChatTurn>& conversation);
    void onGenerationFinished(const QString& answer, const QString& reason, bool ok);
    void onAttention(const widgets::AttentionMatrix& matrix);
    void selectHead();
    void restoreSession();
    void saveSession() const;
    void finishHeadlessRun(bool ok, const QString& message);

    StartupOptions options_;
    EngineSession* session_;
    ChatView* chat_;
    SamplingControls* sampling_;
    StallMonitor* stallMonitor_;
    QLabel* modelLabel_;
    QAction* pauseAction_;
    QMenu* exportMenu_;
    QSpinBox* layerBox_;
    QSpinBox* headBox_;
    QCheckBox* logScaleBox_;
    widgets::TokenStripWidget* tokens_;
    widgets::AttentionHeatmapWidget* attention_;
    widgets::SamplingChartWidget* samplingChart_;
    widgets::KvCacheChartWidget* kvChart_;
    widgets::DoubleLoopGridWidget* loopGrid_;
    bool modelReady_ = false;
    bool generating_ = false;
    int stepsReceived_ = 0;
    int tokensGenerated_ = 0;
};

}  // namespace inferlens::gui
