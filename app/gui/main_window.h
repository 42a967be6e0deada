#pragma once
// The main window: the chat in the middle, the model bar and run controls on top, and every panel
// in a dock the user can move (layout and conversation remembered between runs). It only wires
// things: the engine runs in EngineSession's thread, the panels draw what the worker sends.

#include <QLabel>
#include <QMainWindow>
#include <QSize>
#include <QStringList>
#include <functional>
#include <optional>
#include <vector>

#include "conversation_store.h"
#include "engine_worker.h"
#include "live_texts.h"
#include "workspace.h"

class QAction;
class QCheckBox;
class QDockWidget;
class QMenu;
class QProgressBar;
class QSpinBox;
class QToolButton;

namespace inferlens::widgets {
class TokenStripWidget;
class TokenArrivalWidget;
class AttentionHeatmapWidget;
class AttentionHeadGridWidget;
class AttentionOverviewWidget;
class SamplingChartWidget;
class KvCacheChartWidget;
class DoubleLoopGridWidget;
class BranchCompareWidget;
}  // namespace inferlens::widgets

namespace inferlens::gui {

class BeamTreePanel;
class ChatView;
class SamplingControls;
class SamplingSummaryView;
class StallMonitor;
class WorkspaceLayouts;
class TracePlayer;
class TeachingViews;
struct RecordedTrace;

// The headless switches (main.cpp), for tests and documentation.
struct StartupOptions {
    QString model;  // empty: the bundled model
    QString prompt;
    int maxTokens = 0;  // 0: the panel's value
    QString screenshot;
    bool quitAfterGeneration = false;
    QString trace;           // replay this trace instead of loading a model
    QString remote;          // connect to this server instead of loading a model
    QString remoteModel;     // the model to use there (empty: its first)
    QStringList panels;      // docks (object names) to bring to the front before the screenshot
    bool logitLens = false;  // compute the logit lens
    bool attentionKernels = false;  // after the generation, time the attention kernels
    int kvExperiment = 0;           // after the generation, run the KV on/off experiment (tokens)
    int tourStep = 0;               // the guided tour's step on show (1-based; 0: the first)
    QString device;   // "cpu", "cuda", "cuda:N"; empty: the last one chosen (Device menu)
    int beams = 0;    // answer by beam search with this many beams (0: the panel's value)
    QString grammar;  // a grammar file (.json: a JSON schema) the answer must follow
    // The CPU's KV cache for this run (not remembered): type ("f32", "f16", "int8"; empty: the
    // Device menu's), a sliding window of `window` tokens after `sinks` (window 0: none; −1: the
    // menu's).
    QString kvType;
    int window = -1;
    int sinks = 4;
    bool compareCache = false;  // after the generation, compare with an exact cache
    QString workspace;      // "chat", "sampling", "attention", "teaching"; empty: the last one used
    QSize windowSize;       // invalid: fitted to the screen the window opens on
    QString draftQuestion;  // typed into the chat's input, not sent (scripts/run.sh)
};

class MainWindow : public QMainWindow {
    Q_OBJECT

  public:
    explicit MainWindow(StartupOptions options, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Shows the window: options.windowSize when given, else the saved geometry when it fits the
    // screen, else sized from the screen's available geometry; then lays out the workspace.
    void showOnScreen();

    // For the end-to-end test: what the panels received during the last generation.
    bool modelReady() const { return modelReady_; }
    // What loading the current model was planned to take (memory needed and free).
    const std::optional<LoadPlan>& loadPlan() const { return plan_; }
    bool generating() const { return generating_; }
    int stepsReceived() const { return stepsReceived_; }
    int tokensGenerated() const { return tokensGenerated_; }
    double longestStallMs() const;
    EngineWorker* worker() const { return session_->worker(); }
    widgets::TokenStripWidget* tokenStrip() const { return tokens_; }
    widgets::AttentionHeatmapWidget* attentionHeatmap() const { return attention_; }
    QSpinBox* attentionBudgetBox() const { return attentionBudgetBox_; }
    // The sampling steps of the current generation, as the panel received them.
    const std::vector<widgets::SamplingStep>& samplingSteps() const { return samplingSteps_; }
    widgets::AttentionHeadGridWidget* attentionHeads() const { return headGrid_; }
    widgets::AttentionOverviewWidget* attentionOverview() const { return overview_; }
    widgets::SamplingChartWidget* samplingChart() const { return samplingChart_; }
    widgets::DoubleLoopGridWidget* loopGrid() const { return loopGrid_; }
    widgets::BranchCompareWidget* branches() const { return branches_; }
    BeamTreePanel* beamTree() const { return beamTree_; }
    TeachingViews* teaching() const { return teaching_; }
    // The dock a tour step highlighted last (its object name).
    QString highlightedPanel() const { return highlightedPanel_; }
    SamplingControls* samplingControls() const { return sampling_; }
    ChatView* chat() const { return chat_; }
    QAction* pauseAction() const { return pauseAction_; }
    SamplingSummaryView* samplingSummary() const { return summary_; }

    // Lays out a workspace (the person's last layout of it, or its default) and remembers it.
    void showWorkspace(Workspace workspace);
    Workspace currentWorkspace() const;
    // View → Reset layout: every workspace back to its default.
    void resetLayout();
    // Help → Guided tour: the tour from its first step, switching workspaces as it goes.
    void startTour();

    // The head shown at full resolution; the others follow (spin boxes, small multiples,
    // overview), and its past rows are recomputed when they were not captured.
    void selectHead(int layer, int head);
    // The token at `position` (from the first prompt token) in every panel.
    void selectPosition(int position);
    // Switches the interface language now ("system", "en", "zh_CN") and remembers it.
    void switchLanguage(const QString& language);
    // The last generation's trace (JSON lines) to `path`; false with a message in `error`.
    bool exportTrace(const QString& path, QString* error) const;
    // Reads a trace in the background and replays it into the panels, without the model.
    void openTrace(const QString& path);
    bool replaying() const;
    // What-if: forces candidate `index` of the sampling step on show and continues from there.
    void forceCandidate(int index);

  protected:
    void closeEvent(QCloseEvent* event) override;
    void changeEvent(QEvent* event) override;

  private:
    void buildMenus();
    void buildViewMenu();
    void buildToolBar();
    void buildPanels();
    // A panel in a dock the user can move; also listed in File → Export panel.
    QDockWidget* addDock(std::function<QString()> title, const QString& objectName,
                         QWidget* content, Qt::DockWidgetArea area);
    QWidget* buildAttentionPanel();
    void showAbout();
    void loadModel(const QString& path);
    // Where models run: the Device menu's choice, remembered between runs.
    QString device() const;
    void chooseDevice(const QString& device);
    // The CPU attention kernel chosen in the Device menu (fused until one is chosen).
    static AttentionKernel rememberedAttentionKernel();
    void openModelDialog(bool directory);
    void onLoadPlanned(const LoadPlan& plan);
    void onModelLoaded(const ModelSummary& summary);
    void onModelFailed(const QString& message);
    // File → Connect to server…, and what comes back.
    void connectToServerDialog();
    void connectToServer(const QString& url, const QString& model, const QString& apiKey,
                         const QString& caFile);
    void onConnectFailed(const QString& message);
    // A model on a server leaves the panels of layers, attention and the KV cache without data:
    // notes over them say why, local-only controls are greyed out; false takes the notes away.
    void showServerLimits(bool onServer);
    void setLoading(bool loading);
    void updateModelLabel();
    void startGeneration(const QList<ChatTurn>& conversation);
    void onGenerationFinished(const QString& answer, const QString& reason, bool ok);
    void onTokenized(const std::vector<widgets::TokenChip>& chips);
    void onTokenGenerated(const widgets::TokenChip& chip, const QString& text);
    void onAttention(const widgets::AttentionMatrix& matrix);
    void onOverview(const AttentionOverview& overview);
    void onSampling(const widgets::SamplingStep& step);
    void onLoopTiming(const widgets::LoopTiming& timing);
    void clearPanels();
    void startReplay(const QString& path, RecordedTrace trace);
    void onReplayFinished(const QString& reason);
    // After a generation or a replay: the headless switches' screenshot and exit.
    void finishRun(bool ok, const QString& reason);
    void exportTraceDialog();
    // Resets the run's state and the panels; false when a run cannot start now. `chatAnswer`: the
    // run answers the chat (a branch does not).
    bool beginRun(bool chatAnswer);
    // The finished run as a branch: the answer, or the branch being forced.
    void recordBranch();
    void buildTeachingDocks();
    void highlightPanel(const QString& panel);
    void updateTour();
    void onSamplingParams(const SamplingParams& params);
    void requestRecompute();
    void restoreSession();
    void saveSession() const;
    void finishHeadlessRun(bool ok, const QString& message);

    StartupOptions options_;
    ConversationStore conversations_;  // autosaved after every message
    EngineSession* session_;
    ChatView* chat_;
    SamplingControls* sampling_;
    SamplingSummaryView* summary_;
    WorkspaceLayouts* layouts_;
    std::vector<QAction*> workspaceActions_;  // in kWorkspaces' order
    StallMonitor* stallMonitor_;
    TracePlayer* player_;
    TeachingViews* teaching_ = nullptr;
    QString highlightedPanel_;
    LiveTexts texts_;
    class ElidingLabel* modelLabel_;
    QSpinBox* contextBox_;
    QProgressBar* loadProgress_;
    QToolButton* cancelLoadButton_;
    std::vector<QAction*> loadingActions_;  // the progress bar's and the cancel button's
    QAction* pauseAction_;
    // Stepping holds a generation between layers: not for a model on a server (onServer_).
    QAction* stepTokenAction_;
    QAction* stepLayerAction_;
    bool onServer_ = false;
    QMenu* exportMenu_;
    QSpinBox* layerBox_;
    QSpinBox* headBox_;
    QCheckBox* logScaleBox_;
    QSpinBox* attentionBudgetBox_;  // the heat map's memory budget, in MB (remembered)
    QLabel* overviewNote_;
    widgets::TokenStripWidget* tokens_;
    widgets::AttentionHeatmapWidget* attention_;
    widgets::AttentionHeadGridWidget* headGrid_;
    widgets::AttentionOverviewWidget* overview_;
    widgets::SamplingChartWidget* samplingChart_;
    widgets::KvCacheChartWidget* kvChart_;
    QWidget* kvPanel_;  // the chart and the MQA/GQA lesson under it
    widgets::DoubleLoopGridWidget* loopGrid_;
    widgets::BranchCompareWidget* branches_;
    BeamTreePanel* beamTree_;
    widgets::TokenArrivalWidget* tokenArrival_;
    QDockWidget* tokenArrivalDock_;
    QDockWidget* beamTreeDock_;

    std::optional<ModelSummary> model_;
    std::vector<class UnavailableNote*> serverNotes_;  // made at the first connection
    std::function<void()> rememberServer_;             // after the connection asked for succeeds
    std::optional<LoadPlan> plan_;
    QString loadingPath_;
    QString tracePath_;   // the last generation's trace, while the worker keeps it
    QString replayPath_;  // the trace on show, if the panels show one
    QAction* exportTraceAction_ = nullptr;
    bool modelReady_ = false;
    class KvCacheMenu* kvCacheMenu_ = nullptr;
    bool cacheCompared_ = false;  // the headless run's comparison with an exact cache is done
    bool generating_ = false;
    bool recomputeAfterGeneration_ = false;
    int selectedLayer_ = 0, selectedHead_ = 0;
    int promptLength_ = 0;
    std::vector<widgets::SamplingStep> samplingSteps_;  // the generation's steps, in order
    std::vector<QString> answerTexts_;                  // what each generated token added
    std::vector<QString> promptPieces_;                 // the last sequence's first chips
    QString finishReason_;
    QString promptTiming_;  // what the worker said of the prompt's cache use and first token
    // The branch the last run belongs to, and for a branch run in progress: its parent, the step
    // it departs at, and the forced token as the branch panel shows it.
    int currentBranch_ = -1;
    struct PendingBranch {
        int parent = -1;
        int step = 0;
        QString forcedText;
        float forcedProbability = 0;
    };
    std::optional<PendingBranch> pendingBranch_;
    int stepsReceived_ = 0;
    int tokensGenerated_ = 0;
};

}  // namespace inferlens::gui
