#pragma once
// Request bodies for /v1/chat/completions and /v1/completions. Only the settings that are set are
// written, so the server's own defaults apply to the rest. Where the servers name a setting
// differently, the flavour decides:
//
//   setting              OpenAI         llama-server           vLLM / SGLang
//   repetition penalty   (none)         repeat_penalty         repetition_penalty
//   top_k, min_p         (none)         top_k, min_p           top_k, min_p
//   top-N logprobs       chat: logprobs + top_logprobs; completions: logprobs: N
//                                       the same, and n_probs: N (its native name)
//   logit_bias           {"id": bias}   [[id, bias], ...]      {"id": bias}
//   GBNF grammar         (none)         grammar                (none: other dialects)
//
// llama-server b4747 reads logit_bias only as an array of [id, bias] pairs (server.cpp,
// params_from_json_cmpl); later versions accept both. llama-server reports no probabilities at all
// with n_probs 0, so there topLogprobs must be at least 1 for the chosen token's own logprob.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "remote/server_flavour.h"

namespace inferlens::remote {

inline constexpr std::string_view kChatCompletionsPath = "/v1/chat/completions";
inline constexpr std::string_view kCompletionsPath = "/v1/completions";

struct ChatMessage {
    std::string role;  // "system", "user", "assistant"
    std::string content;
};

// A prompt for /v1/completions: text, or token ids the server uses as they are.
using CompletionPrompt = std::variant<std::string, std::vector<int32_t>>;

struct GenerationRequest {
    std::string model;  // empty: not sent (llama-server serves its one model whatever the name)
    bool stream = true;
    std::optional<int> maxTokens;
    std::optional<double> temperature;
    std::optional<double> topP;
    std::optional<int> topK;
    std::optional<double> minP;
    std::optional<double> presencePenalty;
    std::optional<double> frequencyPenalty;
    std::optional<double> repetitionPenalty;  // multiplicative, 1 = off
    std::optional<int64_t> seed;
    std::vector<std::string> stop;
    std::vector<std::pair<int32_t, double>> logitBias;  // token id, bias added to its logit
    // A GBNF grammar the output must follow: llama-server's "grammar" (its own dialect, which the
    // engine's grammar/ reads too); the other servers' grammar fields take other dialects.
    std::optional<std::string> grammar;
    // How many alternatives to report with each generated token's own log-probability.
    std::optional<int> topLogprobs;
    // Chat: the last message is the assistant's answer so far, to be continued rather than
    // answered (branching from a prefix): vLLM and SGLang "continue_final_message" with no new
    // generation prompt; llama-server continues a final assistant message by itself.
    bool continueFinalMessage = false;
    // llama-server: probabilities after its sampling chain instead of the model's softmax.
    bool postSamplingProbs = false;
    // llama-server: timings in every streamed chunk, not only the last.
    bool timingsPerToken = false;
    // vLLM: tokens in logprobs written "token_id:N", so that ids are known and tokens that are
    // not whole UTF-8 characters cannot collide (see openai_response.h).
    bool tokensAsIds = false;
};

nlohmann::json chatCompletionBody(ServerFlavour flavour, const GenerationRequest& request,
                                  const std::vector<ChatMessage>& messages);
nlohmann::json completionBody(ServerFlavour flavour, const GenerationRequest& request,
                              const CompletionPrompt& prompt);

// The JSON names of the settings set in `request` that `flavour` has no field for and that the
// bodies above therefore leave out, e.g. {"top_k", "min_p"} for a plain OpenAI server: for
// telling the person which controls do nothing there.
std::vector<std::string> settingsNotCarried(ServerFlavour flavour,
                                            const GenerationRequest& request);

}  // namespace inferlens::remote
