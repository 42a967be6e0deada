#include "main_window.h"

#include <QActionGroup>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QToolBar>
#include <QVBoxLayout>
#include <cstdio>

#include "attention_heatmap_widget.h"
#include "chat_view.h"
#include "display_text.h"
#include "double_loop_grid_widget.h"
#include "kv_cache_chart_widget.h"
#include "language.h"
#include "models/default_model.h"
#include "panel_export.h"
#include "sampling_chart_widget.h"
#include "sampling_controls.h"
#include "stall_monitor.h"
#include "token_strip_widget.h"

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
      stallMonitor_(new StallMonitor(this)) {
    setWindowTitle(tr("InferLens"));
    setCentralWidget(chat_);
    buildToolBar();
    buildPanels();
    if (options_.maxTokens > 0)
        sampling_->setMaxNewTokens(options_.maxTokens);

    EngineWorker* worker = session_->worker();
    connect(worker, &EngineWorker::modelLoaded, this, &MainWindow::onModelLoaded);
    connect(worker, &EngineWorker::modelFailed, this, &MainWindow::onModelFailed);
    connect(worker, &EngineWorker::tokenized, this,
            [this](const std::vector<widgets::TokenChip>& chips) {
                tokens_->setTokens(chips);
                QStringList labels;
                for (const widgets::TokenChip& chip : chips)
                    labels << widgets::tokenDisplayText(chip.piece, chip.bytes, chip.special);
                attention_->setTokenLabels(labels);
            });
    connect(worker, &EngineWorker::tokenGenerated, this,
            [this](const widgets::TokenChip& chip, const QString& text) {
                ++tokensGenerated_;
                tokens_->appendToken(chip);
                attention_->appendTokenLabel(
                    widgets::tokenDisplayText(chip.piece, chip.bytes, chip.special));
                chat_->appendAnswerText(text);
            });
    connect(worker, &EngineWorker::attention, this, &MainWindow::onAttention);
    connect(worker, &EngineWorker::kvCache, kvChart_, &widgets::KvCacheChartWidget::appendPoint);
    connect(worker, &EngineWorker::sampling, samplingChart_,
            [this](const widgets::SamplingStep& step) {
                samplingChart_->setStep(step);
                samplingChart_->appendHistory(step.step, step.entropy, step.chosenProbability);
            });
    connect(worker, &EngineWorker::loopTiming, this, [this](const widgets::LoopTiming& timing) {
        ++stepsReceived_;
        loopGrid_->appendStep(timing);
    });
    connect(worker, &EngineWorker::generationFinished, this, &MainWindow::onGenerationFinished);
    connect(sampling_, &SamplingControls::paramsChanged, this,
            [this](const SamplingParams& params) { session_->worker()->setSampling(params); });
    worker->setSampling(sampling_->params());
    connect(chat_, &ChatView::answerRequested, this, &MainWindow::startGeneration);
    connect(chat_, &ChatView::stopRequested, this, [this] {
        session_->worker()->control().cancel();
        session_->worker()->control().resume();
    });
    connect(chat_, &ChatView::conversationChanged, this, &MainWindow::saveSession);

    restoreSession();
    QString model = options_.model;
    if (model.isEmpty()) {
        try {
            model = QString::fromStdString(findDefaultModel());
        } catch (const std::exception& error) {
            QMetaObject::invokeMethod(
                this, [this, message = QString::fromUtf8(error.what())] { onModelFailed(message); },
                Qt::QueuedConnection);
            return;
        }
    }
    loadModel(model);
}

MainWindow::~MainWindow() = default;

void MainWindow::buildToolBar() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* openFile =
        file->addAction(tr("Open GGUF &file…"), this, [this] { openModelDialog(false); });
    openFile->setShortcut(QKeySequence::Open);
    file->addAction(tr("Open model &directory…"), this, [this] { openModelDialog(true); });
    exportMenu_ = file->addMenu(tr("&Export panel"));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    QMenu* languages = menuBar()->addMenu(tr("&Language"));
    const std::pair<QString, QString> choices[] = {
        {QStringLiteral("system"), tr("System default")},
        {QStringLiteral("en"), QStringLiteral("English")},
        {QStringLiteral("zh_CN"), QStringLiteral("简体中文")}};
    auto* languageGroup = new QActionGroup(this);
    for (const auto& [code, name] : choices) {
        QAction* action = languages->addAction(name);
        action->setCheckable(true);
        action->setChecked(languageSetting() == code);
        languageGroup->addAction(action);
        connect(action, &QAction::triggered, this, [this, code] {
            setLanguageSetting(code);
            QMessageBox::information(this, tr("Language"),
                                     tr("The new language applies when InferLens starts again."));
        });
    }
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About InferLens"), this, &MainWindow::showAbout);

    QToolBar* bar = addToolBar(tr("Model and run"));
    bar->setObjectName(QStringLiteral("modelBar"));
    bar->addAction(openFile);
    modelLabel_ = new QLabel(tr("No model"));
    bar->addWidget(modelLabel_);
    bar->addSeparator();
    pauseAction_ = bar->addAction(tr("Pause"));
    pauseAction_->setCheckable(true);
    pauseAction_->setShortcut(Qt::Key_F6);
    connect(pauseAction_, &QAction::toggled, this, [this](bool paused) {
        GenerationControl& control = session_->worker()->control();
        paused ? control.pause() : control.resume();
        pauseAction_->setText(paused ? tr("Resume") : tr("Pause"));
    });
    QAction* stepToken = bar->addAction(tr("Step token"));
    stepToken->setShortcut(Qt::Key_F7);
    stepToken->setToolTip(tr("While paused: run until the next token is chosen"));
    connect(stepToken, &QAction::triggered, this,
            [this] { session_->worker()->control().stepToken(); });
    QAction* stepLayer = bar->addAction(tr("Step layer"));
    stepLayer->setShortcut(Qt::Key_F8);
    stepLayer->setToolTip(tr("While paused: run one more layer"));
    connect(stepLayer, &QAction::triggered, this,
            [this] { session_->worker()->control().stepLayer(); });
    QAction* stop = bar->addAction(tr("Stop"));
    stop->setShortcut(Qt::Key_Escape);
    connect(stop, &QAction::triggered, this, [this] {
        session_->worker()->control().cancel();
        pauseAction_->setChecked(false);
    });
}

QDockWidget* MainWindow::addDock(const QString& title, const QString& objectName, QWidget* content,
                                 Qt::DockWidgetArea area) {
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(objectName);  // saveState/restoreState find docks by name
    dock->setWidget(content);
    addDockWidget(area, dock);
    exportMenu_->addAction(title + QStringLiteral("…"), this, [this, content, title] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export %1").arg(title),
                                                          title + QStringLiteral(".png"),
                                                          tr("Images (*.png *.svg *.pdf)"));
        QString error;
        if (!path.isEmpty() && !widgets::exportWidget(content, path, &error))
            QMessageBox::warning(this, tr("Export failed"), error);
    });
    return dock;
}

void MainWindow::showAbout() {
    QMessageBox::about(
        this, tr("About InferLens"),
        tr("<h3>InferLens %1</h3><p>Runs a language model locally and shows, token by token, "
           "what happens inside: tokenization, attention, the KV cache, sampling.</p>"
           "<p>Qt %2 (built with %3) · compute device: CPU</p><p>MIT licence. The bundled model "
           "inferlens-nano is GPL-3.0-or-later (its training data).</p>")
            .arg(QApplication::applicationVersion(), qVersion(), QT_VERSION_STR));
}

void MainWindow::buildPanels() {
    tokens_ = new widgets::TokenStripWidget;
    auto* tokenScroll = new QScrollArea;
    tokenScroll->setWidget(tokens_);
    tokenScroll->setWidgetResizable(true);
    QDockWidget* tokenDock = addDock(tr("Tokenization"), QStringLiteral("tokenizationDock"),
                                     tokenScroll, Qt::TopDockWidgetArea);

    auto* attentionPanel = new QWidget;
    auto* attentionLayout = new QVBoxLayout(attentionPanel);
    auto* selector = new QHBoxLayout;
    layerBox_ = new QSpinBox;
    headBox_ = new QSpinBox;
    logScaleBox_ = new QCheckBox(tr("Log colour scale"));
    selector->addWidget(new QLabel(tr("Layer")));
    selector->addWidget(layerBox_);
    selector->addWidget(new QLabel(tr("Head")));
    selector->addWidget(headBox_);
    selector->addWidget(logScaleBox_);
    selector->addStretch();
    attention_ = new widgets::AttentionHeatmapWidget;
    attentionLayout->addLayout(selector);
    attentionLayout->addWidget(attention_, 1);
    connect(layerBox_, &QSpinBox::valueChanged, this, &MainWindow::selectHead);
    connect(headBox_, &QSpinBox::valueChanged, this, &MainWindow::selectHead);
    connect(logScaleBox_, &QCheckBox::toggled, attention_,
            &widgets::AttentionHeatmapWidget::setLogScale);
    connect(tokens_, &widgets::TokenStripWidget::positionSelected, attention_,
            &widgets::AttentionHeatmapWidget::setSelectedPosition);
    QDockWidget* attentionDock = addDock(tr("Attention"), QStringLiteral("attentionDock"),
                                         attentionPanel, Qt::RightDockWidgetArea);

    samplingChart_ = new widgets::SamplingChartWidget;
    QDockWidget* samplingDock = addDock(tr("Sampling"), QStringLiteral("samplingDock"),
                                        samplingChart_, Qt::RightDockWidgetArea);
    QDockWidget* parametersDock =
        addDock(tr("Sampling parameters"), QStringLiteral("samplingParametersDock"), sampling_,
                Qt::LeftDockWidgetArea);
    kvChart_ = new widgets::KvCacheChartWidget;
    QDockWidget* kvDock =
        addDock(tr("KV cache"), QStringLiteral("kvCacheDock"), kvChart_, Qt::LeftDockWidgetArea);
    loopGrid_ = new widgets::DoubleLoopGridWidget;
    QDockWidget* loopDock = addDock(tr("Double loop"), QStringLiteral("doubleLoopDock"), loopGrid_,
                                    Qt::BottomDockWidgetArea);
    // A first layout for a 1600×1000 window (a saved layout replaces it): the charts get room,
    // the chat keeps the middle.
    resizeDocks({tokenDock, loopDock}, {90, 190}, Qt::Vertical);
    resizeDocks({attentionDock, samplingDock}, {430, 430}, Qt::Vertical);
    resizeDocks({parametersDock, kvDock}, {330, 400}, Qt::Vertical);
    resizeDocks({attentionDock, parametersDock}, {560, 400}, Qt::Horizontal);
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

void MainWindow::loadModel(const QString& path) {
    modelReady_ = false;
    modelLabel_->setText(tr("Loading %1…").arg(path));
    chat_->setBusy(true);
    QMetaObject::invokeMethod(session_->worker(), "loadModel", Qt::QueuedConnection,
                              Q_ARG(QString, path));
}

void MainWindow::onModelLoaded(const ModelSummary& summary) {
    modelReady_ = true;
    modelLabel_->setText(tr("%1 · %2 · %3 parameters · %4 · context %5 · %6")
                             .arg(QFileInfo(summary.path).fileName(), summary.architecture,
                                  humanCount(summary.parameters), summary.dtype)
                             .arg(summary.contextLength)
                             .arg(summary.device));
    modelLabel_->setToolTip(summary.path);
    kvChart_->setContextLimit(summary.contextSize);
    layerBox_->setRange(0, summary.layers - 1);
    headBox_->setRange(0, summary.heads - 1);
    chat_->setBusy(false);
    statusBar()->showMessage(tr("Model loaded; chat template %1").arg(summary.chatTemplate));
    if (!options_.prompt.isEmpty())
        chat_->send(options_.prompt);
}

void MainWindow::onModelFailed(const QString& message) {
    modelLabel_->setText(tr("No model"));
    chat_->setBusy(false);
    if (options_.quitAfterGeneration)
        return finishHeadlessRun(false, tr("cannot load the model: %1").arg(message));
    QMessageBox::critical(this, tr("Cannot open the model"), message);
}

void MainWindow::startGeneration(const QList<ChatTurn>& conversation) {
    if (!modelReady_ || generating_)
        return;
    generating_ = true;
    stepsReceived_ = 0;
    tokensGenerated_ = 0;
    chat_->setBusy(true);
    kvChart_->clear();
    loopGrid_->clear();
    stallMonitor_->start();
    QMetaObject::invokeMethod(session_->worker(), "generate", Qt::QueuedConnection,
                              Q_ARG(QList<inferlens::gui::ChatTurn>, conversation),
                              Q_ARG(int, sampling_->maxNewTokens()));
}

void MainWindow::onGenerationFinished(const QString& answer, const QString& reason, bool ok) {
    generating_ = false;
    stallMonitor_->stop();
    pauseAction_->setChecked(false);
    chat_->setBusy(false);
    chat_->finishAnswer(answer, reason, ok);
    statusBar()->showMessage(tr("%1 tokens; longest UI stall %2 ms")
                                 .arg(tokensGenerated_)
                                 .arg(stallMonitor_->longestStallMs(), 0, 'f', 1));
    if (!options_.screenshot.isEmpty()) {
        resize(1600, 1000);
        QApplication::processEvents();
        if (!grab().save(options_.screenshot))
            return finishHeadlessRun(false, tr("cannot write %1").arg(options_.screenshot));
    }
    if (options_.quitAfterGeneration)
        finishHeadlessRun(ok, ok ? QString() : reason);
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

void MainWindow::onAttention(const widgets::AttentionMatrix& matrix) {
    if (matrix.firstQuery == 0)
        attention_->setMatrix(matrix);
    else
        attention_->appendRows(matrix);
}

void MainWindow::selectHead() {
    session_->worker()->selectHead(layerBox_->value(), headBox_->value());
}

void MainWindow::restoreSession() {
    QSettings settings;
    restoreGeometry(settings.value("window/geometry").toByteArray());
    restoreState(settings.value("window/state").toByteArray());
    QList<ChatTurn> turns;
    const QJsonArray saved =
        QJsonDocument::fromJson(settings.value("chat/conversation").toByteArray()).array();
    for (const auto& value : saved) {
        const QJsonObject turn = value.toObject();
        turns.append({turn["role"].toString() == "user", turn["text"].toString()});
    }
    if (options_.prompt.isEmpty())  // a headless run starts from an empty conversation
        chat_->setConversation(turns);
}

void MainWindow::saveSession() const {
    if (options_.quitAfterGeneration)  // headless runs leave the user's session alone
        return;
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
    QJsonArray turns;
    for (const ChatTurn& turn : chat_->conversation())
        turns.append(QJsonObject{{"role", turn.user ? "user" : "assistant"}, {"text", turn.text}});
    settings.setValue("chat/conversation", QJsonDocument(turns).toJson(QJsonDocument::Compact));
}

void MainWindow::closeEvent(QCloseEvent* event) {
    saveSession();
    session_->worker()->control().cancel();
    session_->worker()->control().resume();
    event->accept();
}

}  // namespace inferlens::gui
