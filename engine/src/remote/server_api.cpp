#include "remote/server_api.h"

#include "remote/json_fields.h"

namespace inferlens::remote {

namespace {

// The body of GET `path`, or nullopt when the server has no such endpoint (any HTTP error status
// or an answer that is not JSON: some servers answer unknown paths with an HTML page).
std::optional<nlohmann::json> getIfAnswered(const HttpClient& client, std::string_view path) {
    try {
        const HttpResponse response = client.get(path);
        nlohmann::json document = nlohmann::json::parse(response.body, nullptr, false);
        if (!document.is_object())
            return std::nullopt;
        return document;
    } catch (const RemoteError& error) {
        if (error.kind() == RemoteErrorKind::Http || error.kind() == RemoteErrorKind::Unauthorized)
            return std::nullopt;
        throw;
    }
}

[[noreturn]] void throwNoTokenizer(ServerFlavour flavour) {
    throw RemoteError(RemoteErrorKind::Other, "a " + std::string(flavourName(flavour)) +
                                                  " server has no tokenizer endpoint");
}

}  // namespace

ServerInfo probeServer(const HttpClient& client) {
    ServerInfo info;
    FlavourEvidence evidence;
    evidence.models = parseModelList(client.get("/v1/models").body);
    FlavourGuess guess = guessFlavour(evidence);
    const bool named =
        guess.flavour != ServerFlavour::GenericOpenAi && !evidence.models.front().ownedBy.empty();
    if (!named || guess.flavour == ServerFlavour::LlamaServer) {
        if (const auto props = getIfAnswered(client, "/props");
            props && props->contains("default_generation_settings")) {
            evidence.answersLlamaServerProps = true;
            info.llamaServerProps = parseLlamaServerProps(props->dump());
        }
    }
    if (!named && !evidence.answersLlamaServerProps) {
        const auto modelInfo = getIfAnswered(client, "/get_model_info");
        evidence.answersSglangModelInfo = modelInfo && modelInfo->contains("model_path");
    }
    info.flavour = guessFlavour(evidence);
    info.models = std::move(evidence.models);
    if (info.llamaServerProps && info.llamaServerProps->contextLength)
        info.contextLength = info.llamaServerProps->contextLength;
    else if (!info.models.empty())
        info.contextLength = info.models.front().slotContextLength
                                 ? info.models.front().slotContextLength
                                 : info.models.front().maxModelLength;
    return info;
}

Tokenization tokenizeOnServer(const HttpClient& client, ServerFlavour flavour,
                              const std::string& model, const std::string& text,
                              bool addSpecialTokens) {
    const auto body = tokenizeBody(flavour, model, text, addSpecialTokens);
    if (!body)
        throwNoTokenizer(flavour);
    return parseTokenizeAnswer(client.postJson("/tokenize", body->dump()).body);
}

std::string detokenizeOnServer(const HttpClient& client, ServerFlavour flavour,
                               const std::string& model, const std::vector<int32_t>& ids) {
    const auto body = detokenizeBody(flavour, model, ids);
    if (!body)
        throwNoTokenizer(flavour);
    return parseDetokenizeAnswer(client.postJson("/detokenize", body->dump()).body);
}

}  // namespace inferlens::remote
