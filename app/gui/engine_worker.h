#pragma once
// The engine on its own thread. EngineWorker lives on a QThread owned by EngineSession; requests
// arrive as queued invocations, results leave as queued signals carrying plain snapshots, so the
// UI thread never waits for the engine. Stop and pause go straight to GenerationControl, which is
// thread-safe, and take effect within one layer.

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTemporaryFile>
#include <QThread>
#include <atomic>
#include <cstdio>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "backend/cpu/fused_attention.h"
#include "generation_control.h"
#include "generator.h"
#include "gui_probe.h"
#include "models/model_config.h"
#include "panel_data.h"
#include "sampling/sampling_params.h"
#include "teaching/attention_kernels.h"
#include "tokenizer/tokenizer.h"

namespace inferlens {
class ChatTemplate;
class ForwardBackend;
class Model;
class Tokenizer;
}  // namespace inferlens

namespace inferlens::remote {
class RemoteConnection;
struct RemoteSettings;
}  // namespace inferlens::remote

namespace inferlens::gui {

struct RemoteAnswer;  // remote_answer.h
struct RemoteRequest;

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
    QString device;        // where it runs: "CPU (8 threads)", "cuda:0 (NVIDIA …)"
    QString deviceNote;    // why it runs on the CPU although a GPU was asked for; empty otherwise
    QString chatTemplate;  // its name: "chatglm2", "model's own Jinja"
    QString chatTemplateDescription;  // and the fallback, or why the model's own is not used
    ModelConfig config;               // for the teaching views' shapes and costs
    double bytesPerWeight = 2;        // the weights' bytes over the parameter count
    // A model on a server (connectToServer): `path` is its name there, `device` the server, and
    // only the chat, the tokens and the sampling panels have something to show.
    bool remote = false;
};

// What loading a model will take, known once its files are validated and before the weights are
// read: the memory it needs against what is free.
struct LoadPlan {
    QString path;
    qint64 weightBytes = 0;
    qint64 kvCacheBytes = 0;
    qint64 workBytes = 0;
    qint64 contextSize = 0;
    qint64 availableBytes = -1;  // −1: unknown
    qint64 totalBytes() const { return weightBytes + kvCacheBytes + workBytes; }
};

// The last sampled step, kept so that moving a slider while paused can re-shape it over the full
// vocabulary without running the model (immutable once made; shared with the UI thread).
struct RetainedStep {
    int step = 0;
    std::vector<float> logits;
    std::vector<int32_t> history;
    double draw = 0;
    int64_t sampleableCount = 0;
    std::shared_ptr<const Tokenizer> tokenizer;
    // What the logit processors saw: where the answer began, the turn's end tokens, token texts.
    size_t promptLength = 0;
    int64_t maxNewTokens = -1;
    std::vector<int32_t> stopIds;
    std::shared_ptr<const std::vector<std::string>> tokenTexts;
};

// The sampling chart's view of a retained step under other parameters (throws Error for invalid
// parameters). Cheap enough for the UI thread: one pass over the vocabulary.
widgets::SamplingStep previewStep(const RetainedStep& step, const SamplingParams& params);

// How the next answers are decoded: sampled (width 1) or by beam search (decoding/beam_search.h).
struct BeamChoice {
    int width = 1;
    double lengthPenalty = 1.0;
};

// A finished beam search: the winning node of the tree and the hypotheses, best first.
struct BeamSearchSummary {
    struct Hypothesis {
        QString text;
        double logProbability = 0;
        double score = 0;
        bool finished = false;  // ended with a stop token (else the budget ran out)
    };
    int winner = -1;
    qint64 steps = 0;
    int cachesUsed = 0;  // KV caches the search held at once
    bool stopped = false;
    QList<Hypothesis> hypotheses;
};

// How the CPU's KV cache stores keys and values and whether it slides (kv_cache.h).
struct KvCacheLayout {
    KvType type = KvType::F32;
    qint64 window = 0;  // 0: no sliding window
    qint64 sinks = 0;
    bool operator==(const KvCacheLayout&) const = default;
};

// The sampling panel's question "what does this cache cost the current step?" answered: the
// step's distribution against a shadow run with an exact cache (evaluation/cache_divergence.h).
struct CacheComparisonSummary {
    int step = -1;
    QString cache;  // "int8", "f16, window 4 + 256", …
    double klDivergence = 0;
    double largestDifference = 0;
    QString exactTop, testTop;  // the most likely next token with each cache
    QString error;              // empty: the figures above are valid
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
    // Pause and Resume: control().pause() / resume(), and for a server's answer (which no
    // checkpoint between layers can hold) the request ends at once, the answer so far kept, and
    // Resume asks the server to go on from there (answerOnServer).
    void setPaused(bool paused);
    void setSampling(const SamplingParams& params);
    // Stop strings for the generations that start from now on.
    void setStopStrings(std::vector<std::string> stops);
    // Sampling or beam search, for the generations that start from now on.
    void setBeamChoice(BeamChoice choice);
    void selectHead(int layer, int head);
    // Cancels a load in progress (its weights are being read); the previous model stays.
    void cancelLoad() { loadCancelled_.store(true); }
    // Starts a new attention recomputation request: cancels the one running, if any, and returns
    // the serial to pass to recomputeAttention (older serials are skipped).
    quint64 beginRecompute();
    std::shared_ptr<const RetainedStep> retainedStep() const;
    // The logit lens costs one LM-head product per layer and step: on only while it is shown.
    void setLensEnabled(bool on) { lensEnabled_.store(on); }
    // The CPU's attention kernel (fused or reference) for the generations that start from now on.
    void setAttentionKernel(AttentionKernel kernel) { attentionKernel_.store(kernel); }
    AttentionKernel attentionKernel() const { return attentionKernel_.load(); }
    // Whether a new turn re-uses the KV cache of the conversation so far (prefilling only what is
    // new) or prefills the whole conversation; from the next generation on.
    void setKeepCache(bool on) { keepCache_.store(on); }
    bool keepCache() const { return keepCache_.load(); }
    // The CPU's KV cache layout, for the generations that start from now on (a change rebuilds
    // the cache; a model on a GPU keeps its f32 cache and says so).
    void setKvCacheLayout(KvCacheLayout layout);
    KvCacheLayout kvCacheLayout() const;

  public slots:
    // contextSize 0: the model's own, at most 4,096 tokens. `device`: "cpu", "cuda" or "cuda:N";
    // a GPU that cannot take the model leaves it on the CPU (ModelSummary::deviceNote says why).
    void loadModel(const QString& path, qint64 contextSize, const QString& device);
    // A model that a server serves through the OpenAI-compatible API (llama-server, vLLM,
    // SGLang): answers go there from now on, until a local model is loaded. `model` empty: the
    // server's first; `apiKey` is kept in memory only. Answered by modelLoaded (remote) or
    // connectFailed.
    void connectToServer(const QString& url, const QString& model, const QString& apiKey,
                         const QString& caFile);
    void generate(const QList<inferlens::gui::ChatTurn>& conversation, int maxNewTokens);
    // What-if: the last generation up to sampling step `samplingStep`, `forcedId` instead of the
    // token that step chose, then generation continues from there (a branch; the panels show it
    // like any run).
    void branch(int samplingStep, int forcedId, int maxNewTokens);
    // All heads of `layer` over the last generation's tokens, as attention signals (chunked).
    void recomputeAttention(int layer, quint64 serial);
    // The KV cache on/off experiment on the last generation's prompt (greedy, `tokens` new tokens
    // in each run); Stop cancels it.
    void runKvExperiment(int tokens);
    // Times one layer's attention with the fused and the reference kernel at 512, 2,048 and
    // 8,192 tokens, on the loaded model's layout (Stop cancels).
    void runAttentionKernelTiming();
    // The last sampled step's distribution against a shadow run with an exact cache (Stop
    // cancels); answered by cacheCompared.
    void compareWithExactCache();

  signals:
    void loadPlanned(const inferlens::gui::LoadPlan& plan);
    void loadProgress(qint64 done, qint64 total);
    void modelLoaded(const inferlens::gui::ModelSummary& summary);
    void modelFailed(const QString& message);
    void connectFailed(const QString& message);
    // Something the user should know that is not an error (e.g. old rounds left out of a prompt).
    void notice(const QString& message);
    void tokenized(const std::vector<inferlens::widgets::TokenChip>& chips);
    void tokenGenerated(const inferlens::widgets::TokenChip& chip, const QString& text);
    void attention(const inferlens::widgets::AttentionMatrix& matrix);
    void kvCache(const inferlens::widgets::KvCachePoint& point);
    void sampling(const inferlens::widgets::SamplingStep& step);
    void loopTiming(const inferlens::widgets::LoopTiming& timing);
    void attentionOverview(const inferlens::gui::AttentionOverview& overview);
    // The generation's trace is complete in this file (JSON lines, the format of
    // `inferlens-cli trace`, with the selected head's attention), valid until the next generation.
    void traceRecorded(const QString& path);
    void lensStep(const inferlens::widgets::LensSnapshot& snapshot);
    void kvExperimentProgress(bool withCache, qint64 done, qint64 total);
    void attentionKernelProgress(int done, int total);
    // The lengths timed (fewer when cancelled); `error` is empty on success.
    void attentionKernelsTimed(const std::vector<inferlens::AttentionKernelTiming>& timings,
                               const QString& error);
    // `error` empty: the experiment completed (cancelled: a message says so).
    void kvExperimentFinished(const inferlens::widgets::KvExperimentData& data,
                              const QString& error);
    // A recomputation ended: complete, or cancelled / failed (then `message` says why).
    void attentionRecomputed(int layer, bool complete, const QString& message);
    // A beam search instead of sampling: the tree grows by one step's nodes at a time, then the
    // best hypothesis streams out as tokenGenerated and the summary comes before
    // generationFinished.
    void beamSearchStarted(int width);
    void beamStep(const std::vector<inferlens::widgets::BeamTreeNode>& nodes);
    void beamSearchFinished(const inferlens::gui::BeamSearchSummary& summary);
    // reason: "eos", "max tokens", "context full", "cancelled", or an error message.
    // Before generationFinished: how much of the prompt came from the KV cache, and the time
    // from the start to the first token's distribution (the prompt's prefill).
    void promptTimed(qint64 cachedTokens, qint64 promptTokens, double firstTokenMs);
    void generationFinished(const QString& answer, const QString& reason, bool ok);
    void cacheCompared(const inferlens::gui::CacheComparisonSummary& summary);

  private:
    // A new temporary file for the next generation's trace (the one before goes); null when it
    // cannot be made.
    using TraceFile = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;
    TraceFile startTrace();
    // generate() and branch() on the server connected to.
    void answerOnServer(const RemoteRequest& request, int maxNewTokens);
#ifdef INFERLENS_HAVE_REMOTE
    // The settings for the next request to the server (noticing those it does not take); from here
    // on a change of settings restarts the request.
    remote::RemoteSettings takeRemoteSettings(int maxNewTokens);
    // Whether the request that just ended made way for a pause (and forgets it).
    bool takePauseWanted();
#endif
    // Generates after `sequence`; tokens from `promptTokens` on are shown as generated.
    void run(const TokenizationInfo& sequence, size_t promptTokens, int maxNewTokens);
    // run() by beam search (the sampling panel's settings do not apply).
    void runBeamSearch(const TokenizationInfo& sequence, size_t promptTokens, int maxNewTokens,
                       BeamChoice choice);
    // What a finished run leaves for branches, experiments and recomputations.
    void rememberRun(const TokenizationInfo& sequence, size_t promptTokens,
                     std::vector<int32_t> history, std::span<const int32_t> generated);
    std::optional<SamplingParams> takePendingSampling();
    // Rebuilds backend_ with the layout asked for, when it differs from the one it has.
    void applyKvCacheLayout();
    static QString gpuCacheNotice();
    void retain(std::shared_ptr<const RetainedStep> step);

    std::unique_ptr<Model> model_;
    std::unique_ptr<remote::RemoteConnection> remote_;  // answers go there while it is set
    std::shared_ptr<const RemoteAnswer> lastRemote_;    // what a branch on the server starts from
    // Where the model runs; kept across generations (on a GPU, making it uploads the weights).
    std::shared_ptr<ForwardBackend> backend_;
    std::shared_ptr<Tokenizer> tokenizer_;
    std::unique_ptr<ChatTemplate> chat_;  // chosen once per model; refers to tokenizer_
    // Where the template's next turn would begin, for the turn being answered (a stop string).
    std::vector<std::string> turnStopStrings_;
    std::unique_ptr<GuiProbe> probe_;
    std::vector<int32_t> lastTokens_;  // what the last generation ran: its attention's positions
    // The last generation's whole sequence (its chosen tokens appended), where its sampled tokens
    // start, and where the original prompt ends: what a branch starts from.
    struct LastRun {
        TokenizationInfo info;
        size_t firstSampled = 0;
        size_t promptTokens = 0;
    } lastRun_;
    GenerationControl control_;
    GenerationControl recomputeControl_;
    std::atomic<quint64> recomputeSerial_{0};
    std::atomic<bool> loadCancelled_{false};
    std::atomic<bool> lensEnabled_{false};
    std::atomic<AttentionKernel> attentionKernel_{AttentionKernel::Fused};
    std::atomic<bool> keepCache_{true};
    mutable std::mutex layoutMutex_;
    KvCacheLayout layout_;             // asked for (UI thread)
    KvCacheLayout requestedLayout_;    // the request backend_ was last made (or refused) for
    KvCacheLayout backendLayout_;      // what backend_'s cache is (a GPU's: f32, no window)
    GeneratorOptions backendOptions_;  // backend_'s device, context and threads
    // The tokens whose K/V backend_'s cache holds (the last generation's history), and the kernel
    // that computed them; empty when the cache holds nothing reusable.
    std::vector<int32_t> cachedIds_;
    AttentionKernel cachedKernel_ = AttentionKernel::Fused;
    mutable std::mutex retainedMutex_;
    std::shared_ptr<const RetainedStep> retained_;
    std::mutex samplingMutex_;
    SamplingParams sampling_;
    std::vector<std::string> stopStrings_;
    BeamChoice beams_;
    std::shared_ptr<const std::vector<std::string>> tokenTexts_;  // of the model loaded
    bool samplingChanged_ = false;
    // A server's answer is streaming (answerOnServer), and a change of settings asked for it to be
    // resumed with them (setSampling; under samplingMutex_ when written by the UI thread).
    std::atomic<bool> streamingFromServer_{false};
    bool restartWanted_ = false;
    bool pauseWanted_ = false;  // the restart waits for Resume (setPaused; under samplingMutex_)
    // Written by the UI thread (selectHead), read by the engine's.
    std::atomic<int> selectedLayer_{0}, selectedHead_{0};
    std::unique_ptr<QTemporaryFile> trace_;  // the last generation's trace (JSON lines)
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

// What to tell the user about an exception from the engine: its message, or for a refused
// allocation that the machine ran out of memory (std::bad_alloc's own text says nothing).
QString exceptionMessage(const std::exception& error);

}  // namespace inferlens::gui

Q_DECLARE_METATYPE(inferlens::gui::ModelSummary)
Q_DECLARE_METATYPE(inferlens::gui::LoadPlan)
Q_DECLARE_METATYPE(inferlens::gui::AttentionOverview)
Q_DECLARE_METATYPE(inferlens::widgets::LensSnapshot)
Q_DECLARE_METATYPE(inferlens::widgets::KvExperimentData)
Q_DECLARE_METATYPE(std::vector<inferlens::AttentionKernelTiming>)
Q_DECLARE_METATYPE(inferlens::gui::ChatTurn)
Q_DECLARE_METATYPE(inferlens::gui::BeamSearchSummary)
Q_DECLARE_METATYPE(inferlens::gui::CacheComparisonSummary)
