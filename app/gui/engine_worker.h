#pragma once
// The engine on its own thread. EngineWorker lives on a QThread owned by EngineSession; requests
// arrive as queued invocations, results leave as queued signals carrying plain snapshots, so the
// UI thread never waits for the engine. Stop and pause go straight to GenerationControl, which is
// thread-safe, and take effect within one layer.

#include <QObject>
#include <QString>
#include <QStringList>
#include <QThread>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "generation_control.h"
#include "panel_data.h"
#include "sampling/sampling_params.h"

namespace inferlens {
class ChatTemplate;
class Model;
class Tokenizer;
}  // namespace inferlens

namespace inferlens::gui {

class GuiProbe;

// What the model bar shows once a model is loaded.
struct ModelSummary {
    QString path;
    QString architecture;
    qint64 parameters = 0;
    QString dtype;
    qint64 contextLength = 0;  // what the model was trained for
    qint64 contextSize = 0;    // what a generation here may use (the KV cache's capacity)
    int layers = 0;
    int heads = 0;
    QString device;
    QString chatTemplate;
};

// One chat turn: user (true) or assistant.
struct ChatTurn {
    bool user = true;
    QString text;
};

class EngineWorker : public QObject {
    Q_OBJECT

  public:
    EngineWorker();
    ~EngineWorker() override;

    // Thread-safe, called from the UI thread.
    GenerationControl& control() { return control_; }
    void setSampling(const SamplingParams& params);
    void selectHead(int layer, int head);

  public slots:
    void loadModel(const QString& path);
    void generate(const QList<inferlens::gui::ChatTurn>& conversation, int maxNewTokens);

  signals:
    void modelLoaded(const inferlens::gui::ModelSummary& summary);
    void modelFailed(const QString& message);
    void tokenized(const std::vector<inferlens::widgets::TokenChip>& chips);
    void tokenGenerated(const inferlens::widgets::TokenChip& chip, const QString& text);
    void attention(const inferlens::widgets::AttentionMatrix& matrix);
    void kvCache(const inferlens::widgets::KvCachePoint& point);
    void sampling(const inferlens::widgets::SamplingStep& step);
    void loopTiming(const inferlens::widgets::LoopTiming& timing);
    // reason: "eos", "max tokens", "context full", "cancelled", or an error message.
    void generationFinished(const QString& answer, const QString& reason, bool ok);

  private:
    std::optional<SamplingParams> takePendingSampling();

    std::unique_ptr<Model> model_;
    std::unique_ptr<Tokenizer> tokenizer_;
    std::unique_ptr<ChatTemplate> chat_;  // chosen once per model; refers to tokenizer_
    std::unique_ptr<GuiProbe> probe_;
    GenerationControl control_;
    std::mutex samplingMutex_;
    SamplingParams sampling_;
    bool samplingChanged_ = false;
    int selectedLayer_ = 0, selectedHead_ = 0;
    friend class StreamingChooser;
};

// Owns the worker's thread: starts it, and on destruction cancels any generation, then quits and
// joins the thread, so closing the window mid-generation is clean.
class EngineSession : public QObject {
    Q_OBJECT

  public:
    explicit EngineSession(QObject* parent = nullptr);
    ~EngineSession() override;
    EngineWorker* worker() { return worker_; }

  private:
    QThread thread_;
    EngineWorker* worker_;
};

void registerEngineMetaTypes();

}  // namespace inferlens::gui

Q_DECLARE_METATYPE(inferlens::gui::ModelSummary)
Q_DECLARE_METATYPE(inferlens::gui::ChatTurn)
