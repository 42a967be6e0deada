#pragma once
// A server's report of one generated token (its own log-probability and the top-N alternatives)
// as the SamplingTrace the sampling panel and the trace file read, marked as server-reported
// (SamplingTrace::server): what the API tells, and no more.

#include "remote/openai_response.h"
#include "sampling/sampling_trace.h"

namespace inferlens::remote {

// `params`: the settings the request carried. The candidates are the alternatives in the server's
// order (most likely first); the chosen token's rank is its place among them, or their number
// when the server chose a token outside its own top-N (possible when sampling).
SamplingTrace traceFromServer(const GeneratedToken& token, const SamplingParams& params);

}  // namespace inferlens::remote
