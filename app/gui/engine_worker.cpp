#include "engine_worker.h"

#include <QMetaType>
#include <algorithm>
#include <map>

#include "core/dtype.h"
#include "core/error.h"
#include "generator.h"
#include "gui_probe.h"
#include "models/model.h"
#include "sampling/sampler.h"
#include "sampling/sampler_chooser.h"
#include "tokenizer/chat_template.h"
#include "tokenizer/streaming_detokenizer.h"
#include "tokenizer/tokenizer.h"

namespace inferlens::gui {

// The sampler chain plus what the GUI needs after every choice: parameters changed in the
// sampling panel apply from this token on, and the chosen token streams out as a chip and text.
class StreamingChooser final : public SamplerChooser {
  public:
    StreamingChooser(Sampler& sampler, EngineWorker& worker, const Tokenizer& tokenizer,
                     const std::vector<int32_t>& stops)
        : SamplerChooser(sampler),
          sampler_(sampler),
          worker_(worker),
          detokenizer_(tokenizer),
          stops_(stops) {}

    int32_t choose(std::span<const float> logits, std::span<const int32_t> history,
                   bool traced) override {
        if (auto params = worker_.takePendingSampling())
            sampler_.setParams(*params);
        const int32_t id = SamplerChooser::choose(logits, history, traced);
        const bool stop = std::find(stops_.begin(), stops_.end(), id) != stops_.end();
        const QString text = stop ? QString() : QString::fromStdString(detokenizer_.push(id));
        answer_ += text;
        emit worker_.tokenGenerated(worker_.probe_->chipFor(id, true), text);
        return id;
    }
    QString finish() { return answer_ + QString::fromStdString(detokenizer_.flush()); }

  private:
    Sampler& sampler_;
    EngineWorker& worker_;
    StreamingDetokenizer detokenizer_;
    const std::vector<int32_t>& stops_;
    QString answer_;
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

EngineWorker::EngineWorker() = default;
EngineWorker::~EngineWorker() = default;

void EngineWorker::setSampling(const SamplingParams& params) {
    const std::lock_guard lock(samplingMutex_);
    sampling_ = params;
    samplingChanged_ = true;
}

std::optional<SamplingParams> EngineWorker::takePendingSampling() {
    const std::lock_guard lock(samplingMutex_);
    if (!samplingChanged_)
        return std::nullopt;
    samplingChanged_ = false;
    return sampling_;
}

void EngineWorker::selectHead(int layer, int head) {
    selectedLayer_ = layer;
    selectedHead_ = head;
    if (probe_)
        probe_->selectHead(layer, head);
}

void EngineWorker::loadModel(const QString& path) {
    try {
        auto model = std::make_unique<Model>(Model::open(path.toStdString()));
        auto tokenizer = std::make_unique<Tokenizer>(model->files());
        const ChatTemplateKind chatKind = chooseChatTemplate(model->files(), "").kind;
        auto chat = std::make_unique<ChatTemplate>(chatKind, *tokenizer);
        const ModelConfig& c = model->config();
        ModelSummary summary;
        summary.path = QString::fromStdString(model->files().path);
        summary.architecture = QString::fromStdString(c.architecture);
        summary.parameters = model->files().parameterCount();
        summary.dtype = dominantWeightType(model->files());
        summary.contextLength = c.contextLength;
        summary.contextSize = resolveContextSize(c, 0);
        summary.layers = int(c.layerCount);
        summary.heads = int(c.headCount);
        summary.device = QStringLiteral("CPU");
        summary.chatTemplate = QString::fromUtf8(chatTemplateName(chatKind).data());
        // What refers to the old tokenizer goes before it does.
        probe_.reset();
        chat_ = std::move(chat);
        model_ = std::move(model);
        tokenizer_ = std::move(tokenizer);
        ProbeSinks sinks;
        sinks.tokenized = [this](std::vector<widgets::TokenChip> c) { emit tokenized(c); };
        sinks.attention = [this](widgets::AttentionMatrix m) { emit attention(m); };
        sinks.kvCache = [this](widgets::KvCachePoint p) { emit kvCache(p); };
        sinks.sampling = [this](widgets::SamplingStep s) { emit sampling(s); };
        sinks.loopTiming = [this](widgets::LoopTiming t) { emit loopTiming(t); };
        probe_ = std::make_unique<GuiProbe>(*tokenizer_, std::move(sinks));
        probe_->selectHead(selectedLayer_, selectedHead_);
        emit modelLoaded(summary);
    } catch (const std::exception& error) {
        emit modelFailed(QString::fromUtf8(error.what()));
    }
}

void EngineWorker::generate(const QList<ChatTurn>& conversation, int maxNewTokens) {
    if (!model_) {
        emit generationFinished({}, tr("no model is loaded"), false);
        return;
    }
    try {
        std::vector<ChatMessage> messages;
        for (const ChatTurn& turn : conversation)
            messages.push_back(
                {turn.user ? ChatRole::User : ChatRole::Assistant, turn.text.toStdString()});
        const RenderedPrompt prompt = chat_->render(messages);

        control_.clearCancel();
        ProbeSet probes;
        probes.add(probe_.get());
        GeneratorOptions options;
        options.threads = 0;
        Generator generator(*model_, options, &probes, &control_);
        SamplingParams params;
        {
            const std::lock_guard lock(samplingMutex_);
            params = sampling_;
            samplingChanged_ = false;
        }
        Sampler sampler(params, tokenizer_->tokenCount());
        StreamingChooser chooser(sampler, *this, *tokenizer_, chat_->stopIds());
        probe_->onTokenized(prompt.info);
        const std::vector<int32_t>& stops = chat_->stopIds();
        const Generation result =
            generator.generate(prompt.ids, maxNewTokens, chooser, {stops.begin(), stops.end()});
        emit generationFinished(chooser.finish(),
                                QString::fromUtf8(finishReasonName(result.reason)), true);
    } catch (const std::exception& error) {
        emit generationFinished({}, QString::fromUtf8(error.what()), false);
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
    thread_.quit();
    thread_.wait();
}

void registerEngineMetaTypes() {
    qRegisterMetaType<ModelSummary>();
    qRegisterMetaType<ChatTurn>();
    qRegisterMetaType<QList<ChatTurn>>();
    qRegisterMetaType<std::vector<widgets::TokenChip>>();
    qRegisterMetaType<widgets::TokenChip>();
    qRegisterMetaType<widgets::AttentionMatrix>();
    qRegisterMetaType<widgets::KvCachePoint>();
    qRegisterMetaType<widgets::SamplingStep>();
    qRegisterMetaType<widgets::LoopTiming>();
}

}  // namespace inferlens::gui
