#pragma once
// What a server says about itself and its tokenizer, parsed from its answers (no HTTP here; see
// server_api.h for the requests):
//   GET  /v1/models       every server: model ids; vLLM and SGLang add max_model_len, llama-server
//                         a "meta" object with n_ctx_train and n_vocab, and owned_by names the
//                         server ("llamacpp", "vllm", "sglang")
//   GET  /props           llama-server: the context per slot, model path, chat template
//   GET  /get_model_info  SGLang (later versions also /model_info): model and tokenizer paths
//   POST /tokenize        llama-server {content, add_special, with_pieces} -> {tokens: [{id,
//                         piece}]}; vLLM and SGLang {model, prompt, add_special_tokens} ->
//                         {tokens: [ids], count, max_model_len}
//   POST /detokenize      llama-server {tokens} -> {content}; vLLM {model, tokens} -> {prompt};
//                         SGLang -> {text}

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "remote/server_flavour.h"

namespace inferlens::remote {

struct ModelCard {
    std::string id;
    std::string ownedBy;
    std::optional<int64_t> maxModelLength;        // vLLM, SGLang: the context it serves
    std::optional<int64_t> slotContextLength;     // llama-server (later than b4747) meta.n_ctx
    std::optional<int64_t> trainedContextLength;  // llama-server meta.n_ctx_train
    std::optional<int64_t> vocabularySize;        // llama-server meta.n_vocab
};

std::vector<ModelCard> parseModelList(std::string_view jsonText);

struct LlamaServerProps {
    std::optional<int64_t> contextLength;  // default_generation_settings.n_ctx: per slot
    std::optional<int64_t> totalSlots;
    std::string modelPath;
    std::string chatTemplate;
    std::string buildInfo;
};

LlamaServerProps parseLlamaServerProps(std::string_view jsonText);

struct Tokenization {
    std::vector<int32_t> ids;
    // Each token's bytes, when the server gave pieces (llama-server with_pieces: text, or a list
    // of bytes for a piece that is not whole UTF-8); otherwise empty.
    std::vector<std::string> pieces;
    std::optional<int64_t> maxModelLength;  // vLLM, SGLang
};

// The /tokenize request body for `flavour`; nullopt for a plain OpenAI server, which has none.
std::optional<nlohmann::json> tokenizeBody(ServerFlavour flavour, const std::string& model,
                                           const std::string& text, bool addSpecialTokens);
Tokenization parseTokenizeAnswer(std::string_view jsonText);

std::optional<nlohmann::json> detokenizeBody(ServerFlavour flavour, const std::string& model,
                                             const std::vector<int32_t>& ids);
std::string parseDetokenizeAnswer(std::string_view jsonText);

// What the server told us, for guessFlavour.
struct FlavourEvidence {
    std::vector<ModelCard> models;
    bool answersLlamaServerProps = false;  // GET /props gave default_generation_settings
    bool answersSglangModelInfo = false;   // GET /get_model_info or /model_info gave model_path
};

struct FlavourGuess {
    ServerFlavour flavour = ServerFlavour::GenericOpenAi;
    std::string reason;  // for the person, e.g. "/v1/models says owned_by \"vllm\""
};

// A guess, not a certainty: owned_by of the first model card is trusted first (each server writes
// its own name there by default: "llamacpp", "vllm", "sglang"), then the endpoints only one
// server has (/props for llama-server, /get_model_info for SGLang), then a max_model_len in the
// model card (vLLM and SGLang write it; with SGLang ruled out, vLLM). A proxy in front (LiteLLM,
// a gateway) can hide all of these, and the answer is then GenericOpenAi.
FlavourGuess guessFlavour(const FlavourEvidence& evidence);

}  // namespace inferlens::remote
