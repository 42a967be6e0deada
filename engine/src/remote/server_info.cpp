#include "remote/server_info.h"

#include "remote/json_fields.h"

namespace inferlens::remote {

namespace {

using nlohmann::json;

json answerObject(std::string_view text, const std::string& what) {
    json document = parseAnswerJson(text, what);
    if (!document.is_object())
        throwMalformedAnswer(what, "is not a JSON object");
    return document;
}

std::string indexed(const std::string& where, size_t index) {
    return where + "[" + std::to_string(index) + "]";
}

}  // namespace

std::vector<ModelCard> parseModelList(std::string_view jsonText) {
    const json document = answerObject(jsonText, "the answer to GET /v1/models");
    const json* data = arrayField(document, "data", "models");
    if (data == nullptr)
        throwMalformedAnswer("the answer to GET /v1/models", "has no \"data\" list");
    std::vector<ModelCard> models;
    for (size_t i = 0; i < data->size(); ++i) {
        const json& card = (*data)[i];
        const std::string where = indexed("data", i);
        if (!card.is_object())
            throwMalformedAnswer(where, "is not an object");
        ModelCard model;
        const auto id = stringField(card, "id", where);
        if (!id)
            throwMalformedAnswer(where, "has no \"id\"");
        model.id = *id;
        model.ownedBy = stringField(card, "owned_by", where).value_or("");
        model.maxModelLength = integerField(card, "max_model_len", where);
        if (const json* meta = objectField(card, "meta", where)) {
            model.slotContextLength = integerField(*meta, "n_ctx", where + ".meta");
            model.trainedContextLength = integerField(*meta, "n_ctx_train", where + ".meta");
            model.vocabularySize = integerField(*meta, "n_vocab", where + ".meta");
        }
        models.push_back(std::move(model));
    }
    return models;
}

LlamaServerProps parseLlamaServerProps(std::string_view jsonText) {
    const json document = answerObject(jsonText, "the answer to GET /props");
    LlamaServerProps props;
    if (const json* settings = objectField(document, "default_generation_settings", "props"))
        props.contextLength = integerField(*settings, "n_ctx", "default_generation_settings");
    props.totalSlots = integerField(document, "total_slots", "props");
    props.modelPath = stringField(document, "model_path", "props").value_or("");
    props.chatTemplate = stringField(document, "chat_template", "props").value_or("");
    props.buildInfo = stringField(document, "build_info", "props").value_or("");
    return props;
}

std::optional<json> tokenizeBody(ServerFlavour flavour, const std::string& model,
                                 const std::string& text, bool addSpecialTokens) {
    switch (flavour) {
        case ServerFlavour::LlamaServer:
            return json{
                {"content", text}, {"add_special", addSpecialTokens}, {"with_pieces", true}};
        case ServerFlavour::Vllm:
        case ServerFlavour::Sglang:
            return json{
                {"model", model}, {"prompt", text}, {"add_special_tokens", addSpecialTokens}};
        case ServerFlavour::GenericOpenAi:
            return std::nullopt;
    }
    return std::nullopt;
}

Tokenization parseTokenizeAnswer(std::string_view jsonText) {
    const json document = answerObject(jsonText, "the answer to POST /tokenize");
    const json* tokens = arrayField(document, "tokens", "tokenize");
    if (tokens == nullptr)
        throwMalformedAnswer("the answer to POST /tokenize", "has no \"tokens\" list");
    Tokenization result;
    result.maxModelLength = integerField(document, "max_model_len", "tokenize");
    for (size_t i = 0; i < tokens->size(); ++i) {
        const json& token = (*tokens)[i];
        const std::string where = indexed("tokens", i);
        if (!token.is_object()) {
            result.ids.push_back(int32_t(integerValue(token, where)));
            continue;
        }
        // llama-server with_pieces: {"id": 123, "piece": "Hello"} or {"id": 198, "piece": [195]}
        const auto id = integerField(token, "id", where);
        if (!id)
            throwMalformedAnswer(where, "has no \"id\"");
        result.ids.push_back(int32_t(*id));
        const auto piece = token.find("piece");
        if (piece == token.end())
            continue;
        if (piece->is_string()) {
            result.pieces.push_back(piece->get<std::string>());
        } else if (piece->is_array()) {
            std::string bytes;
            for (size_t k = 0; k < piece->size(); ++k) {
                const int64_t value = integerValue((*piece)[k], indexed(where + ".piece", k));
                if (value < 0 || value > 255)
                    throwMalformedAnswer(indexed(where + ".piece", k), "is not a byte");
                bytes.push_back(char(value));
            }
            result.pieces.push_back(std::move(bytes));
        } else {
            throwMalformedAnswer(where + ".piece", "is neither text nor a list of bytes");
        }
    }
    if (!result.pieces.empty() && result.pieces.size() != result.ids.size())
        throwMalformedAnswer("the answer to POST /tokenize", "gives pieces for only some tokens");
    return result;
}

std::optional<json> detokenizeBody(ServerFlavour flavour, const std::string& model,
                                   const std::vector<int32_t>& ids) {
    switch (flavour) {
        case ServerFlavour::LlamaServer:
            return json{{"tokens", ids}};
        case ServerFlavour::Vllm:
        case ServerFlavour::Sglang:
            return json{{"model", model}, {"tokens", ids}};
        case ServerFlavour::GenericOpenAi:
            return std::nullopt;
    }
    return std::nullopt;
}

std::string parseDetokenizeAnswer(std::string_view jsonText) {
    const json document = answerObject(jsonText, "the answer to POST /detokenize");
    for (const char* key : {"content", "prompt", "text"})
        if (auto text = stringField(document, key, "detokenize"))
            return *text;
    throwMalformedAnswer("the answer to POST /detokenize", "has no text");
}

FlavourGuess guessFlavour(const FlavourEvidence& evidence) {
    const std::string ownedBy = evidence.models.empty() ? "" : evidence.models.front().ownedBy;
    if (ownedBy == "llamacpp")
        return {ServerFlavour::LlamaServer, "/v1/models says owned_by \"llamacpp\""};
    if (ownedBy == "vllm")
        return {ServerFlavour::Vllm, "/v1/models says owned_by \"vllm\""};
    if (ownedBy == "sglang")
        return {ServerFlavour::Sglang, "/v1/models says owned_by \"sglang\""};
    if (evidence.answersLlamaServerProps)
        return {ServerFlavour::LlamaServer, "it answers llama-server's GET /props"};
    if (evidence.answersSglangModelInfo)
        return {ServerFlavour::Sglang, "it answers SGLang's GET /get_model_info"};
    if (!evidence.models.empty() && evidence.models.front().maxModelLength)
        return {ServerFlavour::Vllm, "its model card has vLLM's max_model_len"};
    return {ServerFlavour::GenericOpenAi, "it shows nothing of llama-server, vLLM or SGLang"};
}

}  // namespace inferlens::remote
