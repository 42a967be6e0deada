#include "main_window.h"

#include "backend/devices.h"

#include <QActionGroup>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent>
#include <cstdio>

#include "attention_head_grid_widget.h"
#include "attention_heatmap_widget.h"
#include "attention_kernels_view.h"
#include "attention_overview_widget.h"
#include "beam_tree_panel.h"
#include "branch_compare_widget.h"
#include "cache_comparison_bar.h"
#include "chat_view.h"
#include "core/error.h"
#include "display_text.h"
#include "double_loop_grid_widget.h"
#include "eliding_label.h"
#include "kv_cache_chart_widget.h"
#include "kv_cache_menu.h"
#include "kv_experiment_chart_widget.h"
#include "language.h"
#include "models/default_model.h"
#include "panel_conversion.h"
#include "panel_export.h"
#include "sampling_chart_widget.h"
#include "sampling_controls.h"
#include "sampling_summary_view.h"
#include "stall_monitor.h"
#include "teaching_views.h"
#include "token_arrival_widget.h"
#include "token_strip_widget.h"
#include "tour_panel.h"
#include "trace_player.h"
#include "unavailable_note.h"
#include "workspace_layouts.h"
#ifdef INFERLENS_HAVE_REMOTE
#include "connect_dialog.h"
#endif

namespace inferlens::gui {

namespace {

QString humanCount(qint64 n) {
    return n >= 1'000'000'000 ? QString::number(double(n) / 1e9, 'f', 2) + " B"
           : n >= 1'000'000   ? QString::number(double(n) / 1e6, 'f', 2) + " M"
                              : QString::number(n);
}

}  // namespace

MainWindow::MainWindow(StartupOptions options, QWidget* parent)
    : QMainWindow(parent),
      options_(std::move(options)),
      session_(new EngineSession(this)),
      chat_(new ChatView),
      sampling_(new SamplingControls),
      summary_(new SamplingSummaryView),
      layouts_(new WorkspaceLayouts(this)),
      stallMonitor_(new StallMonitor(this)),
      player_(new TracePlayer(this)) {
    texts_.add([this] { setWindowTitle(tr("InferLens")); });
    setCentralWidget(chat_);
    buildMenus();
    buildToolBar();
    buildPanels();
    buildTeachingDocks();
    if (options_.maxTokens > 0)
        sampling_->setMaxNewTokens(options_.maxTokens);
    if (options_.beams > 0)
        sampling_->setBeamWidth(options_.beams);
    if (!options_.kvType.isEmpty() || options_.window >= 0) {
        KvCacheLayout layout = session_->worker()->kvCacheLayout();
        try {
            if (!options_.kvType.isEmpty())
                layout.type = parseKvType(options_.kvType.toStdString());
        } catch (const Error& error) {
            const QString message = QString::fromUtf8(error.what());
            QMetaObject::invokeMethod(
                this, [this, message] { finishHeadlessRun(false, message); }, Qt::QueuedConnection);
        }
        if (options_.window >= 0) {
            layout.window = options_.window;
            layout.sinks = options_.window > 0 ? std::max(options_.sinks, 0) : 0;
        }
        kvCacheMenu_->use(layout);
    }
    QString grammarError;
    if (!options_.grammar.isEmpty() && !sampling_->loadGrammarFile(options_.grammar, &grammarError))
        QMetaObject::invokeMethod(
            this, [this, grammarError] { finishHeadlessRun(false, grammarError); },
            Qt::QueuedConnection);

    EngineWorker* worker = session_->worker();
    connect(worker, &EngineWorker::loadPlanned, this, &MainWindow::onLoadPlanned);
    connect(worker, &EngineWorker::loadProgress, this, [this](qint64 done, qint64 total) {
        loadProgress_->setMaximum(int(std::max<qint64>(1, total >> 20)));
        loadProgress_->setValue(int(done >> 20));
    });
    connect(worker, &EngineWorker::modelLoaded, this, &MainWindow::onModelLoaded);
    connect(worker, &EngineWorker::modelFailed, this, &MainWindow::onModelFailed);
    connect(worker, &EngineWorker::connectFailed, this, &MainWindow::onConnectFailed);
    connect(worker, &EngineWorker::notice, this,
            [this](const QString& message) { statusBar()->showMessage(message, 20000); });
    connect(worker, &EngineWorker::tokenized, this, &MainWindow::onTokenized);
    connect(worker, &EngineWorker::tokenGenerated, this, &MainWindow::onTokenGenerated);
    connect(worker, &EngineWorker::attention, this, &MainWindow::onAttention);
    connect(worker, &EngineWorker::attentionOverview, this, &MainWindow::onOverview);
    connect(
        worker, &EngineWorker::attentionRecomputed, this,
        [this](int layer, bool complete, const QString& message) {
            if (layer == selectedLayer_)
                statusBar()->showMessage(
                    complete
                        ? tr("Attention of layer %1 recomputed").arg(layer)
                        : tr("Attention of layer %1 not recomputed: %2").arg(layer).arg(message),
                    5000);
        });
    connect(worker, &EngineWorker::kvCache, kvChart_, &widgets::KvCacheChartWidget::appendPoint);
    connect(worker, &EngineWorker::sampling, this, &MainWindow::onSampling);
    connect(worker, &EngineWorker::loopTiming, this, &MainWindow::onLoopTiming);
    connect(worker, &EngineWorker::promptTimed, this,
            [this](qint64 cached, qint64 total, double firstTokenMs) {
                promptTiming_ =
                    model_ && model_->remote
                        ? tr("%1 prompt tokens, first token after %2 ms (network included)")
                              .arg(total)
                              .arg(firstTokenMs, 0, 'f', 1)
                        : tr("%1 of %2 prompt tokens from the KV cache, first token after "
                             "%3 ms")
                              .arg(cached)
                              .arg(total)
                              .arg(firstTokenMs, 0, 'f', 1);
            });
    connect(worker, &EngineWorker::generationFinished, this, &MainWindow::onGenerationFinished);
    connect(worker, &EngineWorker::beamSearchStarted, this, [this](int width) {
        beamTree_->begin(width);
        beamTreeDock_->raise();  // the sampling panels have nothing to show meanwhile
    });
    connect(worker, &EngineWorker::beamStep, beamTree_, &BeamTreePanel::appendStep);
    connect(worker, &EngineWorker::beamSearchFinished, beamTree_, &BeamTreePanel::finish);
    connect(worker, &EngineWorker::traceRecorded, this, [this](const QString& path) {
        tracePath_ = path;
        exportTraceAction_->setEnabled(true);
    });
    // A replayed trace goes through the same handlers as a live generation.
    connect(player_, &TracePlayer::tokenized, this, &MainWindow::onTokenized);
    connect(player_, &TracePlayer::tokenGenerated, this, &MainWindow::onTokenGenerated);
    connect(player_, &TracePlayer::attention, this, &MainWindow::onAttention);
    connect(player_, &TracePlayer::kvCache, kvChart_, &widgets::KvCacheChartWidget::appendPoint);
    connect(player_, &TracePlayer::sampling, this, &MainWindow::onSampling);
    connect(player_, &TracePlayer::loopTiming, this, &MainWindow::onLoopTiming);
    connect(player_, &TracePlayer::finished, this, &MainWindow::onReplayFinished);
    connect(sampling_, &SamplingControls::paramsChanged, this, &MainWindow::onSamplingParams);
    worker->setSampling(sampling_->params());
    connect(chat_, &ChatView::answerRequested, this, &MainWindow::startGeneration);
    connect(chat_, &ChatView::stopRequested, this, [this] {
        session_->worker()->control().cancel();
        session_->worker()->control().resume();
    });
    connect(chat_, &ChatView::conversationChanged, this, &MainWindow::saveSession);

    restoreSession();
    if (!options_.trace.isEmpty()) {  // a replay needs no model
        updateModelLabel();
        openTrace(options_.trace);
        return;
    }
    if (!options_.remote.isEmpty()) {
        connectToServer(options_.remote, options_.remoteModel,
                        qEnvironmentVariable("INFERLENS_API_KEY"), QString());
        return;
    }
    QString model = options_.model;
    if (model.isEmpty()) {
        try {
            model = QString::fromStdString(findDefaultModel());
        } catch (const std::exception& error) {
            QMetaObject::invokeMethod(
                this, [this, message = exceptionMessage(error)] { onModelFailed(message); },
                Qt::QueuedConnection);
            return;
        }
    }
    teaching_->setLensEnabled(options_.logitLens);
    loadModel(model);
}

MainWindow::~MainWindow() = default;

void MainWindow::showOnScreen() {
    const QRect available = screen()->availableGeometry();
    const bool restored = restoreGeometry(QSettings().value("window/geometry").toByteArray());
    bool maximize = false;
    if (options_.windowSize.isValid()) {
        resize(options_.windowSize);
    } else if (restored && available.contains(frameGeometry())) {
    } else if (available.width() >= 1700 && available.height() >= 1000) {
        // A large screen: most of it, centred, leaving the desktop visible around the window.
        resize(available.size() * 0.9);
        move(available.center() - rect().center());
    } else {
        // A laptop screen: all of it. The window manager fits the frame into it; without one
        // (a bare X server) the window is the available area.
        setGeometry(available);
        maximize = true;
    }
    // Laid out before it is shown: the docks of other workspaces, still all visible until now,
    // would otherwise make the window as large as all of them need.
    layouts_->start(parseWorkspace(options_.workspace).value_or(layouts_->current()));
    maximize ? showMaximized() : show();
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(QString());
    QAction* openFile = file->addAction(QString(), this, [this] { openModelDialog(false); });
    openFile->setShortcut(QKeySequence::Open);
    QAction* openDirectory = file->addAction(QString(), this, [this] { openModelDialog(true); });
    QAction* connectServer = file->addAction(QString(), this, &MainWindow::connectToServerDialog);
#ifndef INFERLENS_HAVE_REMOTE
    connectServer->setVisible(false);  // this build has no remote client
#endif
    exportMenu_ = file->addMenu(QString());
    file->addSeparator();
    QAction* openTraceAction = file->addAction(QString(), this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open a trace"), QString(), tr("Traces (*.jsonl *.json);;All files (*)"));
        if (!path.isEmpty())
            openTrace(path);
    });
    exportTraceAction_ = file->addAction(QString(), this, &MainWindow::exportTraceDialog);
    exportTraceAction_->setEnabled(false);
    file->addSeparator();
    QAction* quit = file->addAction(QString(), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    texts_.add([=, this] {
        file->setTitle(tr("&File"));
        openFile->setText(tr("Open GGUF &file…"));
        openDirectory->setText(tr("Open model &directory…"));
        connectServer->setText(tr("&Connect to server…"));
        connectServer->setToolTip(
            tr("Watch a model that llama-server, vLLM or SGLang serves (the OpenAI-compatible "
               "API)"));
        exportMenu_->setTitle(tr("&Export panel"));
        openTraceAction->setText(tr("Open &trace…"));
        exportTraceAction_->setText(tr("Export t&race…"));
        exportTraceAction_->setToolTip(
            tr("The last generation's events as JSON lines (the format of inferlens-cli trace)"));
        quit->setText(tr("&Quit"));
    });

    buildViewMenu();

    QMenu* languages = menuBar()->addMenu(QString());
    auto* languageGroup = new QActionGroup(this);
    for (const QString& code :
         {QStringLiteral("system"), QStringLiteral("en"), QStringLiteral("zh_CN")}) {
        QAction* action = languages->addAction(QString());
        action->setCheckable(true);
        action->setChecked(languageSetting() == code);
        action->setData(code);
        languageGroup->addAction(action);
        connect(action, &QAction::triggered, this, [this, code] { switchLanguage(code); });
    }
    texts_.add([=] {
        languages->setTitle(tr("&Language"));
        const QList<QAction*> actions = languageGroup->actions();
        actions[0]->setText(tr("System default"));
        actions[1]->setText(QStringLiteral("English"));  // each language in its own words
        actions[2]->setText(QStringLiteral("简体中文"));
    });

    // CPU and every GPU the CUDA backend can use; choosing one reloads the model there.
    QMenu* devices = menuBar()->addMenu(QString());
    auto* deviceGroup = new QActionGroup(this);
    QAction* cpuAction = devices->addAction(QString());
    cpuAction->setData(QStringLiteral("cpu"));
    const CudaAvailability cuda = queryCudaDevices();
    for (const CudaDevice& gpu : cuda.devices)
        devices
            ->addAction(QStringLiteral("cuda:%1 · %2 · %3")
                            .arg(gpu.index)
                            .arg(QString::fromStdString(gpu.name),
                                 widgets::formatBytes(gpu.totalMemoryBytes)))
            ->setData(QStringLiteral("cuda:%1").arg(gpu.index));
    for (QAction* action : devices->actions()) {
        action->setCheckable(true);
        action->setChecked(action->data().toString() == device());
        deviceGroup->addAction(action);
        connect(action, &QAction::triggered, this,
                [this, action] { chooseDevice(action->data().toString()); });
    }
    QAction* noGpu = nullptr;
    if (cuda.devices.empty()) {
        noGpu = devices->addAction(QString());
        noGpu->setEnabled(false);
    }
    // The CPU's attention kernel, remembered between runs; it takes effect at the next generation.
    devices->addSeparator();
    auto* kernelGroup = new QActionGroup(this);
    QAction* fusedAction = devices->addAction(QString());
    QAction* referenceAction = devices->addAction(QString());
    fusedAction->setObjectName(QStringLiteral("fusedAttentionAction"));
    referenceAction->setObjectName(QStringLiteral("referenceAttentionAction"));
    const AttentionKernel remembered = rememberedAttentionKernel();
    session_->worker()->setAttentionKernel(remembered);
    for (const auto& choice : {std::pair{fusedAction, AttentionKernel::Fused},
                               std::pair{referenceAction, AttentionKernel::Reference}}) {
        QAction* action = choice.first;
        const AttentionKernel kernel = choice.second;
        action->setCheckable(true);
        action->setChecked(kernel == remembered);
        kernelGroup->addAction(action);
        connect(action, &QAction::triggered, this, [this, kernel] {
            QSettings().setValue("engine/attention", QString(attentionKernelName(kernel)));
            session_->worker()->setAttentionKernel(kernel);
        });
    }
    devices->addSeparator();
    QAction* keepCache = devices->addAction(QString());
    keepCache->setObjectName(QStringLiteral("keepCacheAction"));
    keepCache->setCheckable(true);
    keepCache->setChecked(QSettings().value("engine/keepCache", true).toBool());
    session_->worker()->setKeepCache(keepCache->isChecked());
    connect(keepCache, &QAction::toggled, this, [this](bool on) {
        QSettings().setValue("engine/keepCache", on);
        session_->worker()->setKeepCache(on);
    });
    devices->addSeparator();
    kvCacheMenu_ = new KvCacheMenu(devices, session_->worker(), texts_, this);
    texts_.add([=, message = QString::fromStdString(cuda.message)] {
        devices->setTitle(tr("&Device"));
        keepCache->setText(tr("Keep the KV cache between turns (prefill only what is new)"));
        cpuAction->setText(tr("CPU"));
        if (noGpu != nullptr)
            noGpu->setText(tr("No GPU: %1").arg(message));
        fusedAction->setText(tr("Fused attention on the CPU (tiled, no score matrix)"));
        referenceAction->setText(tr("Reference attention on the CPU (every probability)"));
    });

    QMenu* help = menuBar()->addMenu(QString());
    QAction* tour = help->addAction(QString(), this, &MainWindow::startTour);
    tour->setShortcut(QKeySequence::HelpContents);
    QAction* about = help->addAction(QString(), this, &MainWindow::showAbout);
    texts_.add([=] {
        help->setTitle(tr("&Help"));
        tour->setText(tr("&Guided tour"));
        about->setText(tr("&About InferLens"));
    });
}

void MainWindow::buildViewMenu() {
    QMenu* view = menuBar()->addMenu(QString());
    // Its own toolbar row's worth of room is too much at 768 pixels: the workspaces share the
    // first row with the model bar, whose description gives way.
    QToolBar* bar = addToolBar(QString());
    bar->setObjectName(QStringLiteral("workspaceBar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    auto* group = new QActionGroup(this);
    for (Workspace workspace : kWorkspaces) {
        QAction* action = view->addAction(QString());
        action->setCheckable(true);
        action->setObjectName(QStringLiteral("workspace_") + workspaceKey(workspace));
        action->setShortcut(
            QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + int(workspaceActions_.size()))));
        group->addAction(action);
        bar->addAction(action);
        connect(action, &QAction::triggered, this, [this, workspace] { showWorkspace(workspace); });
        workspaceActions_.push_back(action);
    }
    connect(layouts_, &WorkspaceLayouts::switched, this, [this](Workspace workspace) {
        for (size_t i = 0; i < kWorkspaces.size(); ++i)
            workspaceActions_[i]->setChecked(kWorkspaces[i] == workspace);
    });
    view->addSeparator();
    // Every panel, to bring back one closed or to add one to this workspace's layout.
    QMenu* panels = view->addMenu(QString());
    connect(panels, &QMenu::aboutToShow, this, [this, panels] {
        panels->clear();
        QList<QDockWidget*> docks = findChildren<QDockWidget*>();
        std::sort(docks.begin(), docks.end(), [](QDockWidget* a, QDockWidget* b) {
            return a->windowTitle().localeAwareCompare(b->windowTitle()) < 0;
        });
        for (QDockWidget* dock : docks)
            panels->addAction(dock->toggleViewAction());
    });
    view->addSeparator();
    QAction* reset = view->addAction(QString(), this, &MainWindow::resetLayout);
    reset->setObjectName(QStringLiteral("resetLayoutAction"));
    texts_.add([=, this] {
        view->setTitle(tr("&View"));
        bar->setWindowTitle(tr("Workspaces"));
        for (size_t i = 0; i < kWorkspaces.size(); ++i)
            workspaceActions_[i]->setText(workspaceTitle(kWorkspaces[i]));
        panels->setTitle(tr("&Panels"));
        reset->setText(tr("&Reset layout"));
        reset->setToolTip(tr("Every workspace back to its default layout"));
    });
}

void MainWindow::showWorkspace(Workspace workspace) {
    layouts_->show(workspace);
}

Workspace MainWindow::currentWorkspace() const {
    return layouts_->current();
}

void MainWindow::resetLayout() {
    layouts_->resetAll();
    statusBar()->showMessage(tr("Every workspace is back to its default layout"), 5000);
}

void MainWindow::startTour() {
    auto* tourDock = findChild<QDockWidget*>(QStringLiteral("tourDock"));
    tourDock->show();
    tourDock->raise();
    teaching_->tour()->show(0);
}

void MainWindow::buildToolBar() {
    QToolBar* bar = addToolBar(QString());
    bar->setObjectName(QStringLiteral("modelBar"));
    modelLabel_ = new ElidingLabel;
    bar->addWidget(modelLabel_);
    auto* contextLabel = new QLabel;
    bar->addWidget(contextLabel);
    contextBox_ = new QSpinBox;
    contextBox_->setRange(0, 1 << 20);
    contextBox_->setSingleStep(256);
    bar->addWidget(contextBox_);
    loadProgress_ = new QProgressBar;
    loadProgress_->setMaximumWidth(160);
    loadProgress_->setFormat(QStringLiteral("%p%"));
    // A toolbar shows and hides its widgets through their actions.
    loadingActions_ = {bar->addWidget(loadProgress_)};
    cancelLoadButton_ = new QToolButton;
    connect(cancelLoadButton_, &QToolButton::clicked, this,
            [this] { session_->worker()->cancelLoad(); });
    loadingActions_.push_back(bar->addWidget(cancelLoadButton_));
    setLoading(false);
    bar->addSeparator();

    pauseAction_ = bar->addAction(QString());
    pauseAction_->setCheckable(true);
    pauseAction_->setShortcut(Qt::Key_F6);
    connect(pauseAction_, &QAction::toggled, this, [this](bool paused) {
        session_->worker()->setPaused(paused);
        texts_.retranslate();  // "Pause" ↔ "Resume"
    });
    stepTokenAction_ = bar->addAction(QString());
    stepTokenAction_->setObjectName(QStringLiteral("stepTokenAction"));
    stepTokenAction_->setShortcut(Qt::Key_F7);
    connect(stepTokenAction_, &QAction::triggered, this,
            [this] { session_->worker()->control().stepToken(); });
    stepLayerAction_ = bar->addAction(QString());
    stepLayerAction_->setObjectName(QStringLiteral("stepLayerAction"));
    stepLayerAction_->setShortcut(Qt::Key_F8);
    connect(stepLayerAction_, &QAction::triggered, this,
            [this] { session_->worker()->control().stepLayer(); });
    QAction* stop = bar->addAction(QString());
    stop->setShortcut(Qt::Key_Escape);
    connect(stop, &QAction::triggered, this, [this] {
        session_->worker()->control().cancel();
        pauseAction_->setChecked(false);
    });
    texts_.add([=, this] {
        bar->setWindowTitle(tr("Model and run"));
        contextLabel->setText(tr(" Context "));
        contextBox_->setSpecialValueText(tr("auto"));
        contextBox_->setToolTip(
            tr("Tokens the KV cache holds (auto: the model's context, at most "
               "4,096); applies when a model is opened"));
        cancelLoadButton_->setText(tr("Cancel"));
        cancelLoadButton_->setToolTip(tr("Stop loading; the previous model stays"));
        pauseAction_->setText(pauseAction_->isChecked() ? tr("Resume") : tr("Pause"));
        stepTokenAction_->setText(tr("Step token"));
        stepLayerAction_->setText(tr("Step layer"));
        const QString onServer =
            tr("Not for a model on a server: its answer can be paused and resumed, not stepped "
               "(the server runs the layers)");
        stepTokenAction_->setToolTip(
            onServer_ ? onServer : tr("While paused: run until the next token is chosen"));
        stepLayerAction_->setToolTip(onServer_ ? onServer : tr("While paused: run one more layer"));
        stop->setText(tr("Stop"));
        updateModelLabel();
    });
}

QDockWidget* MainWindow::addDock(std::function<QString()> title, const QString& objectName,
                                 QWidget* content, Qt::DockWidgetArea area) {
    auto* dock = new QDockWidget(this);
    dock->setObjectName(objectName);  // saveState/restoreState find docks by name
    dock->setWidget(content);
    addDockWidget(area, dock);
    QAction* exportAction = exportMenu_->addAction(QString(), this, [this, content, title] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export %1").arg(title()),
                                                          title() + QStringLiteral(".png"),
                                                          tr("Images (*.png *.svg *.pdf)"));
        QString error;
        if (!path.isEmpty() && !widgets::exportWidget(content, path, &error))
            QMessageBox::warning(this, tr("Export failed"), error);
    });
    texts_.add([dock, exportAction, title] {
        dock->setWindowTitle(title());
        exportAction->setText(title() + QStringLiteral("…"));
    });
    return dock;
}

void MainWindow::showAbout() {
    QMessageBox::about(
        this, tr("About InferLens"),
        tr("<h3>InferLens %1</h3><p>Runs a language model locally and shows, token by token, "
           "what happens inside: tokenization, attention, the KV cache, sampling.</p>"
           "<p>Qt %2 (built with %3) · compute device: %4</p><p>MIT licence. The bundled model "
           "inferlens-nano is GPL-3.0-or-later (its training data).</p>")
            .arg(QApplication::applicationVersion(), qVersion(), QT_VERSION_STR,
                 model_ ? model_->device : device()));
}

QWidget* MainWindow::buildAttentionPanel() {
    auto* panel = new QWidget;
    auto* layout = new QVBoxLayout(panel);
    auto* selector = new QHBoxLayout;
    auto* layerLabel = new QLabel;
    auto* headLabel = new QLabel;
    layerBox_ = new QSpinBox;
    headBox_ = new QSpinBox;
    logScaleBox_ = new QCheckBox;
    auto* budgetLabel = new QLabel;
    attentionBudgetBox_ = new QSpinBox;
    attentionBudgetBox_->setRange(int(widgets::AttentionStore::kMinimumBudgetBytes >> 10 >> 10) + 1,
                                  64 * 1024);
    selector->addWidget(layerLabel);
    selector->addWidget(layerBox_);
    selector->addWidget(headLabel);
    selector->addWidget(headBox_);
    selector->addWidget(logScaleBox_);
    selector->addStretch();
    selector->addWidget(budgetLabel);
    selector->addWidget(attentionBudgetBox_);
    texts_.add([=, this] {
        layerLabel->setText(tr("Layer"));
        headLabel->setText(tr("Head"));
        logScaleBox_->setText(tr("Log colour scale"));
        budgetLabel->setText(tr("Memory"));
        attentionBudgetBox_->setSuffix(tr(" MB"));
        attentionBudgetBox_->setToolTip(
            tr("Most memory the heat map may hold. A longer sequence is shown pooled: each cell "
               "the largest weight of a block of positions."));
    });
    attention_ = new widgets::AttentionHeatmapWidget;
    connect(attentionBudgetBox_, &QSpinBox::valueChanged, this, [this](int megabytes) {
        attention_->setMemoryBudget(int64_t(megabytes) << 20);
        QSettings().setValue("attention/budgetMB", megabytes);
    });
    attentionBudgetBox_->setValue(
        QSettings()
            .value("attention/budgetMB", int(widgets::AttentionStore::kDefaultBudgetBytes >> 20))
            .toInt());
    attention_->setMemoryBudget(int64_t(attentionBudgetBox_->value()) << 20);
    layout->addLayout(selector);
    layout->addWidget(attention_, 1);
    connect(layerBox_, &QSpinBox::valueChanged, this,
            [this](int layer) { selectHead(layer, headBox_->value()); });
    connect(headBox_, &QSpinBox::valueChanged, this,
            [this](int head) { selectHead(layerBox_->value(), head); });
    connect(logScaleBox_, &QCheckBox::toggled, this, [this](bool on) {
        attention_->setLogScale(on);
        headGrid_->setLogScale(on);
    });
    return panel;
}

void MainWindow::buildPanels() {
    tokens_ = new widgets::TokenStripWidget;
    auto* tokenScroll = new QScrollArea;
    tokenScroll->setWidget(tokens_);
    tokenScroll->setWidgetResizable(true);
    addDock([] { return tr("Tokenization"); }, QStringLiteral("tokenizationDock"), tokenScroll,
            Qt::TopDockWidgetArea);
    connect(tokens_, &widgets::TokenStripWidget::positionSelected, this,
            &MainWindow::selectPosition);

    addDock([] { return tr("Attention"); }, QStringLiteral("attentionDock"), buildAttentionPanel(),
            Qt::RightDockWidgetArea);
    headGrid_ = new widgets::AttentionHeadGridWidget;
    connect(headGrid_, &widgets::AttentionHeadGridWidget::headSelected, this,
            [this](int head) { selectHead(selectedLayer_, head); });
    addDock([] { return tr("Attention heads"); }, QStringLiteral("attentionHeadsDock"), headGrid_,
            Qt::RightDockWidgetArea);
    auto* overviewPanel = new QWidget;
    auto* overviewLayout = new QVBoxLayout(overviewPanel);
    overview_ = new widgets::AttentionOverviewWidget;
    overviewNote_ = new QLabel;
    overviewNote_->setWordWrap(true);
    overviewNote_->hide();
    overviewLayout->addWidget(overview_, 1);
    overviewLayout->addWidget(overviewNote_);
    texts_.add([this] {
        overview_->setMetricName(tr("mean attention entropy (nats)"));
        overviewNote_->setText(
            tr("The prompt's attention is over the memory budget for every "
               "head: the overview counts generated tokens only."));
    });
    connect(overview_, &widgets::AttentionOverviewWidget::headSelected, this,
            &MainWindow::selectHead);
    addDock([] { return tr("Attention overview"); }, QStringLiteral("attentionOverviewDock"),
            overviewPanel, Qt::RightDockWidgetArea);

    samplingChart_ = new widgets::SamplingChartWidget;
    auto* samplingPanel = new QWidget;
    auto* samplingLayout = new QVBoxLayout(samplingPanel);
    samplingLayout->setContentsMargins(0, 0, 0, 0);
    samplingLayout->addWidget(samplingChart_, 1);
    samplingLayout->addWidget(new CacheComparisonBar(session_->worker()));
    addDock([] { return tr("Sampling"); }, QStringLiteral("samplingDock"), samplingPanel,
            Qt::RightDockWidgetArea);
    addDock([] { return tr("Next token"); }, QStringLiteral("samplingSummaryDock"), summary_,
            Qt::RightDockWidgetArea);
    summary_->setParams(sampling_->params());
    // Scrolled, so that the sliders and the processor fields never set the window's height.
    auto* parametersScroll = new QScrollArea;
    parametersScroll->setWidget(sampling_);
    parametersScroll->setWidgetResizable(true);
    parametersScroll->setFrameShape(QFrame::NoFrame);
    // Scrolled up and down only: a slider's value box cut off at the right helps nobody.
    parametersScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    parametersScroll->setMinimumWidth(sampling_->minimumSizeHint().width() +
                                      parametersScroll->verticalScrollBar()->sizeHint().width());
    addDock([] { return tr("Sampling parameters"); }, QStringLiteral("samplingParametersDock"),
            parametersScroll, Qt::LeftDockWidgetArea);
    kvChart_ = new widgets::KvCacheChartWidget;
    kvPanel_ = new QWidget;
    auto* kvLayout = new QVBoxLayout(kvPanel_);
    kvLayout->setContentsMargins(0, 0, 0, 0);
    kvLayout->addWidget(kvChart_, 1);
    addDock([] { return tr("KV cache"); }, QStringLiteral("kvCacheDock"), kvPanel_,
            Qt::LeftDockWidgetArea);
    loopGrid_ = new widgets::DoubleLoopGridWidget;
    addDock([] { return tr("Double loop"); }, QStringLiteral("doubleLoopDock"), loopGrid_,
            Qt::BottomDockWidgetArea);
    branches_ = new widgets::BranchCompareWidget;
    addDock([] { return tr("Branches"); }, QStringLiteral("branchesDock"), branches_,
            Qt::BottomDockWidgetArea);
    tokenArrival_ = new widgets::TokenArrivalWidget;
    tokenArrivalDock_ =
        addDock([] { return tr("Token arrival"); }, QStringLiteral("tokenArrivalDock"),
                tokenArrival_, Qt::BottomDockWidgetArea);
    beamTree_ = new BeamTreePanel;
    beamTreeDock_ = addDock([] { return tr("Beam tree"); }, QStringLiteral("beamTreeDock"),
                            beamTree_, Qt::BottomDockWidgetArea);
    connect(samplingChart_, &widgets::SamplingChartWidget::candidateClicked, this,
            &MainWindow::forceCandidate);
    // Where each dock goes and how large: workspace_layouts.cpp, per workspace.
}

void MainWindow::buildTeachingDocks() {
    teaching_ = new TeachingViews(
        session_->worker(), [this] { return generating_; }, this);
    static_cast<QVBoxLayout*>(kvPanel_->layout())->addWidget(teaching_->kvLesson());
    addDock([] { return tr("Guided tour"); }, QStringLiteral("tourDock"), teaching_->tourPanel(),
            Qt::LeftDockWidgetArea);
    addDock([] { return tr("Shapes and costs"); }, QStringLiteral("stepCostsDock"),
            teaching_->costsPanel(), Qt::BottomDockWidgetArea);
    addDock([] { return tr("Logit lens"); }, QStringLiteral("logitLensDock"),
            teaching_->lensPanel(), Qt::RightDockWidgetArea);
    addDock([] { return tr("KV cache experiment"); }, QStringLiteral("kvExperimentDock"),
            teaching_->experimentPanel(), Qt::LeftDockWidgetArea);
    addDock([] { return tr("Attention kernels"); }, QStringLiteral("attentionKernelsDock"),
            teaching_->attentionKernels(), Qt::BottomDockWidgetArea);
    connect(teaching_, &TeachingViews::highlightPanel, this, &MainWindow::highlightPanel);
    connect(teaching_, &TeachingViews::experimentStarted, this, [this](const QString& status) {
        generating_ = true;
        chat_->setBusy(true, false);
        statusBar()->showMessage(status);
    });
    connect(teaching_, &TeachingViews::experimentFinished, this, [this](const QString& message) {
        generating_ = false;
        chat_->setBusy(false);
        statusBar()->showMessage(message);
    });
}

void MainWindow::highlightPanel(const QString& panel) {
    auto* dock = findChild<QDockWidget*>(panel);
    if (dock == nullptr)
        return;
    highlightedPanel_ = panel;
    // The tour shows each panel in its workspace, and goes along: a person reading step 5 in the
    // Attention workspace still has the Next button.
    auto* tourDock = findChild<QDockWidget*>(QStringLiteral("tourDock"));
    const bool touring = tourDock->isVisible();
    const std::optional<Workspace> home = WorkspaceLayouts::homeOf(panel);
    // A dock in this layout, even behind a tab, is "checked"; one closed here is not.
    if (!dock->toggleViewAction()->isChecked() && home && *home != layouts_->current())
        layouts_->show(*home);
    if (touring && !tourDock->toggleViewAction()->isChecked()) {
        tourDock->setFloating(false);
        addDockWidget(Qt::LeftDockWidgetArea, tourDock, Qt::Horizontal);
        tourDock->show();
        resizeDocks({tourDock}, {width() / 5}, Qt::Horizontal);
    }
    if (touring)
        tourDock->raise();
    dock->show();
    dock->raise();
    // A moment of colour on the dock's title bar draws the eye to it.
    dock->setStyleSheet(QStringLiteral("QDockWidget::title { background: #f5a623; }"));
    QTimer::singleShot(1500, dock, [dock] { dock->setStyleSheet(QString()); });
}

void MainWindow::updateTour() {
    if (!model_)
        return;
    TourFacts facts;
    facts.config = model_->config;
    facts.bytesPerWeight = model_->bytesPerWeight;
    facts.contextSize = model_->contextSize;
    facts.chatTemplate = model_->chatTemplate;
    facts.promptTokens = promptLength_;
    facts.promptPieces = QStringList(promptPieces_.begin(), promptPieces_.end());
    facts.generatedTokens = int(answerTexts_.size());
    if (!answerTexts_.empty() && !samplingSteps_.empty()) {
        const widgets::SamplingStep& first = samplingSteps_.front();
        facts.firstToken = first.chosenIndex >= 0
                               ? widgets::tokenDisplayText(
                                     first.candidates[size_t(first.chosenIndex)].label, {}, false)
                               : answerTexts_.front();
        facts.firstTokenProbability = first.chosenProbability;
        facts.firstTokenCandidates = first.cutoffIndex;
    }
    facts.finishReason = finishReason_;
    facts.sampling = sampling_->params();
    facts.layer = selectedLayer_;
    facts.head = selectedHead_;
    teaching_->setTourFacts(facts);
}

void MainWindow::openModelDialog(bool directory) {
    const QString path =
        directory
            ? QFileDialog::getExistingDirectory(this, tr("Open a Hugging Face model directory"))
            : QFileDialog::getOpenFileName(this, tr("Open a GGUF model"), QString(),
                                           tr("GGUF models (*.gguf);;All files (*)"));
    if (!path.isEmpty())
        loadModel(path);
}

QString MainWindow::device() const {
    if (!options_.device.isEmpty())
        return options_.device;
    return QSettings().value("engine/device", QStringLiteral("cpu")).toString();
}

AttentionKernel MainWindow::rememberedAttentionKernel() {
    const QString name = QSettings().value("engine/attention", QStringLiteral("fused")).toString();
    return name == QLatin1String("reference") ? AttentionKernel::Reference : AttentionKernel::Fused;
}

void MainWindow::chooseDevice(const QString& device) {
    QSettings().setValue("engine/device", device);
    options_.device = device;
    if (model_)
        loadModel(model_->path);
}

void MainWindow::loadModel(const QString& path) {
    if (generating_) {
        QMessageBox::information(this, tr("Generation running"),
                                 tr("Stop the generation before opening another model."));
        return;
    }
    loadingPath_ = path;
    plan_.reset();
    setLoading(true);
    QMetaObject::invokeMethod(session_->worker(), "loadModel", Qt::QueuedConnection,
                              Q_ARG(QString, path), Q_ARG(qint64, contextBox_->value()),
                              Q_ARG(QString, device()));
}

void MainWindow::setLoading(bool loading) {
    chat_->setBusy(loading, false);
    loadProgress_->setValue(0);
    for (QAction* action : loadingActions_)
        action->setVisible(loading);
    if (!loading)
        loadingPath_.clear();
    updateModelLabel();
}

void MainWindow::updateModelLabel() {
    QString text;
    if (!loadingPath_.isEmpty()) {
        text = tr("Loading %1…").arg(QFileInfo(loadingPath_).fileName());
        if (plan_) {
            text += QStringLiteral(" ") + tr("needs %1 (weights %2 + KV cache %3 at %4 tokens)")
                                              .arg(widgets::formatBytes(plan_->totalBytes()),
                                                   widgets::formatBytes(plan_->weightBytes),
                                                   widgets::formatBytes(plan_->kvCacheBytes))
                                              .arg(plan_->contextSize);
            if (plan_->availableBytes >= 0)
                text += QStringLiteral(" ") +
                        tr("of %1 free").arg(widgets::formatBytes(plan_->availableBytes));
        }
    } else if (model_ && model_->remote) {
        text = tr("%1 · %2 at %3 · context %4")
                   .arg(model_->path, model_->architecture, model_->device)
                   .arg(model_->contextSize > 0 ? QString::number(model_->contextSize)
                                                : tr("unknown"));
    } else if (model_) {
        text = tr("%1 · %2 · %3 parameters · %4 · context %5 of %6 · %7")
                   .arg(QFileInfo(model_->path).fileName(), model_->architecture,
                        humanCount(model_->parameters), model_->dtype)
                   .arg(model_->contextSize)
                   .arg(model_->contextLength)
                   .arg(model_->device);
        if (plan_)
            text += QStringLiteral(" · ") +
                    tr("%1 in memory").arg(widgets::formatBytes(plan_->totalBytes()));
    } else {
        text = tr("No model");
    }
    modelLabel_->setFullText(text);
    modelLabel_->setToolTip(model_ ? text + QLatin1Char('\n') + model_->path : text);
}

void MainWindow::onLoadPlanned(const LoadPlan& plan) {
    plan_ = plan;
    updateModelLabel();
}

void MainWindow::onModelLoaded(const ModelSummary& summary) {
    model_ = summary;
    modelReady_ = true;
    setLoading(false);
    // What the panels show belongs to the previous model (or to a replayed trace).
    player_->stop();
    replayPath_.clear();
    clearPanels();
    showServerLimits(summary.remote);
    if (summary.remote) {
        if (rememberServer_)
            rememberServer_();
        rememberServer_ = {};
        updateTour();
        statusBar()->showMessage(tr("Connected to %1 (%2), model %3")
                                     .arg(summary.device, summary.architecture, summary.path));
        if (!options_.prompt.isEmpty())
            chat_->send(options_.prompt);
        return;
    }
    kvChart_->setContextLimit(summary.contextSize);
    {
        const QSignalBlocker blockLayer(layerBox_), blockHead(headBox_);
        layerBox_->setRange(0, summary.layers - 1);
        headBox_->setRange(0, summary.heads - 1);
    }
    overview_->setShape(summary.layers, summary.heads);
    teaching_->setModel(summary);
    selectedLayer_ = selectedHead_ = -1;  // so that selectHead applies everything
    selectHead(std::min(layerBox_->value(), summary.layers - 1),
               std::min(headBox_->value(), summary.heads - 1));
    updateTour();
    statusBar()->showMessage(summary.deviceNote.isEmpty()
                                 ? tr("Model loaded on %1; chat template %2")
                                       .arg(summary.device, summary.chatTemplateDescription)
                                 : summary.deviceNote);
    if (!options_.prompt.isEmpty())
        chat_->send(options_.prompt);
}

void MainWindow::onModelFailed(const QString& message) {
    setLoading(false);
    if (options_.quitAfterGeneration)
        return finishHeadlessRun(false, tr("cannot load the model: %1").arg(message));
    QMessageBox::critical(this, tr("Cannot open the model"), message);
}

void MainWindow::startGeneration(const QList<ChatTurn>& conversation) {
    if (!beginRun(true))
        return;
    branches_->clear();  // a new question starts a new tree of branches
    currentBranch_ = -1;
    session_->worker()->setStopStrings(sampling_->stopStrings());
    QMetaObject::invokeMethod(session_->worker(), "generate", Qt::QueuedConnection,
                              Q_ARG(QList<inferlens::gui::ChatTurn>, conversation),
                              Q_ARG(int, sampling_->maxNewTokens()));
}

void MainWindow::forceCandidate(int index) {
    const widgets::SamplingStep step = samplingChart_->step();
    if (index < 0 || index >= int(step.candidates.size()) || !replayPath_.isEmpty() ||
        currentBranch_ < 0)
        return;
    if (generating_) {
        statusBar()->showMessage(
            tr("Branching starts from a finished generation: stop this one first"));
        return;
    }
    const widgets::SamplingCandidate& candidate = step.candidates[size_t(index)];
    // A server's step knows the model's own probabilities only.
    const PendingBranch branch{
        currentBranch_, step.step, widgets::tokenDisplayText(candidate.label, {}, false),
        candidate.probability[step.fromServer ? widgets::kStageRaw : widgets::kStageFinal]};
    if (!beginRun(false))
        return;
    pendingBranch_ = branch;
    statusBar()->showMessage(
        tr("Forcing “%1” at step %2 and continuing").arg(branch.forcedText).arg(branch.step));
    QMetaObject::invokeMethod(session_->worker(), "branch", Qt::QueuedConnection,
                              Q_ARG(int, branch.step), Q_ARG(int, candidate.id),
                              Q_ARG(int, sampling_->maxNewTokens()));
}

bool MainWindow::beginRun(bool chatAnswer) {
    if (!modelReady_ || generating_)
        return false;
    generating_ = true;
    recomputeAfterGeneration_ = false;
    stepsReceived_ = 0;
    tokensGenerated_ = 0;
    samplingSteps_.clear();
    answerTexts_.clear();
    pendingBranch_.reset();
    session_->worker()->beginRecompute();  // an old recomputation would only be overwritten
    player_->stop();
    replayPath_.clear();
    exportTraceAction_->setEnabled(false);
    chat_->setBusy(true, chatAnswer);
    session_->worker()->setBeamChoice({sampling_->beamWidth(), sampling_->lengthPenalty()});
    kvChart_->clear();
    loopGrid_->clear();
    samplingChart_->clear();
    headGrid_->setLayer(selectedLayer_, model_ ? model_->heads : 0);
    stallMonitor_->start();
    return true;
}

void MainWindow::recordBranch() {
    widgets::BranchRecord record;
    if (pendingBranch_) {
        const widgets::BranchRecord& parent = branches_->branch(pendingBranch_->parent);
        record.title =
            tr("“%1” forced at step %2").arg(pendingBranch_->forcedText).arg(pendingBranch_->step);
        record.parent = pendingBranch_->parent;
        record.divergeAt = pendingBranch_->step;
        record.tokens.assign(parent.tokens.begin(),
                             parent.tokens.begin() +
                                 std::min<qsizetype>(pendingBranch_->step, parent.tokens.size()));
        record.tokens.push_back(
            {pendingBranch_->forcedText, pendingBranch_->forcedProbability, true});
    } else {
        record.title = tr("the answer");
    }
    // Token g was drawn at sampling step g, with that step's chosen probability.
    for (size_t g = 0; g < answerTexts_.size(); ++g)
        record.tokens.push_back(
            {answerTexts_[g], g < samplingSteps_.size() ? samplingSteps_[g].chosenProbability : 0,
             false});
    currentBranch_ = branches_->addBranch(std::move(record));
    pendingBranch_.reset();
}

void MainWindow::connectToServerDialog() {
#ifdef INFERLENS_HAVE_REMOTE
    if (generating_) {
        statusBar()->showMessage(tr("Stop the answer first"));
        return;
    }
    ConnectDialog dialog(this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    const ServerChoice choice = dialog.choice();
    const bool rememberKey = dialog.rememberKey();
    rememberServer_ = [choice, rememberKey] { ConnectDialog::remember(choice, rememberKey); };
    connectToServer(choice.url, choice.model, choice.apiKey, choice.caFile);
#endif
}

void MainWindow::connectToServer(const QString& url, const QString& model, const QString& apiKey,
                                 const QString& caFile) {
    modelReady_ = false;
    statusBar()->showMessage(tr("Connecting to %1…").arg(url));
    QMetaObject::invokeMethod(session_->worker(), "connectToServer", Qt::QueuedConnection,
                              Q_ARG(QString, url), Q_ARG(QString, model), Q_ARG(QString, apiKey),
                              Q_ARG(QString, caFile));
}

void MainWindow::onConnectFailed(const QString& message) {
    rememberServer_ = {};
    modelReady_ = model_.has_value();  // the model before stays in use
    statusBar()->clearMessage();
    if (options_.quitAfterGeneration)
        return finishHeadlessRun(false, tr("cannot connect to the server: %1").arg(message));
    QMessageBox::critical(this, tr("Cannot connect to the server"), message);
}

void MainWindow::showServerLimits(bool onServer) {
    sampling_->setOnServer(onServer);
    onServer_ = onServer;
    stepTokenAction_->setEnabled(!onServer);
    stepLayerAction_->setEnabled(!onServer);
    texts_.retranslate();  // the step buttons' tooltips
    if (serverNotes_.empty() && !onServer)
        return;
    if (serverNotes_.empty()) {
        // The panels whose data a server's API does not return, each with the reason.
        const auto layers = [] {
            return tr(
                "Not available for a model on a server: the API returns tokens and their "
                "probabilities, not the layers, attention or hidden states that made them.");
        };
        const auto cache = [] {
            return tr("Not available for a model on a server: its KV cache stays on the server.");
        };
        const std::pair<const char*, std::function<QString()>> panels[] = {
            {"attentionDock", layers},         {"attentionHeadsDock", layers},
            {"attentionOverviewDock", layers}, {"logitLensDock", layers},
            {"doubleLoopDock", layers},        {"stepCostsDock", layers},
            {"attentionKernelsDock", layers},  {"kvCacheDock", cache},
            {"kvExperimentDock", cache},       {"beamTreeDock", layers}};
        for (const auto& [name, text] : panels)
            if (auto* dock = findChild<QDockWidget*>(QString::fromLatin1(name));
                dock && dock->widget())
                serverNotes_.push_back(new UnavailableNote(dock->widget(), text));
        texts_.add([this] {
            for (UnavailableNote* note : serverNotes_)
                note->retranslate();
        });
    }
    for (UnavailableNote* note : serverNotes_) {
        note->setVisible(onServer);
        note->raise();
    }
    if (auto* bar = findChild<CacheComparisonBar*>())
        bar->setEnabled(!onServer);
    if (onServer)
        tokenArrivalDock_->raise();
}

void MainWindow::onGenerationFinished(const QString& answer, const QString& reason, bool ok) {
    generating_ = false;
    stallMonitor_->stop();
    pauseAction_->setChecked(false);
    chat_->setBusy(false);
    const bool branch = pendingBranch_.has_value();
    finishReason_ = reason;
    if (ok)
        recordBranch();
    updateTour();
    pendingBranch_.reset();
    if (!branch)
        chat_->finishAnswer(answer, reason, ok);
    const QString summary = tr("%1 tokens; longest UI stall %2 ms")
                                .arg(tokensGenerated_)
                                .arg(stallMonitor_->longestStallMs(), 0, 'f', 1);
    statusBar()->showMessage(
        promptTiming_.isEmpty() ? summary : summary + QStringLiteral("; ") + promptTiming_);
    promptTiming_.clear();
    if (recomputeAfterGeneration_)
        requestRecompute();
    finishRun(ok, reason);
}

void MainWindow::finishRun(bool ok, const QString& reason) {
    if (ok && options_.kvExperiment > 0 && !teaching_->experimentChart()->pointCount(true)) {
        // The documentation's KV plot: the experiment on this prompt, then the screenshot.
        connect(
            teaching_, &TeachingViews::experimentFinished, this,
            [this, reason] { finishRun(true, reason); }, Qt::SingleShotConnection);
        if (teaching_->runExperiment(options_.kvExperiment))
            return;
        return finishHeadlessRun(false, tr("cannot start the KV cache experiment"));
    }
    if (ok && options_.attentionKernels && teaching_->attentionKernels()->rowCount() == 0) {
        // The documentation's kernel table: the timings, then the screenshot.
        connect(
            teaching_, &TeachingViews::experimentFinished, this,
            [this, reason] { finishRun(true, reason); }, Qt::SingleShotConnection);
        if (teaching_->runAttentionKernels())
            return;
        return finishHeadlessRun(false, tr("cannot time the attention kernels"));
    }
    if (ok && options_.compareCache && !cacheCompared_) {
        // The documentation's comparison: the exact cache's shadow run, then the screenshot.
        cacheCompared_ = true;
        connect(
            session_->worker(), &EngineWorker::cacheCompared, this,
            [this, reason] { finishRun(true, reason); }, Qt::SingleShotConnection);
        findChild<QPushButton*>(QStringLiteral("compareCacheButton"))->click();
        return;
    }
    if (!options_.screenshot.isEmpty()) {
        if (options_.tourStep > 0)
            teaching_->tour()->show(options_.tourStep - 1);
        for (QDockWidget* dock : findChildren<QDockWidget*>())
            dock->setStyleSheet(QString());  // no tour highlight in a screenshot
        for (const QString& panel : options_.panels) {
            auto* dock = findChild<QDockWidget*>(panel);
            if (dock == nullptr)
                return finishHeadlessRun(false, tr("no panel named %1").arg(panel));
            dock->show();
            dock->raise();
        }
        QApplication::processEvents();
        if (!grab().save(options_.screenshot))
            return finishHeadlessRun(false, tr("cannot write %1").arg(options_.screenshot));
    }
    if (options_.quitAfterGeneration)
        finishHeadlessRun(ok, ok ? QString() : reason);
}

void MainWindow::clearPanels() {
    tokens_->clear();
    attention_->clear();
    attention_->setTokenLabels({});
    headGrid_->clear();
    samplingChart_->clear();
    summary_->clear();
    kvChart_->clear();
    loopGrid_->clear();
    tokenArrival_->clear();
    samplingSteps_.clear();
    promptLength_ = 0;
    branches_->clear();
    currentBranch_ = -1;
}

bool MainWindow::exportTrace(const QString& path, QString* error) const {
    if (tracePath_.isEmpty()) {
        *error = tr("There is no generation to export yet.");
        return false;
    }
    QFile::remove(path);  // QFile::copy does not overwrite
    if (!QFile::copy(tracePath_, path)) {
        *error = tr("Cannot write “%1”.").arg(path);
        return false;
    }
    return true;
}

void MainWindow::exportTraceDialog() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export the trace"), QStringLiteral("trace.jsonl"), tr("Traces (*.jsonl *.json)"));
    QString error;
    if (!path.isEmpty() && !exportTrace(path, &error))
        QMessageBox::warning(this, tr("Export failed"), error);
}

bool MainWindow::replaying() const {
    return player_->playing();
}

void MainWindow::openTrace(const QString& path) {
    if (generating_) {
        QMessageBox::information(this, tr("Generation running"),
                                 tr("Stop the generation before opening a trace."));
        return;
    }
    player_->stop();
    statusBar()->showMessage(tr("Reading %1…").arg(path));
    // Parsed off the UI thread: a trace with attention can be tens of megabytes.
    struct Loaded {
        std::shared_ptr<RecordedTrace> trace;
        QString error;
    };
    auto* watcher = new QFutureWatcher<Loaded>(this);
    connect(watcher, &QFutureWatcher<Loaded>::finished, this, [this, watcher, path] {
        watcher->deleteLater();
        const Loaded loaded = watcher->result();
        if (!loaded.trace) {
            if (options_.quitAfterGeneration)
                return finishHeadlessRun(false, loaded.error);
            QMessageBox::critical(this, tr("Cannot open the trace"), loaded.error);
            return;
        }
        startReplay(path, std::move(*loaded.trace));
    });
    watcher->setFuture(QtConcurrent::run([path]() -> Loaded {
        try {
            return {std::make_shared<RecordedTrace>(readTrace(path)), {}};
        } catch (const std::exception& error) {
            return {nullptr, exceptionMessage(error)};
        }
    }));
}

void MainWindow::startReplay(const QString& path, RecordedTrace trace) {
    if (generating_)
        return;
    clearPanels();
    stepsReceived_ = 0;
    tokensGenerated_ = 0;
    replayPath_ = path;
    // The heat map shows the head the trace recorded (the first one in it).
    for (const TraceEvent& event : trace.events)
        if (const auto* matrix = std::get_if<widgets::AttentionMatrix>(&event)) {
            const QSignalBlocker blockLayer(layerBox_), blockHead(headBox_);
            selectedLayer_ = matrix->layer;
            selectedHead_ = matrix->head;
            layerBox_->setValue(matrix->layer);
            headBox_->setValue(matrix->head);
            headGrid_->setLayer(matrix->layer, matrix->head + 1);
            headGrid_->setSelectedHead(matrix->head);
            break;
        }
    statusBar()->showMessage(tr("Replaying %1").arg(QFileInfo(path).fileName()));
    player_->play(std::move(trace), options_.quitAfterGeneration ? 0 : 30);
}

void MainWindow::onReplayFinished(const QString& reason) {
    statusBar()->showMessage(tr("Replayed %1 tokens from %2 (the generation ended: %3)")
                                 .arg(tokensGenerated_)
                                 .arg(QFileInfo(replayPath_).fileName(), reason));
    finishRun(true, reason);
}

void MainWindow::finishHeadlessRun(bool ok, const QString& message) {
    if (ok)
        std::printf("generated %d tokens in %d steps; longest UI stall %.1f ms\n", tokensGenerated_,
                    stepsReceived_, stallMonitor_->longestStallMs());
    else
        std::fprintf(stderr, "inferlens: %s\n", qUtf8Printable(message));
    std::fflush(stdout);
    QCoreApplication::exit(ok ? 0 : 1);
}

double MainWindow::longestStallMs() const {
    return stallMonitor_->longestStallMs();
}

void MainWindow::onTokenized(const std::vector<widgets::TokenChip>& chips) {
    promptLength_ = int(chips.size());
    teaching_->sequenceStarted();
    promptPieces_.clear();
    for (size_t i = 0; i < std::min<size_t>(chips.size(), 8); ++i)
        promptPieces_.push_back(
            widgets::tokenDisplayText(chips[i].piece, chips[i].bytes, chips[i].special));
    tokens_->setTokens(chips);
    QStringList labels;
    for (const widgets::TokenChip& chip : chips)
        labels << widgets::tokenDisplayText(chip.piece, chip.bytes, chip.special);
    attention_->setTokenLabels(labels);
}

void MainWindow::onTokenGenerated(const widgets::TokenChip& chip, const QString& text) {
    ++tokensGenerated_;
    tokens_->appendToken(chip);
    attention_->appendTokenLabel(widgets::tokenDisplayText(chip.piece, chip.bytes, chip.special));
    answerTexts_.push_back(text);
    if (!pendingBranch_)  // a branch is shown in the branches panel, not the chat
        chat_->appendAnswerText(text);
}

void MainWindow::onAttention(const widgets::AttentionMatrix& matrix) {
    if (matrix.layer != selectedLayer_)
        return;  // captured before the selection moved
    const bool fresh = matrix.firstQuery == 0;
    if (fresh)
        headGrid_->setMatrix(matrix);
    else
        headGrid_->appendRows(matrix);
    if (matrix.head != selectedHead_)
        return;
    if (fresh)
        attention_->setMatrix(matrix);
    else
        attention_->appendRows(matrix);
}

void MainWindow::onOverview(const AttentionOverview& overview) {
    overview_->setValues(overview.layers, overview.heads, overview.meanEntropy);
    overviewNote_->setVisible(overview.promptSkipped);
}

void MainWindow::onLoopTiming(const widgets::LoopTiming& timing) {
    ++stepsReceived_;
    if (model_ && model_->remote) {
        // No layers: the inner loop runs on the server; the outer loop shows as arrival times.
        tokenArrival_->addArrival(timing.step, timing.stepSeconds);
        return;
    }
    loopGrid_->appendStep(timing);
    teaching_->stepTimed(timing);
}

void MainWindow::onSampling(const widgets::SamplingStep& step) {
    samplingSteps_.push_back(step);
    samplingChart_->setStep(step);
    summary_->setStep(step);
    samplingChart_->appendHistory(step.step, step.entropy, step.chosenProbability);
}

void MainWindow::onSamplingParams(const SamplingParams& params) {
    session_->worker()->setSampling(params);
    summary_->setParams(params);
    if (model_ && model_->remote && !generating_ && !samplingSteps_.empty() &&
        samplingSteps_.back().fromServer) {
        // After a server's answer: what these settings would make of its last step's top-N (the
        // server applies them from the next request).
        samplingChart_->setStep(reshapeServerStep(samplingSteps_.back(), params));
        return;
    }
    if (!generating_ || !pauseAction_->isChecked())
        return;
    // Paused: show what the new parameters do to the step just sampled, from its retained logits
    // (the model does not run; the parameters apply for real from the next token).
    const std::shared_ptr<const RetainedStep> retained = session_->worker()->retainedStep();
    if (!retained)
        return;
    try {
        samplingChart_->setStep(previewStep(*retained, params));
        statusBar()->showMessage(tr("Preview of step %1 with the new parameters; they apply from "
                                    "the next token")
                                     .arg(retained->step));
    } catch (const Error& error) {
        statusBar()->showMessage(QString::fromUtf8(error.what()));
    }
}

void MainWindow::selectHead(int layer, int head) {
    if ((!model_ && replayPath_.isEmpty()) || layer < 0 || head < 0 ||
        (layer == selectedLayer_ && head == selectedHead_))
        return;
    const bool layerChanged = layer != selectedLayer_;
    selectedLayer_ = layer;
    selectedHead_ = head;
    {
        const QSignalBlocker blockLayer(layerBox_), blockHead(headBox_);
        layerBox_->setValue(layer);
        headBox_->setValue(head);
    }
    if (layerChanged)
        headGrid_->setLayer(layer, model_ ? model_->heads : 0);
    headGrid_->setSelectedHead(head);
    overview_->setSelected(layer, head);
    session_->worker()->selectHead(layer, head);
    // The heat map holds one head at full resolution: the new one's past rows are recomputed (after
    // the generation when one is running; its new rows arrive live meanwhile).
    attention_->clear();
    updateTour();
    if (!replayPath_.isEmpty())
        statusBar()->showMessage(tr("A trace holds the attention of the head it recorded only"));
    else if (generating_)
        recomputeAfterGeneration_ = true;
    else
        requestRecompute();
}

void MainWindow::requestRecompute() {
    recomputeAfterGeneration_ = false;
    if (tokens_->tokenCount() == 0)
        return;  // nothing generated yet
    const quint64 serial = session_->worker()->beginRecompute();
    headGrid_->setLayer(selectedLayer_, model_ ? model_->heads : 0);
    headGrid_->setSelectedHead(selectedHead_);
    statusBar()->showMessage(tr("Recomputing the attention of layer %1…").arg(selectedLayer_));
    QMetaObject::invokeMethod(session_->worker(), "recomputeAttention", Qt::QueuedConnection,
                              Q_ARG(int, selectedLayer_), Q_ARG(quint64, serial));
}

void MainWindow::selectPosition(int position) {
    tokens_->setSelectedPosition(position);
    attention_->setSelectedPosition(position);
    // The prompt runs in step 0; the token at promptLength_ + g was chosen by sampling step g and
    // runs in decode step g + 1.
    const int generated = position - promptLength_;
    loopGrid_->setSelectedStep(position < 0 ? -1 : generated < 0 ? 0 : generated + 1);
    if (generated >= 0 && generated < int(samplingSteps_.size()))
        samplingChart_->setStep(samplingSteps_[size_t(generated)]);
}

void MainWindow::switchLanguage(const QString& language) {
    setLanguageSetting(language);
    installTranslator(language);  // every widget gets LanguageChange and re-translates itself
}

void MainWindow::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) {
        texts_.retranslate();
        if (teaching_ != nullptr)
            teaching_->retranslate();
    }
    QMainWindow::changeEvent(event);
}

void MainWindow::restoreSession() {
    QSettings settings;
    // The geometry is restored when the window is shown (showOnScreen), if it fits the screen.
    bool droppedLegacyLayout = false;
    layouts_->load(&droppedLegacyLayout);
    if (droppedLegacyLayout)
        statusBar()->showMessage(
            tr("The panel layout saved by an earlier version was set aside: each workspace starts "
               "from its default layout (View menu, Ctrl+1…4)"),
            30000);
    if (!options_.draftQuestion.isEmpty())
        chat_->setDraft(options_.draftQuestion);
    contextBox_->setValue(settings.value("model/context", 0).toInt());
    if (!options_.prompt.isEmpty())  // a headless run starts from an empty conversation
        return;
    // Conversations used to live in the settings: moved once into their own file.
    if (settings.contains("chat/conversation") && !QFile::exists(conversations_.path())) {
        QList<ChatTurn> turns;
        const QJsonArray saved =
            QJsonDocument::fromJson(settings.value("chat/conversation").toByteArray()).array();
        for (const auto& value : saved) {
            const QJsonObject turn = value.toObject();
            turns.append({turn["role"].toString() == "user", turn["text"].toString()});
        }
        if (conversations_.save(turns).isEmpty())
            settings.remove("chat/conversation");
    }
    const ConversationStore::Loaded loaded = conversations_.load();
    if (!loaded.problem.isEmpty()) {  // told without blocking the start
        auto* box = new QMessageBox(QMessageBox::Warning, tr("Saved conversation"), loaded.problem,
                                    QMessageBox::Ok, this);
        box->setObjectName(QStringLiteral("conversationProblem"));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    }
    chat_->setConversation(loaded.turns);
}

void MainWindow::saveSession() const {
    if (options_.quitAfterGeneration)  // headless runs leave the user's session alone
        return;
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    layouts_->save();
    settings.setValue("model/context", contextBox_->value());
    const QString error = conversations_.save(chat_->conversation());
    if (!error.isEmpty())
        statusBar()->showMessage(tr("The conversation could not be saved: %1").arg(error));
}

void MainWindow::closeEvent(QCloseEvent* event) {
    saveSession();
    session_->worker()->control().cancel();
    session_->worker()->control().resume();
    event->accept();
}

}  // namespace inferlens::gui
