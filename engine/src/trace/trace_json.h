#pragma once
// Probe events as JSON objects: the one format shared by `inferlens-cli trace`, `generate --json`
// and the GUI's trace export. Every object has "event" naming its kind.

#include <nlohmann/json.hpp>

#include "probe.h"
#include "sampling/sampling_trace.h"
#include "tokenizer/tokenizer.h"

namespace inferlens {

nlohmann::json toJson(const TokenizationInfo& info);
nlohmann::json toJson(const SamplingTrace& trace);
nlohmann::json stepJson(const char* event, const StepEvent& step);
nlohmann::json toJson(const LayerEvent& layer);
nlohmann::json toJson(const AttentionEvent& attention);
nlohmann::json kvCacheJson(int64_t step, const KvCacheStats& stats);
nlohmann::json toJson(const FinishedEvent& finished);

}  // namespace inferlens
