#pragma once
// What a model will need in memory before it is loaded, and what the machine has free, so that the
// app and the CLI can say "this needs 13.2 GB, 9.8 GB are free" instead of swapping or failing
// half-way.

#include <cstdint>
#include <functional>
#include <optional>

#include "backend/cpu/kv_rows.h"
#include "models/model_files.h"

namespace inferlens {

struct MemoryEstimate {
    int64_t weightBytes = 0;   // every tensor, as stored (the files are mapped, not converted)
    int64_t kvCacheBytes = 0;  // the KV cache at full context
    int64_t workBytes = 0;     // activations and logits of one step
    int64_t contextSize = 0;
    int64_t total() const { return weightBytes + kvCacheBytes + workBytes; }
};

// For `contextSize` tokens (resolveContextSize's value) in a `kvType` cache and prompts of up to
// `promptTokens`.
MemoryEstimate estimateMemory(const ModelConfig& config, int64_t weightBytes, int64_t contextSize,
                              int64_t promptTokens = 512, KvType kvType = KvType::F32);

// Memory the system can give without swapping (Linux: MemAvailable of /proc/meminfo); nullopt
// where unknown.
std::optional<int64_t> availableMemoryBytes();

// "13.20 GB": how the refusals below write sizes.
std::string gigabytesText(int64_t bytes);

// Throws Error naming `path` and the numbers when `estimate` needs more than `availableBytes`
// (nothing when that is unknown): "… needs 13.2 GB (weights 12.5 GB, KV cache 0.5 GB for 4096
// tokens, work 0.2 GB) but only 9.8 GB of memory are free".
void requireMemory(const MemoryEstimate& estimate, std::optional<int64_t> availableBytes,
                   const std::string& path);

// Brings every weight into memory by reading one byte per page, in file order, so that the first
// generation does not stall on disk reads and loading shows real progress. `progress(done, total)`
// (bytes) is called every few megabytes; returning false cancels, and prefetchWeights returns
// false.
bool prefetchWeights(const ModelFiles& files,
                     const std::function<bool(int64_t done, int64_t total)>& progress);

}  // namespace inferlens
