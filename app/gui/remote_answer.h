#pragma once
// A chat answer from a model on a server (engine remote/), told to the panels as a local
// generation is: the server's tokenization of the prompt its template renders, then per token its
// sampling step (the server's top-N and the unknown rest), its chip and text, and the step's time
// (the first: the time to first token). Layers, attention and the KV cache stay on the server, so
// nothing comes for those panels.

#include <QString>
#include <functional>
#include <vector>

#include "generation_control.h"
#include "panel_data.h"
#include "remote/remote_generator.h"

namespace inferlens::gui {

struct RemoteAnswerSinks {
    std::function<void(std::vector<widgets::TokenChip>)> tokenized;
    std::function<void(widgets::SamplingStep)> sampling;
    std::function<void(widgets::TokenChip, QString)> token;
    std::function<void(widgets::LoopTiming)> timing;
    std::function<void(QString)> notice;
    // Asked when a request ends cancelled: true when the cancel came from changed settings, so
    // that the answer is resumed with them (its end is then not told: the answer goes on).
    std::function<bool()> restartWanted;
};

// What to ask the server: the conversation, and for a branch or a restart the answer so far as a
// final assistant message to continue, with the tokens it was made of (the run's record starts
// with them).
struct RemoteRequest {
    std::vector<remote::ChatMessage> messages;
    bool continueAnswer = false;
    std::vector<remote::GeneratedToken> prefix;
    // A restart of the answer being shown (its settings changed mid-answer): the panels go on with
    // it, so steps count on from the prefix and the prompt's tokenization is not told again.
    bool resumesAnswer = false;
};

struct RemoteAnswer {
    std::vector<remote::ChatMessage> messages;  // as sent, after fitting to the context
    std::vector<remote::GeneratedToken> tokens;
    QString text;
    FinishReason reason = FinishReason::MaxTokens;
    qint64 promptTokens = 0;
    double firstTokenMs = 0;
    bool endedForRestart = false;  // cancelled because the settings changed (restartWanted)
};

// The request of a branch from `last`: its answer up to sampling step `step`, then the candidate
// of that step with id `forcedId` instead of the token it chose. Throws Error when the step or
// the candidate is not in the last answer.
RemoteRequest branchRequest(const RemoteAnswer& last, int step, int forcedId);

// The request that resumes `last` where it stopped (a restart with changed settings).
RemoteRequest resumeRequest(const RemoteAnswer& last);

// Asks the server to answer `request.messages` (fitted to its context first: the oldest rounds
// leave, with a notice). `recorder`, if given, gets every probe event too (a trace writer). Throws
// RemoteError or Error on failure; a cancel through `control` ends it early.
RemoteAnswer answerOnServer(const remote::RemoteConnection& connection,
                            const RemoteRequest& request, remote::RemoteSettings settings,
                            GenerationControl& control, const RemoteAnswerSinks& sinks,
                            Probe* recorder = nullptr);

}  // namespace inferlens::gui
