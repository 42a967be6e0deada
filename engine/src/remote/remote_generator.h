#pragma once
// The generation source for a model that a server runs (llama-server, vLLM, SGLang, any
// OpenAI-compatible API), beside the local Generator: it sends the conversation or the prompt,
// reads the streamed answer and tells the same probes what it can know from there —
//
//   tokenization   the server's own tokenizer (/tokenize; for a chat, the prompt llama-server's
//                  /apply-template renders), when the server has one;
//   steps          the outer loop from the tokens' arrival times: step 0 ends with the first
//                  token (time to first token: the server's prefill and its first choice), each
//                  later step with the next token (inter-token latency);
//   sampling       a SamplingTrace per token from the top-N log-probabilities (server_trace.h);
//   finished       why the server stopped, or a cancel.
//
// Layers, attention, hidden states and the KV cache stay on the server: no such events come.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "generation_control.h"
#include "probe.h"
#include "remote/http_client.h"
#include "remote/openai_request.h"
#include "remote/openai_response.h"
#include "remote/server_api.h"
#include "sampling/sampling_params.h"
#include "tokenizer/tokenizer.h"

namespace inferlens::remote {

// A server found and a model on it chosen. Throws RemoteError when the server cannot be reached or
// refuses the key, and when it serves no model named `model` (the message lists those it serves);
// an empty `model` takes the first one it lists.
class RemoteConnection {
  public:
    RemoteConnection(HttpOptions options, const std::string& model);

    const HttpClient& client() const { return client_; }
    const ServerInfo& info() const { return info_; }
    ServerFlavour flavour() const { return info_.flavour.flavour; }
    const std::string& model() const { return model_; }
    // The context one request may use, when the server says (ServerInfo::contextLength).
    std::optional<int64_t> contextLength() const { return info_.contextLength; }
    // Whether /tokenize is there (not on a plain OpenAI server).
    bool hasTokenizer() const { return flavour() != ServerFlavour::GenericOpenAi; }

    // `text` through the server's tokenizer as TokenizationInfo (ids, pieces and the byte span of
    // each in `text`); nullopt when the server has no tokenizer. Throws RemoteError on failure.
    std::optional<TokenizationInfo> tokenize(const std::string& text, bool addSpecial) const;
    // The prompt a chat renders to in the server's template: llama-server's /apply-template;
    // nullopt for the others, which do not expose it.
    std::optional<std::string> renderChat(const std::vector<ChatMessage>& messages) const;

  private:
    HttpClient client_;
    ServerInfo info_;
    std::string model_;
};

struct RemoteSettings {
    SamplingParams sampling;  // what the API carries of it is sent (settingsNotCarried)
    int64_t maxTokens = 256;
    std::vector<std::string> stop;
    bool stream = true;
    // chat(): the last message is the assistant's answer so far, which the server continues (a
    // branch from a prefix). A plain OpenAI server cannot: chat() throws RemoteError then.
    bool continueAnswer = false;
};

struct RemoteGeneration {
    std::string text;
    std::vector<GeneratedToken> tokens;
    FinishReason reason = FinishReason::MaxTokens;
    std::optional<Usage> usage;
    std::optional<ServerTimings> timings;
    int64_t promptTokens = 0;  // the server's count (usage), else the tokenization's, else 0
    // Seconds from sending the request to the first token, and between each token and the next
    // (one entry per token after the first). A token of a chunk that carried several arrives with
    // the chunk: inter-token time 0.
    double firstTokenSeconds = 0;
    std::vector<double> interTokenSeconds;
};

// The SamplingParams fields the request to `flavour` cannot carry (the others are sent), for
// messages and for greying out controls: "banned texts", "minimum new tokens", "grammar", ...
std::vector<std::string> samplingNotCarried(ServerFlavour flavour, const SamplingParams& params);

class RemoteGenerator {
  public:
    // `probes` and `control` are optional and must outlive the generator; a cancel closes the
    // request within a few tens of milliseconds.
    explicit RemoteGenerator(const RemoteConnection& connection, ProbeSet* probes = nullptr,
                             GenerationControl* control = nullptr);

    // Called with the answer's text as it arrives, in the pieces the server sends (whole UTF-8
    // characters): for printing while the answer streams.
    void onText(std::function<void(std::string_view)> sink) { textSink_ = std::move(sink); }

    // /v1/chat/completions: the server applies its chat template.
    RemoteGeneration chat(const std::vector<ChatMessage>& messages, const RemoteSettings& settings);
    // /v1/completions: `prompt` continued as it is.
    RemoteGeneration complete(const std::string& prompt, const RemoteSettings& settings);

  private:
    RemoteGeneration run(std::string_view path, const nlohmann::json& body,
                         const std::optional<TokenizationInfo>& prompt,
                         const RemoteSettings& settings);

    const RemoteConnection& connection_;
    ProbeSet noProbes_;
    ProbeSet* probes_;
    GenerationControl* control_;
    std::function<void(std::string_view)> textSink_;
};

}  // namespace inferlens::remote
