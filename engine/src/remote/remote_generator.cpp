#include "remote/remote_generator.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "remote/remote_error.h"
#include "remote/server_trace.h"
#include "remote/sse_parser.h"

namespace inferlens::remote {

namespace {

using Clock = std::chrono::steady_clock;

// The most alternatives the OpenAI API (and vLLM's default --max-logprobs) accepts per token.
constexpr int kMostTopLogprobs = 20;

std::string servedModels(const std::vector<ModelCard>& models) {
    std::string names;
    for (const ModelCard& card : models)
        names += (names.empty() ? "" : ", ") + card.id;
    return names;
}

std::string chooseModel(const ServerInfo& info, const std::string& wanted) {
    if (info.models.empty())
        throw RemoteError(RemoteErrorKind::Protocol, "the server lists no models (GET /v1/models)");
    if (wanted.empty())
        return info.models.front().id;
    for (const ModelCard& card : info.models)
        if (card.id == wanted)
            return wanted;
    throw RemoteError(RemoteErrorKind::Other, "the server serves no model named \"" + wanted +
                                                  "\"; it serves: " + servedModels(info.models));
}

// Bias values the APIs take: OpenAI's range is −100 … 100, and JSON has no infinities, so a ban
// (−inf) or a forced token (+inf) is sent as the range's end.
std::vector<std::pair<int32_t, double>> sendableBias(
    const std::vector<std::pair<int32_t, float>>& bias) {
    std::vector<std::pair<int32_t, double>> out;
    for (const auto& [id, value] : bias)
        out.emplace_back(id, std::clamp(double(value), -100.0, 100.0));
    return out;
}

GenerationRequest requestFor(const RemoteConnection& connection, const RemoteSettings& settings) {
    const SamplingParams& p = settings.sampling;
    GenerationRequest request;
    request.model = connection.model();
    request.stream = settings.stream;
    request.maxTokens = int(settings.maxTokens);
    request.temperature = p.temperature;
    if (p.topK > 0)
        request.topK = p.topK;
    if (p.topP < 1)
        request.topP = p.topP;
    if (p.minP > 0)
        request.minP = p.minP;
    if (p.repetitionPenalty != 1)
        request.repetitionPenalty = p.repetitionPenalty;
    if (p.frequencyPenalty != 0)
        request.frequencyPenalty = p.frequencyPenalty;
    if (p.presencePenalty != 0)
        request.presencePenalty = p.presencePenalty;
    request.seed = int64_t(p.seed);
    request.stop = settings.stop;
    request.logitBias = sendableBias(p.logitBias);
    if (!p.grammar.empty())
        request.grammar = p.grammar;
    // At least one, so that llama-server reports the chosen token's own probability.
    request.topLogprobs = std::clamp(p.traceTopN, 1, kMostTopLogprobs);
    request.timingsPerToken = connection.flavour() == ServerFlavour::LlamaServer;
    request.continueFinalMessage = settings.continueAnswer;
    return request;
}

// The APIs say "stop" both for the end-of-sequence token and for a stop string: the two are not
// told apart, and both count as the model ending its answer.
FinishReason finishReasonOf(const std::optional<std::string>& reason, bool cancelled) {
    if (cancelled)
        return FinishReason::Cancelled;
    return reason == "length" ? FinishReason::MaxTokens : FinishReason::EndOfSequence;
}

// The byte spans of `pieces` in `text`: each piece that continues the text where the previous
// one ended covers its bytes; one that does not (a special token the text does not spell, such as
// <|begin_of_text|>) covers nothing, there.
TokenizationInfo spansOf(const std::string& text, const Tokenization& tokens) {
    TokenizationInfo info;
    info.text = text;
    int64_t at = 0;
    for (size_t i = 0; i < tokens.ids.size(); ++i) {
        TokenInfo token;
        token.id = tokens.ids[i];
        token.piece = i < tokens.pieces.size() ? tokens.pieces[i] : std::string();
        token.begin = at;
        if (!token.piece.empty() && text.compare(size_t(at), token.piece.size(), token.piece) == 0)
            at += int64_t(token.piece.size());
        else
            token.special = !token.piece.empty();
        token.end = at;
        info.tokens.push_back(std::move(token));
    }
    return info;
}

}  // namespace

RemoteConnection::RemoteConnection(HttpOptions options, const std::string& model)
    : client_(std::move(options)), info_(probeServer(client_)), model_(chooseModel(info_, model)) {}

std::optional<TokenizationInfo> RemoteConnection::tokenize(const std::string& text,
                                                           bool addSpecial) const {
    if (!hasTokenizer())
        return std::nullopt;
    return spansOf(text, tokenizeOnServer(client_, flavour(), model_, text, addSpecial));
}

std::optional<std::string> RemoteConnection::renderChat(
    const std::vector<ChatMessage>& messages) const {
    if (flavour() != ServerFlavour::LlamaServer)
        return std::nullopt;
    nlohmann::json list = nlohmann::json::array();
    for (const ChatMessage& message : messages)
        list.push_back({{"role", message.role}, {"content", message.content}});
    const HttpResponse response =
        client_.postJson("/apply-template", nlohmann::json{{"messages", list}}.dump());
    const nlohmann::json answer = nlohmann::json::parse(response.body, nullptr, false);
    if (!answer.is_object() || !answer.contains("prompt") || !answer["prompt"].is_string())
        throw RemoteError(RemoteErrorKind::Protocol,
                          "POST /apply-template answered without a \"prompt\" string");
    return answer["prompt"].get<std::string>();
}

std::vector<std::string> samplingNotCarried(ServerFlavour flavour, const SamplingParams& params) {
    std::vector<std::string> missing;
    GenerationRequest asked;
    if (params.topK > 0)
        asked.topK = params.topK;
    if (params.minP > 0)
        asked.minP = params.minP;
    if (params.repetitionPenalty != 1)
        asked.repetitionPenalty = params.repetitionPenalty;
    if (!params.grammar.empty())
        asked.grammar = params.grammar;
    for (const std::string& name : settingsNotCarried(flavour, asked))
        missing.push_back(name);
    if (!params.bannedTexts.empty())
        missing.push_back("banned texts");
    if (params.minNewTokens > 0)
        missing.push_back("minimum new tokens");
    if (params.penaltyLastN != SamplingParams{}.penaltyLastN)
        missing.push_back("penalty window");
    return missing;
}

RemoteGenerator::RemoteGenerator(const RemoteConnection& connection, ProbeSet* probes,
                                 GenerationControl* control)
    : connection_(connection),
      probes_(probes != nullptr ? probes : &noProbes_),
      control_(control) {}

RemoteGeneration RemoteGenerator::chat(const std::vector<ChatMessage>& messages,
                                       const RemoteSettings& settings) {
    if (settings.continueAnswer && connection_.flavour() == ServerFlavour::GenericOpenAi)
        throw RemoteError(RemoteErrorKind::Other,
                          "this server cannot continue an answer from a prefix (the OpenAI API "
                          "has no such request), so branching is not available on it");
    std::optional<TokenizationInfo> prompt;
    if (probes_->wantsTokenization())
        if (const std::optional<std::string> rendered = connection_.renderChat(messages))
            prompt = connection_.tokenize(*rendered, false);
    return run(
        kChatCompletionsPath,
        chatCompletionBody(connection_.flavour(), requestFor(connection_, settings), messages),
        prompt, settings);
}

RemoteGeneration RemoteGenerator::complete(const std::string& prompt,
                                           const RemoteSettings& settings) {
    std::optional<TokenizationInfo> tokens;
    if (probes_->wantsTokenization() || probes_->wantsSteps())
        tokens = connection_.tokenize(prompt, true);
    return run(kCompletionsPath,
               completionBody(connection_.flavour(), requestFor(connection_, settings), prompt),
               tokens, settings);
}

RemoteGeneration RemoteGenerator::run(std::string_view path, const nlohmann::json& body,
                                      const std::optional<TokenizationInfo>& prompt,
                                      const RemoteSettings& settings) {
    probes_->refresh();
    if (prompt)
        probes_->tokenized(*prompt);
    RemoteGeneration result;
    result.promptTokens = prompt ? int64_t(prompt->tokens.size()) : 0;
    std::optional<std::string> finishReason;
    const Clock::time_point start = Clock::now();
    Clock::time_point last = start;
    // One step per token, its time the wait since the previous one (the first: since the request).
    const auto arrived = [&](const GeneratedToken& token) {
        const Clock::time_point now = Clock::now();
        const double seconds = std::chrono::duration<double>(now - last).count();
        last = now;
        const auto index = int64_t(result.tokens.size());
        if (index == 0)
            result.firstTokenSeconds = seconds;
        else
            result.interTokenSeconds.push_back(seconds);
        StepEvent step;
        step.index = index;
        step.phase = index == 0 ? StepPhase::Prefill : StepPhase::Decode;
        step.firstPosition = index == 0 ? 0 : result.promptTokens + index - 1;
        step.tokenCount = index == 0 ? result.promptTokens : 1;
        probes_->stepBegin(step);
        if (probes_->wantsSampling())
            probes_->sampling(index, traceFromServer(token, settings.sampling));
        step.seconds = seconds;
        probes_->stepEnd(step);
        result.tokens.push_back(token);
    };
    const auto take = [&](const CompletionUpdate& update) {
        result.text += update.text;
        for (const GeneratedToken& token : update.tokens)
            arrived(token);
        if (textSink_ && !update.text.empty())
            textSink_(update.text);
        if (update.finishReason)
            finishReason = update.finishReason;
        if (update.usage) {
            result.usage = update.usage;
            result.promptTokens = update.usage->promptTokens;
        }
        if (update.timings)
            result.timings = update.timings;
    };
    const ResponseOptions options;
    const std::string text = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    const std::atomic<bool>* cancel = control_ != nullptr ? &control_->cancelFlag() : nullptr;
    bool cancelled = false;
    try {
        if (settings.stream) {
            SseParser parser;
            cancelled = connection_.client()
                            .postStream(
                                path, text,
                                [&](std::string_view bytes) {
                                    for (const SseEvent& event : parser.feed(bytes)) {
                                        const std::optional<CompletionUpdate> update =
                                            parseStreamEvent(event, options);
                                        if (!update)
                                            return false;  // [DONE]
                                        take(*update);
                                    }
                                    return true;
                                },
                                cancel)
                            .cancelled;
            if (!cancelled && !parser.done() && !finishReason)
                throw RemoteError(RemoteErrorKind::ConnectionLost,
                                  "the server's answer ended before it was complete (no [DONE] "
                                  "and no finish reason)");
        } else {
            const HttpResponse response = connection_.client().postJson(path, text, cancel);
            cancelled = response.cancelled;
            if (!cancelled)
                take(parseCompletionUpdate(response.body, options));
        }
    } catch (const RemoteError& error) {
        // Every probe has seen the tokens that came: say how many, for the person to know that
        // the answer so far stays.
        if (result.tokens.empty())
            throw;
        throw RemoteError(error.kind(),
                          std::string(error.what()) + "; " + std::to_string(result.tokens.size()) +
                              " tokens arrived before",
                          error.httpStatus());
    }
    result.reason = finishReasonOf(finishReason, cancelled);
    probes_->finished(FinishedEvent{result.reason, int64_t(result.tokens.size())});
    return result;
}

}  // namespace inferlens::remote
