#include "remote/openai_request.h"

namespace inferlens::remote {

namespace {

using nlohmann::json;

bool acceptsTopKAndMinP(ServerFlavour flavour) {
    return flavour != ServerFlavour::GenericOpenAi;
}

const char* repetitionPenaltyName(ServerFlavour flavour) {
    switch (flavour) {
        case ServerFlavour::LlamaServer:
            return "repeat_penalty";
        case ServerFlavour::Vllm:
        case ServerFlavour::Sglang:
            return "repetition_penalty";
        case ServerFlavour::GenericOpenAi:
            return nullptr;
    }
    return nullptr;
}

json logitBiasField(ServerFlavour flavour, const std::vector<std::pair<int32_t, double>>& bias) {
    if (flavour == ServerFlavour::LlamaServer) {
        json pairs = json::array();
        for (const auto& [id, value] : bias)
            pairs.push_back(json::array({id, value}));
        return pairs;
    }
    json object = json::object();
    for (const auto& [id, value] : bias)
        object[std::to_string(id)] = value;
    return object;
}

template <typename T>
void setIfPresent(json& body, const char* name, const std::optional<T>& value) {
    if (value)
        body[name] = *value;
}

// The settings both endpoints share.
json commonFields(ServerFlavour flavour, const GenerationRequest& request) {
    json body = json::object();
    if (!request.model.empty())
        body["model"] = request.model;
    body["stream"] = request.stream;
    if (request.stream)
        body["stream_options"] = {{"include_usage", true}};
    setIfPresent(body, "max_tokens", request.maxTokens);
    setIfPresent(body, "temperature", request.temperature);
    setIfPresent(body, "top_p", request.topP);
    if (acceptsTopKAndMinP(flavour)) {
        setIfPresent(body, "top_k", request.topK);
        setIfPresent(body, "min_p", request.minP);
    }
    setIfPresent(body, "presence_penalty", request.presencePenalty);
    setIfPresent(body, "frequency_penalty", request.frequencyPenalty);
    if (const char* name = repetitionPenaltyName(flavour))
        setIfPresent(body, name, request.repetitionPenalty);
    setIfPresent(body, "seed", request.seed);
    if (!request.stop.empty())
        body["stop"] = request.stop;
    if (!request.logitBias.empty())
        body["logit_bias"] = logitBiasField(flavour, request.logitBias);
    if (flavour == ServerFlavour::LlamaServer) {
        setIfPresent(body, "n_probs", request.topLogprobs);
        if (request.postSamplingProbs)
            body["post_sampling_probs"] = true;
        if (request.timingsPerToken)
            body["timings_per_token"] = true;
        setIfPresent(body, "grammar", request.grammar);
    }
    if (flavour == ServerFlavour::Vllm && request.tokensAsIds)
        body["return_tokens_as_token_ids"] = true;
    return body;
}

}  // namespace

json chatCompletionBody(ServerFlavour flavour, const GenerationRequest& request,
                        const std::vector<ChatMessage>& messages) {
    json body = commonFields(flavour, request);
    json list = json::array();
    for (const ChatMessage& message : messages)
        list.push_back({{"role", message.role}, {"content", message.content}});
    body["messages"] = std::move(list);
    if (request.continueFinalMessage &&
        (flavour == ServerFlavour::Vllm || flavour == ServerFlavour::Sglang)) {
        body["continue_final_message"] = true;
        body["add_generation_prompt"] = false;
    }
    if (request.topLogprobs) {
        body["logprobs"] = true;
        body["top_logprobs"] = *request.topLogprobs;
    }
    return body;
}

json completionBody(ServerFlavour flavour, const GenerationRequest& request,
                    const CompletionPrompt& prompt) {
    json body = commonFields(flavour, request);
    std::visit([&body](const auto& value) { body["prompt"] = value; }, prompt);
    setIfPresent(body, "logprobs", request.topLogprobs);
    return body;
}

std::vector<std::string> settingsNotCarried(ServerFlavour flavour,
                                            const GenerationRequest& request) {
    std::vector<std::string> dropped;
    if (!acceptsTopKAndMinP(flavour)) {
        if (request.topK)
            dropped.push_back("top_k");
        if (request.minP)
            dropped.push_back("min_p");
    }
    if (request.repetitionPenalty && repetitionPenaltyName(flavour) == nullptr)
        dropped.push_back("repetition_penalty");
    if (flavour != ServerFlavour::LlamaServer) {
        if (request.postSamplingProbs)
            dropped.push_back("post_sampling_probs");
        if (request.timingsPerToken)
            dropped.push_back("timings_per_token");
        if (request.grammar)
            dropped.push_back("grammar");
    }
    if (flavour == ServerFlavour::GenericOpenAi && request.continueFinalMessage)
        dropped.push_back("continue_final_message");
    if (flavour != ServerFlavour::Vllm && request.tokensAsIds)
        dropped.push_back("return_tokens_as_token_ids");
    return dropped;
}

}  // namespace inferlens::remote
