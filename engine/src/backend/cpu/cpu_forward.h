#pragma once
// The forward pass on the CPU: the model's own layer code (models/model.h) with the KV cache in
// host memory and the products split across a thread pool.

#include <vector>

#include "backend/cpu/thread_pool.h"
#include "backend/forward_backend.h"

namespace inferlens {

class CpuForward final : public ForwardBackend {
  public:
    // `threads`: 0 gives one per hardware thread. `model` must outlive the backend.
    CpuForward(const Model& model, int64_t contextSize, int threads);

    const ModelConfig& config() const override { return model_.config(); }
    std::string deviceName() const override;
    int threadCount() const override { return pool_.size(); }
    int64_t contextSize() const override { return cache_.capacity(); }
    int64_t cachedTokens() const override { return cache_.size(); }

    void beginStep(std::span<const int32_t> tokens, int64_t firstPosition) override;
    void runLayer(int64_t layer, AttentionRecorder* recorder) override;
    std::span<const float> lastHidden() override;
    void finishStep(std::span<float> logits, int64_t rows) override;

    void clearCache() override { cache_.clear(); }
    KvCacheStats cacheStats() const override { return cache_.stats(); }

  private:
    const Model& model_;
    KvCache cache_;
    ThreadPool pool_;
    ForwardScratch scratch_;
    std::vector<float> residual_;  // [tokens, H]: the residual streams of the step's tokens
    int64_t firstPosition_ = 0;
};

}  // namespace inferlens
