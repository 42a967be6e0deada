#pragma once
// Answers of /v1/chat/completions and /v1/completions, streamed chunks and whole responses alike,
// in one neutral form: the text, each generated token with its log-probability and the top-N
// alternatives, the finish reason, usage and (llama-server) timings.
//
// Log-probabilities come in three shapes, each recognised by its fields whatever the endpoint:
//   - per-token objects, choices[0].logprobs.content[{token, logprob, bytes, top_logprobs:[...]}]:
//     the OpenAI chat shape; llama-server adds "id" and uses it for /v1/completions too;
//   - the legacy completions arrays, choices[0].logprobs{tokens, token_logprobs,
//     top_logprobs:[{text: logprob}], text_offset} (OpenAI, vLLM, SGLang). Alternatives there are
//     keyed by their text, so two tokens that decode alike (pieces of one UTF-8 character) collapse
//     into one; vLLM's return_tokens_as_token_ids ("token_id:N") avoids it;
//   - llama-server's native /completion: completion_probabilities at the top level, per-token
//     objects as above.
// llama-server's post_sampling_probs answers carry "prob"/"top_probs" instead: converted to
// natural logarithms here.
//
// llama-server's chat stream (seen with the llama.cpp that llama-cpp-python 0.3.36 vendors) gives
// no entry to a token that ends inside a UTF-8 character: its bytes lead the next entry's bytes
// (and text), while that entry's alternatives have their own bytes only. Its completions
// endpoints give every token an entry.
//
// A chunk may carry several tokens or none: the role-only first chunk of a chat stream, the
// usage-only last one (choices empty), llama-server's chunk with finish_reason, usage and
// timings but no text.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "remote/sse_parser.h"

namespace inferlens::remote {

struct TokenCandidate {
    std::string text;                  // as the server wrote it (llama-server trims a cut UTF-8
                                       // character from it; its bytes are in `bytes`)
    std::optional<int32_t> id;         // llama-server always; vLLM with tokensAsIds
    std::optional<std::string> bytes;  // the token's raw bytes, when the server lists them
    std::optional<double> logprob;     // natural log; absent when the server wrote null
};

struct GeneratedToken {
    TokenCandidate chosen;
    std::vector<TokenCandidate> alternatives;  // the server's top-N, most likely first
    std::optional<int64_t> textOffset;         // legacy completions: offset in the whole text
};

struct Usage {
    int64_t promptTokens = 0;
    int64_t completionTokens = 0;
};

// llama-server's "timings"; fields it did not send stay empty.
struct ServerTimings {
    std::optional<int64_t> promptTokens;     // prompt_n: prompt tokens processed (not cached)
    std::optional<double> promptMs;          // prompt_ms
    std::optional<double> promptPerSecond;   // prompt_per_second
    std::optional<int64_t> predictedTokens;  // predicted_n
    std::optional<double> predictedMs;       // predicted_ms
    std::optional<double> predictedPerSecond;
};

struct CompletionUpdate {
    std::string text;  // the text this chunk adds (the whole text for a whole response)
    std::vector<GeneratedToken> tokens;
    // Token ids listed without log-probabilities: llama-server's native "tokens", vLLM's
    // "token_ids" (return_token_ids).
    std::vector<int32_t> tokenIds;
    std::optional<std::string> finishReason;  // "stop", "length", ... once generation ended
    std::optional<Usage> usage;
    std::optional<ServerTimings> timings;
};

struct ResponseOptions {
    // The request asked vLLM for "token_id:N" tokens: read them as ids.
    bool tokensAsIds = false;
};

// Throws RemoteError: kind Protocol when the text is not JSON or not a completion answer (the
// message says which field is wrong), kind ServerReported when it is an error object.
CompletionUpdate parseCompletionUpdate(std::string_view jsonText,
                                       const ResponseOptions& options = {});

// One server-sent event of a streamed answer: nullopt for the "[DONE]" sentinel; an "error" event
// (llama-server) or a data object {"error": ...} throws RemoteError of kind ServerReported.
std::optional<CompletionUpdate> parseStreamEvent(const SseEvent& event,
                                                 const ResponseOptions& options = {});

}  // namespace inferlens::remote
