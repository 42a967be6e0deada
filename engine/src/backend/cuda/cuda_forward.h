#pragma once
// The forward pass on one NVIDIA GPU. The weights, the KV cache (f32, allocated for the whole
// context so that pointers never move) and every activation stay on the device; the host sends a
// step's token ids and first position, and receives the logits and whatever the probes asked for.
//
// A prefill runs each layer over chunks of the step's tokens with cuBLAS products; a decode step
// replays one CUDA graph per layer, captured at the first decode (positions are read from device
// memory, so one graph serves every position). Attention always leaves its softmax weights in a
// device buffer; when a probe wants some heads of a layer, only those rows are copied into pinned
// host memory and the host waits for that copy alone, once per layer.

#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend/cuda/device_memory.h"
#include "backend/cuda/device_products.h"
#include "backend/cuda/device_weights.h"
#include "backend/forward_backend.h"

namespace inferlens::cuda {

class CudaForward final : public ForwardBackend {
  public:
    // Tokens per chunk of a prefill's layer (bounds the activation buffers).
    static constexpr int64_t kChunkTokens = 512;

    // The weights come from `makeWeights`, called on the device once the memory check (which
    // uses `plan`) has passed.
    CudaForward(const ModelConfig& config, int deviceIndex, int64_t contextSize,
                const WeightPlan& plan, const std::function<DeviceWeights()>& makeWeights);
    ~CudaForward() override;

    const ModelConfig& config() const override { return config_; }
    std::string deviceName() const override { return deviceName_; }
    int threadCount() const override { return 1; }
    int64_t contextSize() const override { return capacity_; }
    int64_t cachedTokens() const override { return size_; }

    void beginStep(std::span<const int32_t> tokens, int64_t firstPosition) override;
    void runLayer(int64_t layer, AttentionRecorder* recorder) override;
    void synchronize() override;
    std::span<const float> lastHidden() override;
    void finishStep(std::span<float> logits, int64_t rows) override;

    void clearCache() override { size_ = 0; }
    int64_t truncateCache(int64_t tokens) override;
    KvCacheStats cacheStats() const override;

  private:
    struct Work;  // the activation buffers

    void enqueueLayer(int64_t layer, int64_t tokenOffset, int64_t count, bool copyProbabilities);
    void replayDecodeLayer(int64_t layer);
    void copyWantedProbabilities(int64_t tokenOffset, int64_t count);

    ModelConfig config_;
    int device_;
    std::string deviceName_;
    int64_t capacity_;
    int64_t size_ = 0;
    int64_t stepFirst_ = 0, stepCount_ = 0;
    int64_t attentionChunk_ = 1;  // queries per attention launch (bounds the probability buffer)
    bool useGraphs_ = true;
    struct StreamDeleter {
        void operator()(cudaStream_t stream) const;
    };
    std::unique_ptr<CUstream_st, StreamDeleter> streamOwner_;
    cudaStream_t stream_ = nullptr;
    DeviceWeights weights_;
    DeviceArena workArena_;
    std::unique_ptr<Work> work_;
    std::unique_ptr<DeviceProducts> products_;
    std::vector<cudaGraphExec_t> decodeGraphs_;  // per layer, null until captured
    PinnedBuffer pinnedInput_, pinnedHidden_, pinnedProbabilities_;
    std::vector<int64_t> wantedHeads_;  // of the layer being run
};

// Throws Error unless `deviceIndex` names a GPU of this machine; returns its description.
std::string describeDevice(int deviceIndex);

}  // namespace inferlens::cuda
