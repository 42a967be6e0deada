#include "remote_answer.h"

#include <QCoreApplication>
#include <algorithm>

#include "core/error.h"

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

RemoteRequest branchRequest(const RemoteAnswer& last, int step, int forcedId) {
    if (step < 0 || size_t(step) >= last.tokens.size())
        throw Error(QCoreApplication::translate("RemoteAnswer", "step %1 is not in the last answer")
                        .arg(step)
                        .toStdString());
    const std::vector<remote::TokenCandidate>& candidates = last.tokens[size_t(step)].alternatives;
    const auto forced = std::find_if(
        candidates.begin(), candidates.end(),
        [forcedId](const auto& candidate) { return candidate.id && *candidate.id == forcedId; });
    if (forced == candidates.end())
        throw Error(QCoreApplication::translate("RemoteAnswer",
                                                "token %1 is not among the server's candidates "
                                                "at step %2")
                        .arg(forcedId)
                        .arg(step)
                        .toStdString());
    RemoteRequest request;
    request.messages = last.messages;
    request.continueAnswer = true;
    request.prefix.assign(last.tokens.begin(), last.tokens.begin() + step);
    request.prefix.push_back({*forced, candidates, std::nullopt});
    std::string answerSoFar;
    for (const remote::GeneratedToken& token : request.prefix)
        answerSoFar += token.chosen.bytes.value_or(token.chosen.text);
    request.messages.push_back({"assistant", answerSoFar});
    return request;
}

RemoteAnswer answerOnServer(const remote::RemoteConnection& connection,
                            const RemoteRequest& request, remote::RemoteSettings settings,
                            GenerationControl& control, const RemoteAnswerSinks& sinks,
                            Probe* recorder) {
    settings.continueAnswer = request.continueAnswer;
    const std::vector<remote::ChatMessage>& messages = request.messages;
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
    // The record a later branch starts from: the conversation without the answer so far, and
    // the answer's tokens from its start.
    RemoteAnswer answer;
    answer.messages = fitted.messages;
    if (request.continueAnswer)
        answer.messages.pop_back();
    answer.tokens = request.prefix;
    answer.tokens.insert(answer.tokens.end(), generation.tokens.begin(), generation.tokens.end());
    answer.text = QString::fromStdString(generation.text);
    answer.reason = generation.reason;
    answer.promptTokens = generation.promptTokens;
    answer.firstTokenMs = generation.firstTokenSeconds * 1000;
    return answer;
}

}  // namespace inferlens::gui
