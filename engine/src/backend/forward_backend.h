#pragma once
// Where a generator's forward passes run: the CPU (backend/cpu/cpu_forward.h) or an NVIDIA GPU
// (backend/cuda/cuda_backend.h). A backend owns what one step works on — the residual streams of
// the step's tokens, the KV cache, the intermediate activations — so the generator's double loop
// (generator.h) is the same on every device: begin a step, run each layer, finish with the logits.

#include <cstdint>
#include <span>
#include <string>

#include "kv_cache.h"
#include "models/model.h"

namespace inferlens {

class ForwardBackend {
  public:
    virtual ~ForwardBackend() = default;

    virtual const ModelConfig& config() const = 0;
    // "CPU (4 threads)", "cuda:0 (NVIDIA H200)": what the user is told runs the model.
    virtual std::string deviceName() const = 0;
    virtual int threadCount() const = 0;      // CPU threads of the products
    virtual int64_t contextSize() const = 0;  // tokens the KV cache holds at most
    // The positions run so far that the cache holds or, sliding, has evicted: where the next step
    // starts.
    virtual int64_t cachedTokens() const = 0;
    // 0: the cache refuses tokens past contextSize(). W > 0: it slides (kv_cache.h), keeping its
    // sink tokens and the last W, so that a sequence grows without bound in steps of at most W.
    virtual int64_t slidingWindow() const { return 0; }

    // Embeds `tokens` as the residual streams of positions firstPosition .. firstPosition +
    // count − 1 (firstPosition == cachedTokens()) and reserves their K/V rows. Throws Error for an
    // id outside the vocabulary or tokens that do not fit.
    virtual void beginStep(std::span<const int32_t> tokens, int64_t firstPosition) = 0;
    // One decoder layer over the step's tokens; their K/V rows of this layer go to the cache. The
    // recorder, if any, receives the attention weights of the heads it wants before this returns.
    virtual void runLayer(int64_t layer, AttentionRecorder* recorder) = 0;
    // Waits until the device has done the work enqueued so far. A GPU runs asynchronously, so the
    // time of a layer is only known once it has finished; the generator asks only when a probe
    // wants layer timings.
    virtual void synchronize() {}
    // The residual stream of the step's last token after the layers run so far.
    virtual std::span<const float> lastHidden() = 0;
    // Commits the step's K/V rows and writes the logits of its last `rows` tokens (row-major). A
    // step that is begun but never finished leaves the cache as it was.
    virtual void finishStep(std::span<float> logits, int64_t rows) = 0;

    virtual void clearCache() = 0;
    // Keeps the K/V rows of the first `tokens` positions only (tokens ≤ cachedTokens()): the next
    // step starts after them. Throws Error otherwise. Returns the positions kept: `tokens`, or 0
    // where a sliding cache has evicted some of them.
    virtual int64_t truncateCache(int64_t tokens) = 0;
    virtual KvCacheStats cacheStats() const = 0;

    // The kernel of the CPU's attention, for the steps that start from now on. A GPU backend has
    // kernels of its own and keeps them.
    virtual void setAttentionKernel(AttentionKernel kernel) { (void)kernel; }

    // Several sequences side by side (beam search): the backend keeps `count` KV caches ("slots"),
    // steps run on the one in use, and a slot can be copied onto another (a beam forking). Slot 0
    // is the cache above; resizing keeps it. Throws Error where the backend keeps only one.
    virtual void setCacheSlots(int count);
    virtual int cacheSlots() const { return 1; }
    virtual void useCacheSlot(int slot);
    virtual void copyCacheSlot(int from, int to);
    // Bytes allocated by the slots other than the one in use (what the extra sequences cost).
    virtual int64_t otherSlotsBytes() const { return 0; }
};

}  // namespace inferlens
