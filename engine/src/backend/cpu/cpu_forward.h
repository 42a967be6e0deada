#pragma once
// The forward pass on the CPU: the model's own layer code (models/model.h) with the KV cache in
// host memory and the products split across a thread pool.

#include <vector>

#include "backend/cpu/thread_pool.h"
#include "backend/forward_backend.h"

namespace inferlens {

class CpuForward final : public ForwardBackend {
  public:
    // `threads`: 0 gives one per hardware thread. `model` must outlive the backend. `attention`:
    // the kernel for the attention output (attention probes get its weights either way).
    CpuForward(const Model& model, int64_t contextSize, int threads,
               AttentionKernel attention = AttentionKernel::Fused,
               KvCacheOptions cacheOptions = {});

    const ModelConfig& config() const override { return model_.config(); }
    std::string deviceName() const override;
    void setAttentionKernel(AttentionKernel kernel) override { scratch_.attention = kernel; }
    int threadCount() const override { return pool_.size(); }
    int64_t contextSize() const override { return cache().capacity(); }
    int64_t cachedTokens() const override { return cache().nextPosition(); }
    int64_t slidingWindow() const override {
        return cache().options().slides ? cache().window() : 0;
    }

    void beginStep(std::span<const int32_t> tokens, int64_t firstPosition) override;
    void runLayer(int64_t layer, AttentionRecorder* recorder) override;
    std::span<const float> lastHidden() override;
    void finishStep(std::span<float> logits, int64_t rows) override;

    void clearCache() override { cache().clear(); }
    int64_t truncateCache(int64_t tokens) override { return cache().truncate(tokens); }
    KvCacheStats cacheStats() const override { return cache().stats(); }

    void setCacheSlots(int count) override;
    int cacheSlots() const override { return int(caches_.size()); }
    void useCacheSlot(int slot) override;
    void copyCacheSlot(int from, int to) override;
    int64_t otherSlotsBytes() const override;

  private:
    KvCache& cache() { return caches_[size_t(slot_)]; }
    const KvCache& cache() const { return caches_[size_t(slot_)]; }
    void checkSlot(int slot) const;

    const Model& model_;
    std::vector<KvCache> caches_;  // one per sequence kept; slot_ is in use
    int slot_ = 0;
    ThreadPool pool_;
    ForwardScratch scratch_;
    std::vector<float> residual_;  // [tokens, H]: the residual streams of the step's tokens
    int64_t firstPosition_ = 0;
};

}  // namespace inferlens
