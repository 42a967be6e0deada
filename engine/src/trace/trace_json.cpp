#include "trace/trace_json.h"

#include <cmath>

namespace inferlens {

nlohmann::json toJson(const TokenizationInfo& info) {
    nlohmann::json tokens = nlohmann::json::array();
    for (const TokenInfo& token : info.tokens)
        tokens.push_back({{"id", token.id},
                          {"piece", token.piece},
                          {"begin", token.begin},
                          {"end", token.end},
                          {"special", token.special},
                          {"byte_fallback", token.byteFallback}});
    return {{"event", "tokenized"}, {"text", info.text}, {"tokens", tokens}};
}

nlohmann::json toJson(const SamplingTrace& trace) {
    nlohmann::json candidates = nlohmann::json::array();
    for (const TraceCandidate& candidate : trace.candidates) {
        nlohmann::json probabilities = nlohmann::json::object();
        for (size_t stage = 0; stage < kSamplingStageCount; ++stage)
            probabilities[samplingStageName(SamplingStage(stage))] = candidate.probability[stage];
        candidates.push_back(
            {{"id", candidate.id},
             {"logit", candidate.rawLogit},
             {"penalised_logit", candidate.penalisedLogit},
             {"probability", probabilities},
             {"cut_by", candidate.cutBy ? nlohmann::json(samplingStageName(*candidate.cutBy))
                                        : nlohmann::json(nullptr)}});
    }
    nlohmann::json kept = nlohmann::json::object(), entropy = nlohmann::json::object();
    for (size_t stage = 0; stage < kSamplingStageCount; ++stage) {
        kept[samplingStageName(SamplingStage(stage))] = trace.kept[stage];
        entropy[samplingStageName(SamplingStage(stage))] = trace.entropy[stage];
    }
    nlohmann::json masked = nlohmann::json::array();
    for (const MaskedCandidate& m : trace.masked)
        masked.push_back(
            {{"id", m.id}, {"logit", m.rawLogit}, {"masked_by", samplingStageName(m.maskedBy)}});
    const SamplingParams& p = trace.params;
    nlohmann::json bias = nlohmann::json::array();
    for (const auto& [id, value] : p.logitBias)  // ±inf as strings: JSON has no infinities
        bias.push_back({id, std::isinf(value) ? nlohmann::json(value > 0 ? "+inf" : "-inf")
                                              : nlohmann::json(value)});
    nlohmann::json json{{"params",
                         {{"temperature", p.temperature},
                          {"top_k", p.topK},
                          {"top_p", p.topP},
                          {"min_p", p.minP},
                          {"repetition_penalty", p.repetitionPenalty},
                          {"frequency_penalty", p.frequencyPenalty},
                          {"presence_penalty", p.presencePenalty},
                          {"penalty_last_n", p.penaltyLastN},
                          {"logit_bias", bias},
                          {"banned_texts", p.bannedTexts},
                          {"min_new_tokens", p.minNewTokens},
                          {"seed", p.seed}}},
                        {"candidates", candidates},
                        {"masked", masked},
                        {"kept", kept},
                        {"entropy", entropy},
                        {"nucleus_mass", trace.nucleusMass},
                        {"nucleus_kept", trace.nucleusKept},
                        {"chosen_id", trace.chosenId},
                        {"chosen_rank", trace.chosenRank},
                        {"chosen_probability", trace.chosenProbability},
                        {"draw", trace.draw},
                        {"greedy", trace.greedy}};
    if (trace.server)
        json["server"] = {{"known_mass", trace.server->knownMass},
                          {"texts", trace.server->texts},
                          {"chosen_text", trace.server->chosenText}};
    return json;
}

nlohmann::json stepJson(const char* event, const StepEvent& step) {
    nlohmann::json json{{"event", event},
                        {"step", step.index},
                        {"phase", step.phase == StepPhase::Prefill ? "prefill" : "decode"},
                        {"first_position", step.firstPosition},
                        {"tokens", step.tokenCount}};
    if (std::string_view(event) == "step_end")
        json["seconds"] = step.seconds;
    return json;
}

nlohmann::json toJson(const LayerEvent& layer) {
    return {{"event", "layer_end"},
            {"step", layer.step},
            {"layer", layer.layer},
            {"seconds", layer.seconds}};
}

nlohmann::json toJson(const AttentionEvent& attention) {
    // Rows without the masked zeros: row i has firstQuery + i + 1 weights.
    nlohmann::json rows = nlohmann::json::array();
    for (int64_t row = 0; row < attention.queryCount; ++row) {
        const auto begin = attention.weights.begin() + row * attention.keyCount;
        rows.push_back(std::vector<float>(begin, begin + attention.firstQuery + row + 1));
    }
    nlohmann::json event{{"event", "attention"},
                         {"step", attention.step},
                         {"layer", attention.layer},
                         {"head", attention.head},
                         {"first_query", attention.firstQuery},
                         {"weights", rows}};
    if (attention.windowTokens > 0) {  // a sliding cache's window
        event["sink_tokens"] = attention.sinkTokens;
        event["window_tokens"] = attention.windowTokens;
    }
    if (attention.layerWindowTokens > 0)  // a local layer's own window (Gemma 3)
        event["layer_window_tokens"] = attention.layerWindowTokens;
    return event;
}

nlohmann::json kvCacheJson(int64_t step, const KvCacheStats& stats) {
    nlohmann::json event{{"event", "kv_cache"},
                         {"step", step},
                         {"tokens", stats.tokens},
                         {"capacity", stats.capacity},
                         {"bytes_used", stats.bytesUsed},
                         {"bytes_allocated", stats.bytesAllocated},
                         {"bytes_used_per_layer", stats.bytesUsedPerLayer},
                         {"bytes_allocated_per_layer", stats.bytesAllocatedPerLayer},
                         {"bytes_used_full_multi_head", stats.bytesUsedFullMultiHead},
                         {"kv_type", kvTypeName(stats.type)},
                         {"bytes_used_as_f32", stats.bytesUsedAsF32}};
    if (stats.slides) {
        event["sink_tokens"] = stats.sinkTokens;
        event["evicted_tokens"] = stats.evictedTokens;
    }
    return event;
}

nlohmann::json toJson(const FinishedEvent& finished) {
    return {{"event", "finished"},
            {"reason", finishReasonName(finished.reason)},
            {"generated_tokens", finished.generatedTokens}};
}

}  // namespace inferlens
