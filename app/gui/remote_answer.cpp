#include "remote_answer.h"

#include <QCoreApplication>
#include <algorithm>

#include "panel_conversion.h"
#include "remote/remote_context_fit.h"

namespace inferlens::gui {

namespace {

// The probe events of a remote generation as panel data.
class RemotePanelProbe final : public Probe {
  public:
    explicit RemotePanelProbe(const RemoteAnswerSinks& sinks) : sinks_(sinks) {}

    ProbeInterest interest() const override {
        ProbeInterest wanted;
        wanted.tokenization = wanted.steps = wanted.sampling = true;
        return wanted;
    }
    void onTokenized(const TokenizationInfo& info) override { sinks_.tokenized(promptChips(info)); }
    void onStepBegin(const StepEvent& event) override {
        timing_ = {};
        timing_.step = int(event.index);
        timing_.prefill = event.phase == StepPhase::Prefill;
        timing_.tokenCount = int(std::max<int64_t>(1, event.tokenCount));
    }
    void onSampling(int64_t step, const SamplingTrace& trace) override {
        const std::vector<std::string>& texts = trace.server->texts;
        sinks_.sampling(samplingStep(step, trace, texts));
        const std::string& text = trace.server->chosenText;
        widgets::TokenChip chip;
        chip.id = trace.chosenId;
        chip.piece = QString::fromStdString(text);
        chip.bytes = QByteArray::fromStdString(text);
        chip.generated = true;
        sinks_.token(chip, QString::fromStdString(text));
    }
    void onStepEnd(const StepEvent& event) override {
        timing_.stepSeconds = event.seconds;
        sinks_.timing(timing_);
    }

  private:
    const RemoteAnswerSinks& sinks_;
    widgets::LoopTiming timing_;
};

}  // namespace

RemoteAnswer answerOnServer(const remote::RemoteConnection& connection,
                            const std::vector<remote::ChatMessage>& messages,
                            const remote::RemoteSettings& settings, GenerationControl& control,
                            const RemoteAnswerSinks& sinks, Probe* recorder) {
    const int64_t context = connection.contextLength().value_or(0);
    const int64_t reserve =
        context > 0 ? std::min(settings.maxTokens, context / 2) : settings.maxTokens;
    const remote::FittedConversation fitted =
        remote::fitToServerContext(connection, messages, reserve);
    if (fitted.droppedRounds > 0)
        sinks.notice(QCoreApplication::translate("RemoteAnswer",
                                                 "The conversation is longer than the server's "
                                                 "context of %1 tokens: the oldest %n round(s) "
                                                 "are left out of the prompt.",
                                                 nullptr, fitted.droppedRounds)
                         .arg(context));
    RemotePanelProbe probe(sinks);
    ProbeSet probes;
    probes.add(&probe);
    if (recorder != nullptr)
        probes.add(recorder);
    remote::RemoteGenerator generator(connection, &probes, &control);
    const remote::RemoteGeneration generation = generator.chat(fitted.messages, settings);
    RemoteAnswer answer;
    answer.text = QString::fromStdString(generation.text);
    answer.reason = generation.reason;
    answer.promptTokens = generation.promptTokens;
    answer.firstTokenMs = generation.firstTokenSeconds * 1000;
    return answer;
}

}  // namespace inferlens::gui
