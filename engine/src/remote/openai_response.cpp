#include "remote/openai_response.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "core/utf8.h"
#include "remote/json_fields.h"
#include "remote/remote_error.h"

namespace inferlens::remote {

namespace {

using nlohmann::json;

std::string indexed(const std::string& where, size_t index) {
    return where + "[" + std::to_string(index) + "]";
}

std::string bytesFrom(const json& list, const std::string& where) {
    std::string bytes;
    for (size_t i = 0; i < list.size(); ++i) {
        const int64_t value = integerValue(list[i], indexed(where, i));
        if (value < 0 || value > 255)
            throwMalformedAnswer(indexed(where, i), "is not a byte");
        bytes.push_back(char(value));
    }
    return bytes;
}

// vLLM's return_tokens_as_token_ids writes a token as "token_id:N" (its bytes are then those of
// that text, not the token's, so they go too).
void readTokenAsId(TokenCandidate& candidate, const ResponseOptions& options) {
    constexpr std::string_view kPrefix = "token_id:";
    if (!options.tokensAsIds || !candidate.text.starts_with(kPrefix))
        return;
    const char* first = candidate.text.data() + kPrefix.size();
    const char* last = candidate.text.data() + candidate.text.size();
    int32_t id = 0;
    const auto [end, error] = std::from_chars(first, last, id);
    if (error != std::errc() || end != last)
        return;
    candidate.id = id;
    candidate.text.clear();
    candidate.bytes.reset();
}

double logOfProbability(double probability) {
    return probability > 0 ? std::log(probability) : -std::numeric_limits<double>::infinity();
}

// {token, logprob, bytes} with llama-server's "id", or its post-sampling "prob".
TokenCandidate candidateFrom(const json& item, const std::string& where,
                             const ResponseOptions& options) {
    if (!item.is_object())
        throwMalformedAnswer(where, "is not an object");
    TokenCandidate candidate;
    candidate.text = stringField(item, "token", where).value_or("");
    if (const auto id = integerField(item, "id", where))
        candidate.id = int32_t(*id);
    if (const json* bytes = arrayField(item, "bytes", where))
        candidate.bytes = bytesFrom(*bytes, where + ".bytes");
    if (const auto logprob = numberField(item, "logprob", where))
        candidate.logprob = *logprob;
    else if (const auto probability = numberField(item, "prob", where))
        candidate.logprob = logOfProbability(*probability);
    readTokenAsId(candidate, options);
    return candidate;
}

std::vector<GeneratedToken> perTokenObjects(const json& list, const std::string& where,
                                            const ResponseOptions& options) {
    std::vector<GeneratedToken> tokens;
    for (size_t i = 0; i < list.size(); ++i) {
        const std::string place = indexed(where, i);
        GeneratedToken token;
        token.chosen = candidateFrom(list[i], place, options);
        const json* top = arrayField(list[i], "top_logprobs", place);
        const char* topName = "top_logprobs";
        if (top == nullptr) {
            top = arrayField(list[i], "top_probs", place);
            topName = "top_probs";
        }
        if (top != nullptr)
            for (size_t k = 0; k < top->size(); ++k)
                token.alternatives.push_back(
                    candidateFrom((*top)[k], indexed(place + "." + topName, k), options));
        tokens.push_back(std::move(token));
    }
    return tokens;
}

// {tokens: [...], token_logprobs: [...], top_logprobs: [{text: logprob} | null], text_offset}
std::vector<GeneratedToken> legacyArrays(const json& logprobs, const std::string& where,
                                         const ResponseOptions& options) {
    const json* texts = arrayField(logprobs, "tokens", where);
    const json* values = arrayField(logprobs, "token_logprobs", where);
    const json* tops = arrayField(logprobs, "top_logprobs", where);
    const json* offsets = arrayField(logprobs, "text_offset", where);
    const size_t count = texts->size();
    const auto checkLength = [&](const json* list, const char* name) {
        if (list != nullptr && list->size() != count)
            throwMalformedAnswer(where + "." + name, "has " + std::to_string(list->size()) +
                                                         " entries for " + std::to_string(count) +
                                                         " tokens");
    };
    checkLength(values, "token_logprobs");
    checkLength(tops, "top_logprobs");
    checkLength(offsets, "text_offset");

    std::vector<GeneratedToken> tokens(count);
    for (size_t i = 0; i < count; ++i) {
        GeneratedToken& token = tokens[i];
        const json& text = (*texts)[i];
        if (!text.is_string())
            throwMalformedAnswer(indexed(where + ".tokens", i), "is not a string");
        token.chosen.text = text.get<std::string>();
        if (values != nullptr && !(*values)[i].is_null()) {
            if (!(*values)[i].is_number())
                throwMalformedAnswer(indexed(where + ".token_logprobs", i), "is not a number");
            token.chosen.logprob = (*values)[i].get<double>();
        }
        readTokenAsId(token.chosen, options);
        if (offsets != nullptr)
            token.textOffset = integerValue((*offsets)[i], indexed(where + ".text_offset", i));
        if (tops == nullptr || (*tops)[i].is_null())
            continue;
        const json& top = (*tops)[i];
        const std::string place = indexed(where + ".top_logprobs", i);
        if (!top.is_object())
            throwMalformedAnswer(place, "is not an object");
        for (const auto& [alternative, logprob] : top.items()) {
            if (!logprob.is_number())
                throwMalformedAnswer(place + "[\"" + alternative + "\"]", "is not a number");
            TokenCandidate candidate;
            candidate.text = alternative;
            candidate.logprob = logprob.get<double>();
            readTokenAsId(candidate, options);
            token.alternatives.push_back(std::move(candidate));
        }
        // A JSON object has no order; the other shapes list the most likely first.
        std::stable_sort(token.alternatives.begin(), token.alternatives.end(),
                         [](const TokenCandidate& a, const TokenCandidate& b) {
                             return a.logprob.value_or(-INFINITY) > b.logprob.value_or(-INFINITY);
                         });
    }
    return tokens;
}

std::vector<GeneratedToken> logprobsOfChoice(const json& choice, const std::string& where,
                                             const ResponseOptions& options) {
    const json* logprobs = objectField(choice, "logprobs", where);
    if (logprobs == nullptr)
        return {};
    const std::string place = where + ".logprobs";
    if (const json* content = arrayField(*logprobs, "content", place))
        return perTokenObjects(*content, place + ".content", options);
    if (arrayField(*logprobs, "tokens", place) != nullptr)
        return legacyArrays(*logprobs, place, options);
    return {};
}

std::vector<int32_t> tokenIdList(const json& list, const std::string& where) {
    std::vector<int32_t> ids;
    for (size_t i = 0; i < list.size(); ++i)
        ids.push_back(int32_t(integerValue(list[i], indexed(where, i))));
    return ids;
}

void readChoice(const json& choices, CompletionUpdate& update, const ResponseOptions& options) {
    if (choices.empty())
        return;  // the usage-only last chunk of a stream
    // Requests ask for one choice; take the one with index 0.
    size_t position = 0;
    for (size_t i = 0; i < choices.size(); ++i)
        if (choices[i].is_object() && choices[i].value("index", json()) == json(0))
            position = i;
    const std::string where = indexed("choices", position);
    const json& choice = choices[position];
    if (!choice.is_object())
        throwMalformedAnswer(where, "is not an object");
    if (const json* delta = objectField(choice, "delta", where))
        update.text = stringField(*delta, "content", where + ".delta").value_or("");
    else if (const json* message = objectField(choice, "message", where))
        update.text = stringField(*message, "content", where + ".message").value_or("");
    else
        update.text = stringField(choice, "text", where).value_or("");
    update.finishReason = stringField(choice, "finish_reason", where);
    update.tokens = logprobsOfChoice(choice, where, options);
    if (const json* ids = arrayField(choice, "token_ids", where))
        update.tokenIds = tokenIdList(*ids, where + ".token_ids");
}

// llama-server's native /completion answer: content, tokens, stop + stop_type,
// completion_probabilities.
void readNativeAnswer(const json& document, CompletionUpdate& update,
                      const ResponseOptions& options) {
    update.text = stringField(document, "content", "answer").value_or("");
    if (const json* ids = arrayField(document, "tokens", "answer"))
        update.tokenIds = tokenIdList(*ids, "tokens");
    if (const json* probabilities = arrayField(document, "completion_probabilities", "answer"))
        update.tokens = perTokenObjects(*probabilities, "completion_probabilities", options);
    if (boolField(document, "stop", "answer").value_or(false)) {
        // In OpenAI's words, as llama-server's own OpenAI answers put it.
        const std::string type = stringField(document, "stop_type", "answer").value_or("");
        if (type == "limit")
            update.finishReason = "length";
        else if (type == "eos" || type == "word")
            update.finishReason = "stop";
    }
}

Usage usageFrom(const json& usage) {
    Usage result;
    result.promptTokens = integerField(usage, "prompt_tokens", "usage").value_or(0);
    result.completionTokens = integerField(usage, "completion_tokens", "usage").value_or(0);
    return result;
}

ServerTimings timingsFrom(const json& timings) {
    ServerTimings result;
    result.promptTokens = integerField(timings, "prompt_n", "timings");
    result.promptMs = numberField(timings, "prompt_ms", "timings");
    result.promptPerSecond = numberField(timings, "prompt_per_second", "timings");
    result.predictedTokens = integerField(timings, "predicted_n", "timings");
    result.predictedMs = numberField(timings, "predicted_ms", "timings");
    result.predictedPerSecond = numberField(timings, "predicted_per_second", "timings");
    return result;
}

[[noreturn]] void throwServerReported(const std::string& body) {
    const auto message = serverErrorMessage(body);
    throw RemoteError(RemoteErrorKind::ServerReported,
                      escapeInvalidUtf8("the server reported an error during the answer: " +
                                        message.value_or(body.substr(0, 200))));
}

bool isErrorObject(const json& document) {
    return document.contains("error") ||
           (document.value("object", json()) == json("error") && !document.contains("choices"));
}

CompletionUpdate completionUpdateFrom(const json& document, const ResponseOptions& options) {
    if (!document.is_object())
        throwMalformedAnswer("the answer", "is not a JSON object");
    if (isErrorObject(document))
        throwServerReported(document.dump());
    CompletionUpdate update;
    const json* choices = arrayField(document, "choices", "answer");
    const json* usage = objectField(document, "usage", "answer");
    const json* timings = objectField(document, "timings", "answer");
    if (choices != nullptr)
        readChoice(*choices, update, options);
    else if (document.contains("content"))
        readNativeAnswer(document, update, options);
    else if (usage == nullptr && timings == nullptr)
        throwMalformedAnswer("the answer", "has no \"choices\"");
    if (usage != nullptr)
        update.usage = usageFrom(*usage);
    if (timings != nullptr)
        update.timings = timingsFrom(*timings);
    return update;
}

}  // namespace

CompletionUpdate parseCompletionUpdate(std::string_view jsonText, const ResponseOptions& options) {
    return completionUpdateFrom(parseAnswerJson(jsonText, "the server's answer"), options);
}

std::optional<CompletionUpdate> parseStreamEvent(const SseEvent& event,
                                                 const ResponseOptions& options) {
    if (event.done)
        return std::nullopt;
    if (event.name == "error")
        throwServerReported(event.data);
    return parseCompletionUpdate(event.data, options);
}

}  // namespace inferlens::remote
