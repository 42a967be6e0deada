#pragma once
// The requests that find out what a server is and use its tokenizer, over an HttpClient.
// Generation itself (the streamed requests) is built from openai_request.h, http_client.h,
// sse_parser.h and openai_response.h by the generation source.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "remote/http_client.h"
#include "remote/server_info.h"

namespace inferlens::remote {

struct ServerInfo {
    FlavourGuess flavour;
    std::vector<ModelCard> models;
    std::optional<LlamaServerProps> llamaServerProps;
    // The context one request may use: llama-server's n_ctx per slot (/props, or the model card's
    // meta.n_ctx), else the first model's max_model_len (vLLM, SGLang); unknown for a plain
    // OpenAI server.
    std::optional<int64_t> contextLength;
};

// GET /v1/models, then, unless owned_by already names the server, GET /props and
// GET /get_model_info to tell the server apart (see guessFlavour); llama-server's /props is read
// in any case for its context length. Endpoints that answer 4xx/5xx or not JSON count as absent;
// failing to reach the server or a refused key throw RemoteError.
ServerInfo probeServer(const HttpClient& client);

// The server's tokenizer (POST /tokenize). Throws RemoteError for a plain OpenAI server, which has
// none, and for failures.
Tokenization tokenizeOnServer(const HttpClient& client, ServerFlavour flavour,
                              const std::string& model, const std::string& text,
                              bool addSpecialTokens);
std::string detokenizeOnServer(const HttpClient& client, ServerFlavour flavour,
                               const std::string& model, const std::vector<int32_t>& ids);

}  // namespace inferlens::remote
