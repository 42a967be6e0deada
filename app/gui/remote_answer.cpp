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

// Passes one request's events on to `targets` as part of the answer it belongs to: a resumed
// request's steps count on from `firstStep` and its prompt's tokenization (which holds the answer
// so far) is not told again; an end that only makes way for a restart is held back.
class AnswerPartProbe final : public Probe {
  public:
    AnswerPartProbe(std::vector<Probe*> targets, int64_t firstStep, bool resumed,
                    const std::function<bool()>& restartWanted)
        : targets_(std::move(targets)),
          firstStep_(firstStep),
          resumed_(resumed),
          restartWanted_(restartWanted) {}

    ProbeInterest interest() const override {
        ProbeInterest wanted;
        wanted.tokenization = wanted.steps = wanted.sampling = wanted.finished = true;
        return wanted;
    }
    void onTokenized(const TokenizationInfo& info) override {
        if (!resumed_)
            each([&](Probe& p) { p.onTokenized(info); });
    }
    void onStepBegin(const StepEvent& event) override {
        each([&](Probe& p) { p.onStepBegin(counted(event)); });
    }
    void onSampling(int64_t step, const SamplingTrace& trace) override {
        each([&](Probe& p) { p.onSampling(firstStep_ + step, trace); });
    }
    void onStepEnd(const StepEvent& event) override {
        each([&](Probe& p) { p.onStepEnd(counted(event)); });
    }
    void onFinished(const FinishedEvent& event) override {
        if (event.reason == FinishReason::Cancelled && restartWanted_ && restartWanted_()) {
            endedForRestart_ = true;
            return;
        }
        FinishedEvent whole = event;  // the answer's count, the resumed parts' tokens included
        whole.generatedTokens += firstStep_;
        each([&](Probe& p) { p.onFinished(whole); });
    }
    bool endedForRestart() const { return endedForRestart_; }

  private:
    template <typename Event>
    void each(Event&& event) {
        for (Probe* target : targets_)
            event(*target);
    }
    StepEvent counted(StepEvent event) const {
        event.index += firstStep_;
        return event;
    }

    std::vector<Probe*> targets_;
    int64_t firstStep_;
    bool resumed_;
    const std::function<bool()>& restartWanted_;
    bool endedForRestart_ = false;
};

// The request that continues `answer`'s conversation with `prefix` as the answer so far.
RemoteRequest continuing(const RemoteAnswer& answer, std::vector<remote::GeneratedToken> prefix) {
    RemoteRequest request;
    request.messages = answer.messages;
    request.continueAnswer = true;
    request.prefix = std::move(prefix);
    std::string answerSoFar;
    for (const remote::GeneratedToken& token : request.prefix)
        answerSoFar += token.chosen.bytes.value_or(token.chosen.text);
    request.messages.push_back({"assistant", answerSoFar});
    return request;
}

}  // namespace

RemoteRequest resumeRequest(const RemoteAnswer& last) {
    RemoteRequest request = continuing(last, last.tokens);
    request.resumesAnswer = true;
    return request;
}

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
    std::vector<remote::GeneratedToken> prefix(last.tokens.begin(), last.tokens.begin() + step);
    prefix.push_back({*forced, candidates, std::nullopt});
    return continuing(last, std::move(prefix));
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
    RemotePanelProbe panels(sinks);
    std::vector<Probe*> targets{&panels};
    if (recorder != nullptr)
        targets.push_back(recorder);
    const int64_t firstStep = request.resumesAnswer ? int64_t(request.prefix.size()) : 0;
    AnswerPartProbe part(std::move(targets), firstStep, request.resumesAnswer, sinks.restartWanted);
    ProbeSet probes;
    probes.add(&part);
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
    answer.endedForRestart = part.endedForRestart();
    return answer;
}

}  // namespace inferlens::gui
