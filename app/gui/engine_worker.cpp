#include "engine_worker.h"

#include <QMetaType>
#include <algorithm>
#include <chrono>
#include <map>
#include <utility>

#include "attention_recompute.h"
#include "backend/cpu/thread_pool.h"
#include "backend/devices.h"
#include "core/dtype.h"
#include "core/error.h"
#include "decoding/beam_search.h"
#include "display_text.h"
#include "evaluation/cache_divergence.h"
#include "generator.h"
#include "models/memory_estimate.h"
#include "models/model.h"
#include "panel_conversion.h"
#ifdef INFERLENS_HAVE_REMOTE
#include "remote/remote_error.h"
#include "remote/remote_generator.h"
#include "remote_answer.h"
#endif
#include "sampling/sampler.h"
#include "sampling/sampler_chooser.h"
#include "sampling/stop_strings.h"
#include "teaching/kv_cache_experiment.h"
#include "teaching/logit_lens.h"
#include "tokenizer/chat_template.h"
#include "tokenizer/context_fit.h"
#include "tokenizer/streaming_detokenizer.h"
#include "tokenizer/tokenizer.h"
#include "trace/trace_writer.h"

namespace inferlens::gui {

// The sampler chain plus what the GUI needs after every choice: parameters changed in the
// sampling panel apply from this token on, and the chosen token streams out as a chip and text.
class StreamingChooser final : public SamplerChooser {
  public:
    StreamingChooser(Sampler& sampler, EngineWorker& worker, const Tokenizer& tokenizer,
                     const std::vector<int32_t>& stops, std::vector<std::string> stopStrings)
        : SamplerChooser(sampler),
          sampler_(sampler),
          worker_(worker),
          detokenizer_(tokenizer),
          stops_(stops),
          stopStrings_(std::move(stopStrings)) {}

    void begin(size_t promptLength, int64_t maxNewTokens) override {
        SamplerChooser::begin(promptLength, maxNewTokens);
        promptLength_ = promptLength;
        maxNewTokens_ = maxNewTokens;
        firstTokenMs_ =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - created_)
                .count();
    }
    // From this chooser's creation (just before the generation) to the first distribution.
    double firstTokenMs() const { return firstTokenMs_; }
    bool stopRequested() const override { return stopStrings_.stopped(); }

    int32_t choose(std::span<const float> logits, std::span<const int32_t> history,
                   bool traced) override {
        if (auto params = worker_.takePendingSampling())
            sampler_.setParams(*params);
        const int32_t id = SamplerChooser::choose(logits, history, traced);
        if (traced) {
            auto retained = std::make_shared<RetainedStep>();
            retained->step = steps_++;
            retained->logits.assign(logits.begin(), logits.end());
            retained->history.assign(history.begin(), history.end());
            retained->draw = lastTrace()->draw;
            retained->sampleableCount = worker_.tokenizer_->tokenCount();
            retained->tokenizer = worker_.tokenizer_;
            retained->promptLength = promptLength_;
            retained->maxNewTokens = maxNewTokens_;
            retained->stopIds = stops_;
            retained->tokenTexts = worker_.tokenTexts_;
            worker_.retain(std::move(retained));
        }
        const bool stop = std::find(stops_.begin(), stops_.end(), id) != stops_.end();
        const QString text =
            stop ? QString() : QString::fromStdString(stopStrings_.push(detokenizer_.push(id)));
        answer_ += text;
        emit worker_.tokenGenerated(worker_.probe_->chipFor(id, true), text);
        return id;
    }
    QString finish() {
        std::string rest = stopStrings_.push(detokenizer_.flush());
        rest += stopStrings_.flush();
        return answer_ + QString::fromStdString(rest);
    }

  private:
    Sampler& sampler_;
    EngineWorker& worker_;
    StreamingDetokenizer detokenizer_;
    const std::vector<int32_t>& stops_;
    StopStrings stopStrings_;
    size_t promptLength_ = 0;
    int64_t maxNewTokens_ = -1;
    QString answer_;
    int steps_ = 0;
    std::chrono::steady_clock::time_point created_ = std::chrono::steady_clock::now();
    double firstTokenMs_ = 0;
};

namespace {

// The dtype that holds most of the weight bytes (norms are often f32 in an f16 model).
QString dominantWeightType(const ModelFiles& files) {
    std::map<DType, int64_t> bytes;
    for (const auto& [name, tensor] : files.tensors)
        bytes[tensor.dtype] += tensor.byteCount;
    const auto largest = std::max_element(bytes.begin(), bytes.end(),
                                          [](auto& a, auto& b) { return a.second < b.second; });
    return largest == bytes.end() ? QString() : QString::fromUtf8(dtypeName(largest->first).data());
}

}  // namespace

widgets::SamplingStep previewStep(const RetainedStep& step, const SamplingParams& params) {
    Sampler sampler(params, step.sampleableCount);
    sampler.setTokenTexts(step.tokenTexts);
    sampler.setStopIds(step.stopIds);
    sampler.beginGeneration(step.promptLength, step.maxNewTokens);
    const SamplingTrace trace = sampler.preview(params, step.logits, step.history, step.draw);
    return samplingStep(step.step, trace, candidatePieces(trace, *step.tokenizer));
}

EngineWorker::EngineWorker() = default;
EngineWorker::~EngineWorker() = default;

void EngineWorker::setStopStrings(std::vector<std::string> stops) {
    const std::lock_guard lock(samplingMutex_);
    stopStrings_ = std::move(stops);
}

void EngineWorker::setBeamChoice(BeamChoice choice) {
    const std::lock_guard lock(samplingMutex_);
    beams_ = choice;
}

void EngineWorker::setPaused(bool paused) {
    const std::lock_guard lock(samplingMutex_);
    paused ? control_.pause() : control_.resume();
    if (paused && streamingFromServer_ && !restartWanted_) {
        // A server's stream cannot be held: the request ends, and answerOnServer waits for Resume
        // before asking again from the answer so far.
        restartWanted_ = true;
        pauseWanted_ = true;
        control_.cancel();
    }
}

void EngineWorker::setSampling(const SamplingParams& params) {
    const std::lock_guard lock(samplingMutex_);
    sampling_ = params;
    samplingChanged_ = true;
    if (streamingFromServer_ && !restartWanted_) {
        // A server takes the settings with the request: this one ends, and answerOnServer asks
        // again from the answer so far.
        restartWanted_ = true;
        control_.cancel();
    }
}

std::optional<SamplingParams> EngineWorker::takePendingSampling() {
    const std::lock_guard lock(samplingMutex_);
    if (!samplingChanged_)
        return std::nullopt;
    samplingChanged_ = false;
    return sampling_;
}

void EngineWorker::retain(std::shared_ptr<const RetainedStep> step) {
    const std::lock_guard lock(retainedMutex_);
    retained_ = std::move(step);
}

std::shared_ptr<const RetainedStep> EngineWorker::retainedStep() const {
    const std::lock_guard lock(retainedMutex_);
    return retained_;
}

quint64 EngineWorker::beginRecompute() {
    const quint64 serial = ++recomputeSerial_;
    recomputeControl_.cancel();
    return serial;
}

void EngineWorker::selectHead(int layer, int head) {
    selectedLayer_ = layer;
    selectedHead_ = head;
    if (probe_)
        probe_->selectHead(layer, head);
}

void EngineWorker::loadModel(const QString& path, qint64 contextSize, const QString& device) {
    loadCancelled_.store(false);
    try {
        GeneratorOptions options;
        options.threads = 0;
        options.device = parseComputeDevice(device.toStdString());
        ModelFiles files = openModelFiles(path.toStdString());
        const ModelConfig c = files.config;  // files move into the model below
        const int64_t context = resolveContextSize(c, contextSize);
        options.contextSize = context;
        // The CPU's cache as it will be (its type and window, checked before the weights are
        // read); a GPU keeps an f32 cache of the context.
        const KvCacheLayout layout = kvCacheLayout();
        GeneratorOptions cpuOptions = options;
        cpuOptions.device = {};
        cpuOptions.kvType = layout.type;
        cpuOptions.window = layout.window;
        cpuOptions.sinks = layout.sinks;
        const bool onCpu = !options.device.isCuda();
        const MemoryEstimate estimate =
            estimateMemory(c, files.weightBytes(), onCpu ? cacheRowsAtMost(c, cpuOptions) : context,
                           512, onCpu ? layout.type : KvType::F32);
        const std::optional<int64_t> available = availableMemoryBytes();
        emit loadPlanned({path, estimate.weightBytes, estimate.kvCacheBytes, estimate.workBytes,
                          context, available.value_or(-1)});
        // On a GPU the weights live in GPU memory, which the backend checks before uploading.
        if (onCpu && available && estimate.total() > *available)
            throw Error(tr("%1 needs %2 MB (weights %3 MB + KV cache %4 MB at %5 tokens), but only "
                           "%6 MB of memory are free; choose a smaller context or close programs")
                            .arg(path)
                            .arg(estimate.total() >> 20)
                            .arg(estimate.weightBytes >> 20)
                            .arg(estimate.kvCacheBytes >> 20)
                            .arg(context)
                            .arg(*available >> 20)
                            .toStdString());
        if (!prefetchWeights(files, [this](int64_t done, int64_t total) {
                emit loadProgress(done, total);
                return !loadCancelled_.load();
            })) {
            emit modelFailed(tr("Loading was cancelled; the previous model stays."));
            return;
        }
        auto model = std::make_unique<Model>(std::move(files), !options.device.isCuda());
        QString deviceNote;
        std::shared_ptr<ForwardBackend> backend;
        if (options.device.isCuda()) {
            try {
                backend = makeForwardBackend(*model, options);
            } catch (const Error& error) {
                deviceNote = tr("%1; the model runs on the CPU").arg(exceptionMessage(error));
                options.device = {};
                model->placeForCpu();
            }
        }
        if (!backend)
            backend = makeForwardBackend(*model, cpuOptions);
        auto tokenizer = std::make_shared<Tokenizer>(model->files());
        auto chat =
            std::make_unique<ChatTemplate>(chooseChatTemplate(model->files(), ""), *tokenizer);
        ModelSummary summary;
        summary.path = QString::fromStdString(model->files().path);
        summary.architecture = QString::fromStdString(c.architecture);
        summary.parameters = model->files().parameterCount();
        summary.dtype = dominantWeightType(model->files());
        summary.contextLength = c.contextLength;
        summary.contextSize = context;
        summary.layers = int(c.layerCount);
        summary.heads = int(c.headCount);
        summary.device = QString::fromStdString(backend->deviceName());
        summary.deviceNote = deviceNote;
        summary.chatTemplate = QString::fromStdString(chat->name());
        summary.chatTemplateDescription = QString::fromStdString(chat->description());
        summary.config = c;
        summary.bytesPerWeight =
            double(model->files().weightBytes()) / double(std::max<int64_t>(1, summary.parameters));
        // What refers to the old tokenizer goes before it does.
        probe_.reset();
        retain(nullptr);
        lastTokens_.clear();
        lastRun_ = {};
        turnStopStrings_.clear();
        chat_ = std::move(chat);
        backend_ = std::move(backend);  // the old backend refers to the old model: it goes first
        backendOptions_ = options;
        backendLayout_ = options.device.isCuda() ? KvCacheLayout{} : layout;
        requestedLayout_ = layout;
        if (options.device.isCuda() && !(layout == KvCacheLayout{}))
            emit notice(gpuCacheNotice());
        cachedIds_.clear();
        model_ = std::move(model);
        tokenizer_ = std::move(tokenizer);
        tokenTexts_ = std::make_shared<const std::vector<std::string>>(tokenizer_->textsOfAll());
        ProbeSinks sinks;
        sinks.tokenized = [this](std::vector<widgets::TokenChip> c) { emit tokenized(c); };
        sinks.attention = [this](widgets::AttentionMatrix m) { emit attention(m); };
        sinks.kvCache = [this](widgets::KvCachePoint p) { emit kvCache(p); };
        sinks.sampling = [this](widgets::SamplingStep s) { emit sampling(s); };
        sinks.loopTiming = [this](widgets::LoopTiming t) { emit loopTiming(t); };
        sinks.overview = [this](AttentionOverview o) { emit attentionOverview(o); };
        probe_ = std::make_unique<GuiProbe>(*tokenizer_, summary.layers, summary.heads,
                                            std::move(sinks));
        probe_->selectHead(selectedLayer_, selectedHead_);
        remote_.reset();  // answers come from this model again
        emit modelLoaded(summary);
    } catch (const std::exception& error) {
        emit modelFailed(exceptionMessage(error));
    }
}

void EngineWorker::connectToServer(const QString& url, const QString& model, const QString& apiKey,
                                   const QString& caFile) {
#ifdef INFERLENS_HAVE_REMOTE
    try {
        remote::HttpOptions options;
        options.baseUrl = url.trimmed().toStdString();
        options.apiKey = apiKey.trimmed().toStdString();
        options.caBundlePath = caFile.toStdString();
        auto connection =
            std::make_unique<remote::RemoteConnection>(std::move(options), model.toStdString());
        ModelSummary summary;
        summary.remote = true;
        summary.path = QString::fromStdString(connection->model());
        summary.architecture = QString::fromUtf8(remote::flavourName(connection->flavour()));
        summary.device = url.trimmed();
        summary.contextLength = summary.contextSize = connection->contextLength().value_or(0);
        summary.chatTemplate = tr("the server's");
        summary.chatTemplateDescription = tr("the server's own chat template");
        remote_ = std::move(connection);
        lastRemote_.reset();
        emit modelLoaded(summary);
    } catch (const std::exception& error) {
        emit connectFailed(exceptionMessage(error));
    }
#else
    Q_UNUSED(url);
    Q_UNUSED(model);
    Q_UNUSED(apiKey);
    Q_UNUSED(caFile);
    emit connectFailed(tr("this build has no remote client (INFERLENS_REMOTE=OFF)"));
#endif
}

EngineWorker::TraceFile EngineWorker::startTrace() {
    trace_ = std::make_unique<QTemporaryFile>();
    TraceFile file(nullptr, &std::fclose);
    if (trace_->open())
        file.reset(std::fopen(qPrintable(trace_->fileName()), "w"));
    return file;
}

void EngineWorker::answerOnServer(const RemoteRequest& request, int maxNewTokens) {
#ifdef INFERLENS_HAVE_REMOTE
    QString answer;  // every token's text as it streamed, kept when the request fails
    try {
        RemoteAnswerSinks sinks;
        sinks.tokenized = [this](std::vector<widgets::TokenChip> c) { emit tokenized(c); };
        sinks.sampling = [this](widgets::SamplingStep s) { emit sampling(s); };
        sinks.token = [this, &answer](widgets::TokenChip chip, QString text) {
            answer += text;
            emit tokenGenerated(chip, text);
        };
        sinks.timing = [this](widgets::LoopTiming t) { emit loopTiming(t); };
        sinks.notice = [this](QString message) { emit notice(message); };
        sinks.restartWanted = [this] {
            const std::lock_guard lock(samplingMutex_);
            return restartWanted_;
        };
        TraceFile traceFile = startTrace();  // what the server told, for Export trace
        std::optional<TraceWriter> traceWriter;
        if (traceFile)
            traceWriter.emplace(traceFile.get(), nullptr);
        // A change of settings while the answer streams ends the request (setSampling) and asks
        // again from the answer so far with the new settings, until the answer ends otherwise; a
        // pause ends it too (setPaused), and the next request waits for Resume.
        RemoteRequest part = request;
        bool resumed = false;
        std::shared_ptr<const RemoteAnswer> result;
        for (;;) {
            // Paused (before the first request, or after a pause ended one): no request until
            // Resume; Stop ends the answer as it is.
            if (control_.paused()) {
                if (result == nullptr)
                    control_.clearCancel();  // one left by an earlier run
                if (!control_.checkpoint()) {
                    RemoteAnswer whole = result != nullptr ? *result : RemoteAnswer{};
                    whole.reason = FinishReason::Cancelled;
                    result = std::make_shared<const RemoteAnswer>(std::move(whole));
                    break;
                }
            }
            const int generatedBefore = int(part.prefix.size() - request.prefix.size());
            remote::RemoteSettings settings = takeRemoteSettings(maxNewTokens - generatedBefore);
            result = std::make_shared<const RemoteAnswer>(gui::answerOnServer(
                *remote_, part, settings, control_, sinks, traceWriter ? &*traceWriter : nullptr));
            streamingFromServer_ = false;
            if (!result->endedForRestart)
                break;
            resumed = true;
            if (result->tokens.size() - request.prefix.size() >= size_t(maxNewTokens)) {
                // The change came with the last token asked for: nothing is left to resume.
                RemoteAnswer whole = *result;
                whole.reason = FinishReason::MaxTokens;
                result = std::make_shared<const RemoteAnswer>(std::move(whole));
                break;
            }
            const size_t at = result->tokens.size() - request.prefix.size();
            if (takePauseWanted()) {
                control_.clearCancel();  // the cancel that ended the request, not a Stop
                emit notice(tr("Paused at token %1 of the answer: the request to the server is "
                               "closed, and Resume asks it to go on from there.")
                                .arg(at));
            } else {
                emit notice(tr("The settings changed at token %1 of the answer: the server goes "
                               "on from there with the new ones.")
                                .arg(at));
            }
            part = resumeRequest(*result);
        }
        lastRemote_ = result;
        emit promptTimed(0, result->promptTokens, result->firstTokenMs);
        if (traceFile && std::fclose(traceFile.release()) == 0)
            emit traceRecorded(trace_->fileName());
        // A resumed answer is its streamed tokens' text: servers differ in whether the text of a
        // continued message repeats the part it continues (llama-server's does).
        emit generationFinished(resumed ? answer : result->text,
                                QString::fromUtf8(finishReasonName(result->reason)), true);
    } catch (const std::exception& error) {
        streamingFromServer_ = false;
        // What streamed before the failure stays in the answer; the message says what happened.
        emit generationFinished(answer, exceptionMessage(error), false);
    }
#else
    Q_UNUSED(request);
    Q_UNUSED(maxNewTokens);
#endif
}

#ifdef INFERLENS_HAVE_REMOTE
bool EngineWorker::takePauseWanted() {
    const std::lock_guard lock(samplingMutex_);
    return std::exchange(pauseWanted_, false);
}

remote::RemoteSettings EngineWorker::takeRemoteSettings(int maxNewTokens) {
    remote::RemoteSettings settings;
    {
        // With setSampling's lock held, so that a change comes either before these settings are
        // read or as a restart of the request they make.
        const std::lock_guard lock(samplingMutex_);
        streamingFromServer_ = true;
        control_.clearCancel();
        settings.sampling = sampling_;
        settings.stop = stopStrings_;
        samplingChanged_ = false;
        restartWanted_ = false;
        pauseWanted_ = false;
    }
    settings.maxTokens = maxNewTokens;
    const std::vector<std::string> dropped =
        remote::samplingNotCarried(remote_->flavour(), settings.sampling);
    if (!dropped.empty()) {
        QStringList names;
        for (const std::string& name : dropped)
            names << QString::fromStdString(name);
        emit notice(tr("The server does not take these settings, which are left out: %1")
                        .arg(names.join(QStringLiteral(", "))));
    }
    return settings;
}
#endif

void EngineWorker::generate(const QList<ChatTurn>& conversation, int maxNewTokens) {
#ifdef INFERLENS_HAVE_REMOTE
    if (remote_) {
        RemoteRequest request;
        for (const ChatTurn& turn : conversation)
            request.messages.push_back({turn.user ? "user" : "assistant", turn.text.toStdString()});
        answerOnServer(request, maxNewTokens);
        return;
    }
#endif
    if (!model_) {
        emit generationFinished({}, tr("no model is loaded"), false);
        return;
    }
    try {
        std::vector<ChatMessage> messages;
        for (const ChatTurn& turn : conversation)
            messages.push_back(
                {turn.user ? ChatRole::User : ChatRole::Assistant, turn.text.toStdString()});
        applyKvCacheLayout();
        // A sliding cache takes any length (in window-sized steps) up to the model's context.
        const int64_t context = backend_->slidingWindow() > 0 ? model_->config().contextLength
                                                              : backend_->contextSize();
        const FittedPrompt fitted =
            renderToFit(*chat_, messages, context, std::min<int64_t>(maxNewTokens, context / 2));
        if (fitted.droppedRounds > 0)
            emit notice(tr("The conversation is longer than the context of %1 tokens: the oldest "
                           "%n round(s) are left out of the prompt.",
                           nullptr, fitted.droppedRounds)
                            .arg(context));
        if (!fitted.prompt.warning.empty())
            emit notice(QString::fromStdString(fitted.prompt.warning));
        turnStopStrings_ = fitted.prompt.stopStrings;
        run(fitted.prompt.info, fitted.prompt.info.tokens.size(), maxNewTokens);
    } catch (const std::exception& error) {
        emit generationFinished({}, exceptionMessage(error), false);
    }
}

void EngineWorker::branch(int samplingStep, int forcedId, int maxNewTokens) {
#ifdef INFERLENS_HAVE_REMOTE
    if (remote_) {
        try {
            if (!lastRemote_)
                throw Error(tr("there is no answer to branch from").toStdString());
            answerOnServer(branchRequest(*lastRemote_, samplingStep, forcedId), maxNewTokens);
        } catch (const std::exception& error) {
            emit generationFinished({}, exceptionMessage(error), false);
        }
        return;
    }
#endif
    try {
        if (!model_ || lastRun_.info.tokens.empty())
            throw Error(tr("there is no generation to branch from").toStdString());
        // The last run's sequence up to the token that step chose, then the forced token instead.
        const size_t keep = lastRun_.firstSampled + size_t(std::max(samplingStep, 0));
        if (samplingStep < 0 || keep > lastRun_.info.tokens.size())
            throw Error(
                tr("step %1 is not in the last generation").arg(samplingStep).toStdString());
        if (forcedId < 0 || forcedId >= tokenizer_->tokenCount())
            throw Error(tr("token %1 is not in the vocabulary").arg(forcedId).toStdString());
        TokenizationInfo prefix = lastRun_.info;
        prefix.tokens.resize(keep);
        prefix.text.resize(keep == 0 ? 0 : size_t(prefix.tokens.back().end));
        tokenizer_->appendGenerated(prefix, forcedId);
        run(prefix, lastRun_.promptTokens, maxNewTokens);
    } catch (const std::exception& error) {
        emit generationFinished({}, exceptionMessage(error), false);
    }
}

void EngineWorker::setKvCacheLayout(KvCacheLayout layout) {
    const std::lock_guard lock(layoutMutex_);
    layout_ = layout;
}

KvCacheLayout EngineWorker::kvCacheLayout() const {
    const std::lock_guard lock(layoutMutex_);
    return layout_;
}

QString EngineWorker::gpuCacheNotice() {
    return tr(
        "The GPU keeps an f32 KV cache without a sliding window: int8 and f16 caches and "
        "windows apply when the model runs on the CPU.");
}

void EngineWorker::applyKvCacheLayout() {
    const KvCacheLayout wanted = kvCacheLayout();
    if (wanted == requestedLayout_)
        return;
    if (backendOptions_.device.isCuda()) {
        requestedLayout_ = wanted;  // said once per request
        if (!(wanted == KvCacheLayout{}))
            emit notice(gpuCacheNotice());
        return;
    }
    GeneratorOptions options = backendOptions_;
    options.kvType = wanted.type;
    options.window = wanted.window;
    options.sinks = wanted.sinks;
    // Made first: a layout this model cannot take (a window past its context) leaves the cache in
    // use as it was, and is refused again at the next generation.
    std::shared_ptr<ForwardBackend> backend = makeForwardBackend(*model_, options);
    cachedIds_.clear();
    backend_ = std::move(backend);
    backendLayout_ = requestedLayout_ = wanted;
}

void EngineWorker::compareWithExactCache() {
    CacheComparisonSummary summary;
    try {
        const std::shared_ptr<const RetainedStep> step = retainedStep();
        if (!model_ || !step)
            throw Error(tr("there is no sampled step to compare yet").toStdString());
        summary.step = step->step;
        summary.cache = QString::fromLatin1(kvTypeName(backendLayout_.type));
        if (backendLayout_.window > 0)
            summary.cache +=
                tr(", window %1 + %2 sinks").arg(backendLayout_.window).arg(backendLayout_.sinks);
        control_.clearCancel();
        const auto comparison = inferlens::compareWithExactCache(
            *model_, step->history, step->logits, attentionKernel_.load(), backend_->threadCount(),
            &control_);
        if (!comparison)
            throw Error(tr("the comparison was cancelled").toStdString());
        summary.klDivergence = comparison->klDivergence;
        summary.largestDifference = comparison->largestDifference;
        summary.exactTop = QString::fromStdString(tokenizer_->piece(comparison->exactTop));
        summary.testTop = QString::fromStdString(tokenizer_->piece(comparison->testTop));
    } catch (const std::exception& error) {
        summary.error = exceptionMessage(error);
    }
    emit cacheCompared(summary);
}

void EngineWorker::run(const TokenizationInfo& sequence, size_t promptTokens, int maxNewTokens) {
    applyKvCacheLayout();
    BeamChoice beams;
    {
        const std::lock_guard lock(samplingMutex_);
        beams = beams_;
    }
    backend_->setAttentionKernel(attentionKernel_.load());
    if (beams.width > 1) {
        cachedIds_.clear();  // the search uses the cache slots its own way
        runBeamSearch(sequence, promptTokens, maxNewTokens, beams);
        return;
    }
    control_.clearCancel();
    ProbeSet probes;
    probes.add(probe_.get());
    // The trace to export: every event, and the attention of the head on screen.
    TraceFile traceFile = startTrace();
    std::optional<TraceWriter> traceWriter;
    if (traceFile) {
        traceWriter.emplace(
            traceFile.get(),
            [this](int64_t layer, int64_t head) {
                return layer == selectedLayer_.load() && head == selectedHead_.load();
            },
            tokenizer_.get());
        probes.add(&*traceWriter);
    }
    // The lens reads the GUI probe's attention entropies at step end: it must come after it.
    std::optional<LogitLens> lens;
    if (lensEnabled_.load()) {
        lens.emplace(
            *model_, 5,
            [this](LensStep step) {
                widgets::LensSnapshot snapshot{int(step.step), int(step.position), {}};
                for (const LensRow& row : step.rows) {
                    widgets::LensLayer layer{int(row.layer),
                                             row.residualNorm,
                                             probe_->stepAttentionEntropy(int(row.layer)),
                                             {}};
                    // Labelled as the sampling chart labels candidates: what the piece spells.
                    for (size_t i = 0; i < row.ids.size(); ++i)
                        layer.top.push_back(
                            {widgets::tokenDisplayText(
                                 QString::fromStdString(tokenizer_->piece(row.ids[i])), {}, false),
                             row.probabilities[i]});
                    snapshot.layers.push_back(std::move(layer));
                }
                emit lensStep(snapshot);
            },
            tokenizer_->tokenCount());
        probes.add(&*lens);
    }
    // The conversation so far stays in the cache unless the user turned that off, the kernel
    // changed (its rows would round differently) or something else used the cache since.
    const AttentionKernel kernel = attentionKernel_.load();
    if (!keepCache_.load() || kernel != cachedKernel_ ||
        int64_t(cachedIds_.size()) != backend_->cachedTokens()) {
        cachedIds_.clear();
        backend_->clearCache();
    }
    cachedKernel_ = kernel;
    Generator generator(backend_, std::exchange(cachedIds_, {}), &probes, &control_);
    const std::vector<int32_t> ids = sequence.ids();
    const int64_t cached = generator.keepCommonPrefix(ids);
    SamplingParams params;
    std::vector<std::string> stopStrings;
    {
        const std::lock_guard lock(samplingMutex_);
        params = sampling_;
        stopStrings = stopStrings_;
        stopStrings.insert(stopStrings.end(), turnStopStrings_.begin(), turnStopStrings_.end());
        samplingChanged_ = false;
    }
    Sampler sampler(params, tokenizer_->tokenCount());
    sampler.setTokenTexts(tokenTexts_);
    sampler.setStopIds(chat_->stopIds());
    StreamingChooser chooser(sampler, *this, *tokenizer_, chat_->stopIds(), std::move(stopStrings));
    probe_->setGeneratedFrom(promptTokens);
    probes.tokenized(sequence);
    const std::vector<int32_t>& stops = chat_->stopIds();
    const Generation result =
        generator.generate(std::span(ids).subspan(size_t(cached)), maxNewTokens, chooser,
                           {stops.begin(), stops.end()});
    cachedIds_ = generator.history();
    emit promptTimed(cached, qint64(ids.size()), chooser.firstTokenMs());
    rememberRun(sequence, promptTokens, generator.history(), result.tokens);
    if (traceFile && std::fclose(traceFile.release()) == 0)
        emit traceRecorded(trace_->fileName());
    emit generationFinished(chooser.finish(), QString::fromUtf8(finishReasonName(result.reason)),
                            true);
}

void EngineWorker::rememberRun(const TokenizationInfo& sequence, size_t promptTokens,
                               std::vector<int32_t> history, std::span<const int32_t> generated) {
    lastTokens_ = std::move(history);
    lastRun_ = {sequence, sequence.tokens.size(), promptTokens};
    for (const int32_t id : generated)
        tokenizer_->appendGenerated(lastRun_.info, id);
}

void EngineWorker::runBeamSearch(const TokenizationInfo& sequence, size_t promptTokens,
                                 int maxNewTokens, BeamChoice choice) {
    if (backend_->slidingWindow() > 0)
        throw Error(tr("beam search keeps every beam's whole KV cache: turn the sliding window off "
                       "(Device menu) to search with beams")
                        .toStdString());
    control_.clearCancel();
    probe_->setGeneratedFrom(promptTokens);
    ProbeSet probes;
    probes.add(probe_.get());
    probes.tokenized(sequence);  // the token strip shows the prompt
    emit beamSearchStarted(choice.width);

    const std::vector<int32_t> prompt = sequence.ids();
    BeamSearchOptions options;
    options.width = choice.width;
    options.lengthPenalty = choice.lengthPenalty;
    options.maxNewTokens = std::min<int64_t>(
        maxNewTokens, std::max<int64_t>(1, backend_->contextSize() - int64_t(prompt.size())));
    options.stopIds = chat_->stopIds();
    options.sampleableCount = tokenizer_->tokenCount();
    options.onStep = [&](std::span<const BeamNode> nodes) {
        std::vector<widgets::BeamTreeNode> tree;
        tree.reserve(nodes.size());
        for (const BeamNode& node : nodes)
            tree.push_back(beamTreeNode(node, probe_->chipFor(node.token, true)));
        emit beamStep(tree);
        // The beams' caches all hold the same number of tokens; the one in use speaks for them.
        widgets::KvCachePoint point = kvCachePoint(backend_->cacheStats());
        point.beams = choice.width;
        point.bytesOtherBeams = backend_->otherSlotsBytes();
        emit kvCache(point);
        // Pause holds the search between steps; a step (layer or token) lets one more through.
        const bool go = control_.checkpoint();
        control_.tokenChosen();
        return go;
    };
    BackendBeamScorer scorer(*backend_);
    BeamSearchResult result;
    const auto singleCache = [this] {
        backend_->useCacheSlot(0);
        backend_->setCacheSlots(1);
        backend_->clearCache();
    };
    try {
        result = beamSearch(scorer, prompt, options);
    } catch (...) {
        singleCache();
        throw;
    }
    singleCache();

    BeamSearchSummary summary;
    summary.steps = result.steps;
    summary.cachesUsed = result.slotsUsed;
    summary.stopped = result.stopped;
    const auto answerTokens = [](const BeamHypothesis& h) {
        std::vector<int32_t> tokens = h.tokens;
        if (h.finished)
            tokens.pop_back();  // the stop token
        return tokens;
    };
    for (const BeamHypothesis& h : result.hypotheses)
        summary.hypotheses.push_back({QString::fromStdString(tokenizer_->decode(answerTokens(h))),
                                      h.logProbability, h.score, h.finished});
    std::vector<int32_t> best;
    if (!result.hypotheses.empty()) {
        summary.winner = result.hypotheses.front().node;
        best = result.hypotheses.front().tokens;
    }
    emit beamSearchFinished(summary);

    // The winner streams into the chat as a sampled answer would.
    StreamingDetokenizer detokenizer(*tokenizer_);
    const std::vector<int32_t>& stops = chat_->stopIds();
    QString answer;
    for (const int32_t id : best) {
        const bool stop = std::find(stops.begin(), stops.end(), id) != stops.end();
        const QString text = stop ? QString() : QString::fromStdString(detokenizer.push(id));
        answer += text;
        emit tokenGenerated(probe_->chipFor(id, true), text);
    }
    answer += QString::fromStdString(detokenizer.flush());
    std::vector<int32_t> history = prompt;
    history.insert(history.end(), best.begin(), best.end());
    rememberRun(sequence, promptTokens, std::move(history), best);
    const bool finished = !result.hypotheses.empty() && result.hypotheses.front().finished;
    const FinishReason reason = result.stopped ? FinishReason::Cancelled
                                : finished     ? FinishReason::EndOfSequence
                                               : FinishReason::MaxTokens;
    emit generationFinished(answer, QString::fromUtf8(finishReasonName(reason)), true);
}

void EngineWorker::recomputeAttention(int layer, quint64 serial) {
    if (serial != recomputeSerial_.load())
        return;  // a newer selection superseded this one
    if (!model_ || lastTokens_.empty())
        return;
    recomputeControl_.clearCancel();
    // Every head of the layer: the heat map shows the selected one, the small multiples the rest.
    struct Forwarder final : Probe {
        EngineWorker& worker;
        int layer;
        Forwarder(EngineWorker& w, int l) : worker(w), layer(l) {}
        ProbeInterest interest() const override {
            ProbeInterest interest;
            interest.attention = [l = layer](int64_t candidate, int64_t) { return candidate == l; };
            return interest;
        }
        void onAttention(const AttentionEvent& event) override {
            emit worker.attention(attentionMatrix(event));
        }
    } forwarder(*this, layer);
    ProbeSet probes;
    probes.add(&forwarder);
    AttentionRecomputeOptions options;
    options.layer = layer;
    options.budgetBytes = kAttentionBudgetBytes;
    options.kvType = backendLayout_.type;
    options.window = backendLayout_.window;
    options.sinks = backendLayout_.sinks;
    try {
        const bool complete = inferlens::recomputeAttention(*model_, lastTokens_, probes, options,
                                                            &recomputeControl_);
        emit attentionRecomputed(layer, complete, complete ? QString() : tr("superseded"));
    } catch (const std::exception& error) {
        emit attentionRecomputed(layer, false, exceptionMessage(error));
    }
}

void EngineWorker::runKvExperiment(int tokens) {
    try {
        if (!model_ || lastRun_.info.tokens.empty())
            throw Error(tr("send a message first: the experiment reruns its prompt").toStdString());
        std::vector<int32_t> prompt = lastRun_.info.ids();
        prompt.resize(lastRun_.promptTokens);
        control_.clearCancel();
        KvExperimentOptions options;
        options.newTokens = tokens;
        options.bytesPerWeight = double(model_->files().weightBytes()) /
                                 double(std::max<int64_t>(1, model_->files().parameterCount()));
        const KvExperimentOutcome outcome = runKvCacheExperiment(
            *model_, prompt, options, &control_, [this, tokens](bool kvCache, int64_t done) {
                emit kvExperimentProgress(kvCache, done, tokens);
            });
        const KvExperimentResult& r = outcome.result;
        widgets::KvExperimentData data;
        data.promptTokens = int(r.promptTokens);
        data.secondsWithCache = r.withCache.secondsPerToken;
        data.secondsWithoutCache = r.withoutCache.secondsPerToken;
        data.flopsWithCache = r.withCache.flopsPerToken;
        data.flopsWithoutCache = r.withoutCache.flopsPerToken;
        data.identical = outcome.cancelled || r.identical();
        emit kvExperimentFinished(data, outcome.cancelled ? tr("cancelled") : QString());
    } catch (const std::exception& error) {
        emit kvExperimentFinished({}, exceptionMessage(error));
    }
}

void EngineWorker::runAttentionKernelTiming() {
    try {
        if (!model_)
            throw Error(tr("no model is loaded").toStdString());
        control_.clearCancel();
        const ModelConfig& c = model_->config();
        const AttentionLayout layout = attentionLayoutOf(c, c.kvHeadCount * c.headDim);
        ThreadPool pool(0);
        const int64_t lengths[] = {512, 2048, 8192};
        const auto timings = timeAttentionKernels(
            layout, lengths, &pool, &control_,
            [this](int done, int total) { emit attentionKernelProgress(done, total); });
        emit attentionKernelsTimed(timings, control_.cancelled() ? tr("cancelled") : QString());
    } catch (const std::exception& error) {
        emit attentionKernelsTimed({}, exceptionMessage(error));
    }
}

EngineSession::EngineSession(QObject* parent) : QObject(parent), worker_(new EngineWorker) {
    registerEngineMetaTypes();
    thread_.setObjectName(QStringLiteral("inferlens-engine"));
    worker_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
    thread_.start();
}

EngineSession::~EngineSession() {
    worker_->control().cancel();
    worker_->control().resume();
    worker_->cancelLoad();
    worker_->beginRecompute();  // cancels a recomputation
    thread_.quit();
    thread_.wait();
}

QString exceptionMessage(const std::exception& error) {
    if (dynamic_cast<const std::bad_alloc*>(&error) != nullptr)
        return EngineWorker::tr("out of memory");
    return QString::fromUtf8(error.what());
}

void registerEngineMetaTypes() {
    qRegisterMetaType<ModelSummary>();
    qRegisterMetaType<LoadPlan>();
    qRegisterMetaType<AttentionOverview>();
    qRegisterMetaType<widgets::LensSnapshot>();
    qRegisterMetaType<widgets::KvExperimentData>();
    qRegisterMetaType<std::vector<AttentionKernelTiming>>();
    qRegisterMetaType<ChatTurn>();
    qRegisterMetaType<QList<ChatTurn>>();
    qRegisterMetaType<BeamSearchSummary>();
    qRegisterMetaType<CacheComparisonSummary>();
    qRegisterMetaType<std::vector<widgets::BeamTreeNode>>();
    qRegisterMetaType<std::vector<widgets::TokenChip>>();
    qRegisterMetaType<widgets::TokenChip>();
    qRegisterMetaType<widgets::AttentionMatrix>();
    qRegisterMetaType<widgets::KvCachePoint>();
    qRegisterMetaType<widgets::SamplingStep>();
    qRegisterMetaType<widgets::LoopTiming>();
}

}  // namespace inferlens::gui
