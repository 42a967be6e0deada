#include "backend/cuda/cuda_forward.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/kernels.h"
#include "backend/cuda_backend.h"
#include "core/error.h"
#include "models/memory_estimate.h"
#include "models/rope_frequencies.h"

namespace inferlens::cuda {
namespace {

constexpr int64_t kLogitChunk = 64;  // rows of logits computed at a time
// The attention probabilities of one launch stay under this many bytes (a 32k context with 32
// heads takes 4 MB per query, so long prefills attend in smaller groups of queries).
constexpr int64_t kProbabilityBudget = int64_t(256) << 20;
// Beyond what we allocate: the CUDA context, cuBLAS's workspace and library kernels.
constexpr int64_t kRuntimeReserve = int64_t(512) << 20;

}  // namespace

// The activation buffers of a step, and the KV cache.
struct CudaForward::Work {
    int32_t* tokenIds = nullptr;       // [capacity]
    int64_t* firstPosition = nullptr;  // [1]
    float* residual = nullptr;         // [capacity, H]: a prefill may fill the context
    float *normed = nullptr, *query = nullptr, *key = nullptr, *value = nullptr;  // [chunk, ·]
    float *attended = nullptr, *projected = nullptr, *gate = nullptr, *up = nullptr;
    float* probabilities = nullptr;              // [attention chunk, heads, capacity]
    float* logits = nullptr;                     // [kLogitChunk, vocabulary]
    double* ropeFrequencies = nullptr;           // [layers, ropeDims / 2]
    std::vector<float*> cacheKeys, cacheValues;  // per layer, [capacity, KV]

    // Sizes (take == nullptr) or places every buffer; returns the bytes.
    int64_t layout(const ModelConfig& c, int64_t capacity, int64_t chunk, int64_t attentionChunk,
                   DeviceArena* arena) {
        int64_t bytes = 0;
        const auto take = [&](auto*& pointer, int64_t count) {
            using T = std::remove_reference_t<decltype(*pointer)>;
            bytes += alignedBytes(count * int64_t(sizeof(T)));
            if (arena != nullptr)
                pointer = arena->take<T>(count);
        };
        take(tokenIds, capacity);
        take(firstPosition, 1);
        take(residual, capacity * c.hiddenSize);
        take(normed, chunk * c.hiddenSize);
        take(query, chunk * c.queryWidth());
        take(key, chunk * c.kvWidth());
        take(value, chunk * c.kvWidth());
        take(attended, chunk * c.queryWidth());
        take(projected, chunk * c.hiddenSize);
        take(gate, chunk * c.ffnSize);
        take(up, chunk * c.ffnSize);
        take(probabilities, attentionChunk * c.headCount * capacity);
        take(logits, kLogitChunk * c.vocabSize);
        take(ropeFrequencies, c.layerCount * (c.ropeDims / 2));
        cacheKeys.resize(size_t(c.layerCount));
        cacheValues.resize(size_t(c.layerCount));
        for (int64_t layer = 0; layer < c.layerCount; ++layer) {
            take(cacheKeys[size_t(layer)], capacity * c.kvWidth());
            take(cacheValues[size_t(layer)], capacity * c.kvWidth());
        }
        return bytes;
    }
};

void CudaForward::StreamDeleter::operator()(cudaStream_t stream) const {
    cudaStreamDestroy(stream);
}

std::string describeDevice(int deviceIndex) {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        cudaGetLastError();  // not to be reported again by the next launch check
        throw Error(std::string("no usable CUDA device: ") + cudaGetErrorString(status));
    }
    if (deviceIndex < 0 || deviceIndex >= count)
        throw Error("there is no CUDA device " + std::to_string(deviceIndex) +
                    ": this machine has " + std::to_string(count) +
                    " (cuda:0 .. cuda:" + std::to_string(count - 1) + ")");
    cudaDeviceProp properties{};
    INFERLENS_CUDA_CHECK(cudaGetDeviceProperties(&properties, deviceIndex));
    return "cuda:" + std::to_string(deviceIndex) + " (" + properties.name + ")";
}

CudaForward::CudaForward(const ModelConfig& config, int deviceIndex, int64_t contextSize,
                         const WeightPlan& plan, const std::function<DeviceWeights()>& makeWeights)
    : config_(config),
      device_(deviceIndex),
      deviceName_(describeDevice(deviceIndex)),
      capacity_(contextSize) {
    if (contextSize < 1)
        throw Error("context size must be at least 1, got " + std::to_string(contextSize));
    INFERLENS_CUDA_CHECK(cudaSetDevice(device_));
    const ModelConfig& c = config_;
    const int64_t chunk = std::min(kChunkTokens, capacity_);
    attentionChunk_ =
        std::clamp<int64_t>(kProbabilityBudget / (c.headCount * capacity_ * 4), 1, chunk);
    const ProductLimits limits{chunk, std::max({c.hiddenSize, c.queryWidth(), c.ffnSize}),
                               plan.largestBlockMatrix, plan.reducedPrecision};
    auto work = std::make_unique<Work>();
    const int64_t activationBytes = work->layout(c, capacity_, chunk, attentionChunk_, nullptr);
    const int64_t cacheBytes =
        kvCacheStats(c.layerCount, c.kvHeadCount, c.headCount, c.headDim, 0, capacity_, capacity_)
            .bytesAllocated;
    const int64_t workBytes = activationBytes + DeviceProducts::workBytes(limits);

    // Refuse before allocating anything, with the numbers.
    size_t freeBytes = 0, totalBytes = 0;
    INFERLENS_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
    const int64_t needed = plan.bytes + workBytes + kRuntimeReserve;
    if (needed > int64_t(freeBytes))
        throw Error("the model does not fit in the memory of " + deviceName_ + ": it needs " +
                    gigabytesText(needed) + " (weights " + gigabytesText(plan.bytes) +
                    ", KV cache for " + std::to_string(capacity_) + " tokens " +
                    gigabytesText(cacheBytes) + ", work buffers and runtime " +
                    gigabytesText(workBytes - cacheBytes + kRuntimeReserve) + ") but " +
                    gigabytesText(int64_t(freeBytes)) + " of " +
                    gigabytesText(int64_t(totalBytes)) +
                    " are free; try a smaller --ctx-size, a quantized model, or --device cpu");

    cudaStream_t stream = nullptr;
    INFERLENS_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    streamOwner_.reset(stream);
    stream_ = stream;
    weights_ = makeWeights();
    workArena_ = DeviceArena(workBytes);
    work->layout(c, capacity_, chunk, attentionChunk_, &workArena_);
    // Every layer's RoPE frequencies (its base, scaling and Llama 3 factors), computed once as on
    // the CPU.
    std::vector<double> frequencies;
    for (int64_t layer = 0; layer < c.layerCount; ++layer) {
        const std::vector<double> own = ropeFrequencies(c, layer);
        frequencies.insert(frequencies.end(), own.begin(), own.end());
    }
    // On stream_ (non-blocking, so not ordered after the legacy default stream): the kernels
    // that read the frequencies run on it. From pageable memory the call returns once the bytes
    // are staged, so `frequencies` may go out of scope.
    if (!frequencies.empty())
        INFERLENS_CUDA_CHECK(cudaMemcpyAsync(work->ropeFrequencies, frequencies.data(),
                                             frequencies.size() * sizeof(double),
                                             cudaMemcpyHostToDevice, stream_));
    work_ = std::move(work);
    products_ = std::make_unique<DeviceProducts>(stream_, limits, workArena_);
    decodeGraphs_.assign(size_t(c.layerCount), nullptr);
    const char* graphs = std::getenv("INFERLENS_CUDA_GRAPHS");
    useGraphs_ = graphs == nullptr || std::strcmp(graphs, "0") != 0;
    pinnedInput_.reserve(int64_t(sizeof(int64_t)) + capacity_ * int64_t(sizeof(int32_t)));
    pinnedHidden_.reserve(c.hiddenSize * int64_t(sizeof(float)));
}

CudaForward::~CudaForward() {
    cudaSetDevice(device_);
    if (stream_ != nullptr)
        cudaStreamSynchronize(stream_);
    for (cudaGraphExec_t graph : decodeGraphs_)
        if (graph != nullptr)
            cudaGraphExecDestroy(graph);
}

void CudaForward::beginStep(std::span<const int32_t> tokens, int64_t firstPosition) {
    INFERLENS_CUDA_CHECK(cudaSetDevice(device_));
    const auto count = int64_t(tokens.size());
    if (firstPosition != size_)
        throw Error("position " + std::to_string(firstPosition) + " does not follow the " +
                    std::to_string(size_) + " tokens in the KV cache");
    if (count < 1)
        throw Error("a step needs at least one token");
    if (count > capacity_ - size_)
        throw Error("the KV cache is full: " + std::to_string(size_) + " of " +
                    std::to_string(capacity_) + " tokens held, " + std::to_string(count) +
                    " more do not fit");
    const int64_t vocabulary = weights_.tokenEmbedding.rows;
    for (const int32_t token : tokens)
        if (token < 0 || token >= vocabulary)
            throw Error("token id " + std::to_string(token) + " is outside the vocabulary [0, " +
                        std::to_string(vocabulary) + ")");
    // An abandoned step's copies may still read the pinned staging.
    INFERLENS_CUDA_CHECK(cudaStreamSynchronize(stream_));
    auto* position = pinnedInput_.as<int64_t>();
    auto* ids = reinterpret_cast<int32_t*>(position + 1);
    *position = firstPosition;
    std::copy(tokens.begin(), tokens.end(), ids);
    INFERLENS_CUDA_CHECK(cudaMemcpyAsync(work_->firstPosition, position, sizeof(int64_t),
                                         cudaMemcpyHostToDevice, stream_));
    INFERLENS_CUDA_CHECK(cudaMemcpyAsync(work_->tokenIds, ids, size_t(count) * sizeof(int32_t),
                                         cudaMemcpyHostToDevice, stream_));
    embedRows(weights_.tokenEmbedding, work_->tokenIds, count, work_->residual, stream_);
    if (config_.embeddingScale != 1.0)
        scaleValues(work_->residual, count * config_.hiddenSize, float(config_.embeddingScale),
                    stream_);
    stepFirst_ = firstPosition;
    stepCount_ = count;
}

void CudaForward::runLayer(int64_t layer, AttentionRecorder* recorder) {
    INFERLENS_CUDA_CHECK(cudaSetDevice(device_));
    wantedHeads_.clear();
    if (recorder != nullptr)
        for (int64_t head = 0; head < config_.headCount; ++head)
            if (recorder->wantsHead(layer, head))
                wantedHeads_.push_back(head);
    const int64_t rowWidth = stepFirst_ + stepCount_;
    if (!wantedHeads_.empty())
        pinnedProbabilities_.reserve(int64_t(wantedHeads_.size()) * stepCount_ * rowWidth *
                                     int64_t(sizeof(float)));

    if (stepCount_ == 1 && useGraphs_) {
        replayDecodeLayer(layer);
        if (!wantedHeads_.empty())
            copyWantedProbabilities(0, 1);
    } else {
        for (int64_t offset = 0; offset < stepCount_; offset += kChunkTokens)
            enqueueLayer(layer, offset, std::min(kChunkTokens, stepCount_ - offset), true);
    }
    if (wantedHeads_.empty())
        return;
    // Only a layer with wanted heads waits for the GPU, and then for its copies alone.
    INFERLENS_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const float* rows = pinnedProbabilities_.as<float>();
    for (size_t i = 0; i < wantedHeads_.size(); ++i)
        for (int64_t token = 0; token < stepCount_; ++token) {
            const float* row = rows + (int64_t(i) * stepCount_ + token) * rowWidth;
            recorder->record(layer, wantedHeads_[i], stepFirst_ + token,
                             std::span(row, size_t(stepFirst_ + token + 1)));
        }
}

void CudaForward::enqueueLayer(int64_t layerIndex, int64_t offset, int64_t count,
                               bool copyProbabilities) {
    const ModelConfig& c = config_;
    const DeviceLayer& layer = weights_.layers[size_t(layerIndex)];
    Work& w = *work_;
    const int64_t hidden = c.hiddenSize, queryWidth = c.queryWidth(), kvWidth = c.kvWidth();
    float* x = w.residual + offset * hidden;

    const double normOffset = c.normWeightOffset;

    // Attention block: x += [PostNorm] Wo · attention(RMSNorm(x))
    rmsNorm(x, layer.attentionNorm, count, hidden, c.rmsNormEps, w.normed, stream_, normOffset);
    products_->multiply(layer.query, w.normed, count, w.query);
    products_->multiply(layer.key, w.normed, count, w.key);
    products_->multiply(layer.value, w.normed, count, w.value);
    if (layer.queryBias != nullptr)
        addBias(layer.queryBias, count, queryWidth, w.query, stream_);
    if (layer.keyBias != nullptr)
        addBias(layer.keyBias, count, kvWidth, w.key, stream_);
    if (layer.valueBias != nullptr)
        addBias(layer.valueBias, count, kvWidth, w.value, stream_);
    // Each head normalised on its own (Qwen3, Gemma 3), then rotated; the cache holds rotated
    // keys.
    if (layer.queryNorm != nullptr) {
        rmsNorm(w.query, layer.queryNorm, count * c.headCount, c.headDim, c.rmsNormEps, w.query,
                stream_, normOffset);
        rmsNorm(w.key, layer.keyNorm, count * c.kvHeadCount, c.headDim, c.rmsNormEps, w.key,
                stream_, normOffset);
    }
    const double* frequencies = w.ropeFrequencies + layerIndex * (c.ropeDims / 2);
    const RopeShape queries{c.headCount, c.headDim,     c.ropeDims,
                            c.ropeBase,  c.ropePairing, frequencies};
    const RopeShape keys{c.kvHeadCount, c.headDim,     c.ropeDims,
                         c.ropeBase,    c.ropePairing, frequencies};
    rope(w.query, count, queries, w.firstPosition, offset, stream_);
    rope(w.key, count, keys, w.firstPosition, offset, stream_);
    float* cacheKeys = w.cacheKeys[size_t(layerIndex)];
    float* cacheValues = w.cacheValues[size_t(layerIndex)];
    storeKv(w.key, w.value, count, kvWidth, cacheKeys, cacheValues, w.firstPosition, offset,
            stream_);
    // A local layer's window is a mask in positions, which are this cache's rows.
    const AttentionShape shape{c.headCount, c.kvHeadCount,         c.headDim,
                               capacity_,   float(c.scoreScale()), c.layerWindow(layerIndex)};
    for (int64_t first = 0; first < count; first += attentionChunk_) {
        const int64_t queriesNow = std::min(attentionChunk_, count - first);
        attention(w.query + first * queryWidth, cacheKeys, cacheValues, shape, queriesNow,
                  w.firstPosition, offset + first, w.probabilities, w.attended + first * queryWidth,
                  stream_);
        if (copyProbabilities && !wantedHeads_.empty())
            copyWantedProbabilities(offset + first, queriesNow);
    }
    products_->multiply(layer.attentionOutput, w.attended, count, w.projected);
    if (layer.postAttentionNorm != nullptr)
        rmsNorm(w.projected, layer.postAttentionNorm, count, hidden, c.rmsNormEps, w.projected,
                stream_, normOffset);
    addInPlace(x, w.projected, count * hidden, stream_);

    // Gated FFN block: x += [PostNorm] W_down · (act(W_gate · h) ⊙ (W_up · h)), h = RMSNorm(x)
    rmsNorm(x, layer.ffnNorm, count, hidden, c.rmsNormEps, w.normed, stream_, normOffset);
    products_->multiply(layer.ffnGate, w.normed, count, w.gate);
    products_->multiply(layer.ffnUp, w.normed, count, w.up);
    if (c.ffnActivation == FfnActivation::GeluTanh)
        geluTanhGlu(w.gate, w.up, count * c.ffnSize, stream_);
    else
        swiGlu(w.gate, w.up, count * c.ffnSize, stream_);
    products_->multiply(layer.ffnDown, w.gate, count, w.projected);
    if (layer.postFfnNorm != nullptr)
        rmsNorm(w.projected, layer.postFfnNorm, count, hidden, c.rmsNormEps, w.projected, stream_,
                normOffset);
    addInPlace(x, w.projected, count * hidden, stream_);
}

void CudaForward::replayDecodeLayer(int64_t layer) {
    cudaGraphExec_t& exec = decodeGraphs_[size_t(layer)];
    if (exec == nullptr) {
        cudaGraph_t graph = nullptr;
        INFERLENS_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
        try {
            enqueueLayer(layer, 0, 1, false);
        } catch (...) {
            cudaStreamEndCapture(stream_, &graph);  // reports the invalidated capture …
            cudaGetLastError();                     // … which must not be blamed on a later call
            if (graph != nullptr)
                cudaGraphDestroy(graph);
            throw;
        }
        INFERLENS_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
        const cudaError_t status = cudaGraphInstantiate(&exec, graph, 0);
        cudaGraphDestroy(graph);
        if (status != cudaSuccess)
            exec = nullptr;
        INFERLENS_CUDA_CHECK(status);
    }
    INFERLENS_CUDA_CHECK(cudaGraphLaunch(exec, stream_));
}

void CudaForward::copyWantedProbabilities(int64_t tokenOffset, int64_t count) {
    // Rows of the launch's first query for head h start at h × capacity, and the next query's at
    // heads × capacity further; the host keeps [wanted head, step token, key] rows of the step's
    // full width.
    const int64_t rowWidth = stepFirst_ + stepCount_;
    const auto rowBytes = size_t(rowWidth) * sizeof(float);
    const auto sourcePitch = size_t(config_.headCount * capacity_) * sizeof(float);
    float* rows = pinnedProbabilities_.as<float>();
    for (size_t i = 0; i < wantedHeads_.size(); ++i) {
        float* target = rows + (int64_t(i) * stepCount_ + tokenOffset) * rowWidth;
        const float* source = work_->probabilities + wantedHeads_[i] * capacity_;
        INFERLENS_CUDA_CHECK(cudaMemcpy2DAsync(target, rowBytes, source, sourcePitch, rowBytes,
                                               size_t(count), cudaMemcpyDeviceToHost, stream_));
    }
}

void CudaForward::synchronize() {
    INFERLENS_CUDA_CHECK(cudaSetDevice(device_));
    INFERLENS_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

std::span<const float> CudaForward::lastHidden() {
    INFERLENS_CUDA_CHECK(cudaSetDevice(device_));
    const int64_t hidden = config_.hiddenSize;
    auto* host = pinnedHidden_.as<float>();
    INFERLENS_CUDA_CHECK(cudaMemcpyAsync(host, work_->residual + (stepCount_ - 1) * hidden,
                                         size_t(hidden) * sizeof(float), cudaMemcpyDeviceToHost,
                                         stream_));
    INFERLENS_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return {host, size_t(hidden)};
}

int64_t CudaForward::truncateCache(int64_t tokens) {
    // Rows past size_ are simply written again by the next steps, as after clearCache.
    if (tokens < 0 || tokens > size_)
        throw Error("cannot keep " + std::to_string(tokens) + " of the " + std::to_string(size_) +
                    " tokens in the KV cache");
    size_ = tokens;
    return tokens;
}

void CudaForward::finishStep(std::span<float> logits, int64_t rows) {
    INFERLENS_CUDA_CHECK(cudaSetDevice(device_));
    const ModelConfig& c = config_;
    Work& w = *work_;
    size_ += stepCount_;
    const int64_t firstRow = stepCount_ - rows;
    for (int64_t row = firstRow; row < stepCount_; row += kLogitChunk) {
        const int64_t count = std::min(kLogitChunk, stepCount_ - row);
        rmsNorm(w.residual + row * c.hiddenSize, weights_.outputNorm, count, c.hiddenSize,
                c.rmsNormEps, w.normed, stream_, c.normWeightOffset);
        products_->multiply(weights_.output, w.normed, count, w.logits);
        if (c.finalLogitSoftcap > 0)
            softcap(w.logits, count * c.vocabSize, float(c.finalLogitSoftcap), stream_);
        INFERLENS_CUDA_CHECK(cudaMemcpyAsync(logits.data() + (row - firstRow) * c.vocabSize,
                                             w.logits, size_t(count * c.vocabSize) * sizeof(float),
                                             cudaMemcpyDeviceToHost, stream_));
    }
    INFERLENS_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

KvCacheStats CudaForward::cacheStats() const {
    const ModelConfig& c = config_;
    return kvCacheStats(c.layerCount, c.kvHeadCount, c.headCount, c.headDim, size_, capacity_,
                        capacity_);
}

}  // namespace inferlens::cuda

namespace inferlens {

std::unique_ptr<ForwardBackend> makeCudaForward(const Model& model, int deviceIndex,
                                                int64_t contextSize) {
    const ModelConfig& config = model.config();
    return std::make_unique<cuda::CudaForward>(
        config, deviceIndex, contextSize, cuda::planUpload(config, model.weights()),
        [&] { return cuda::uploadWeights(config, model.weights()); });
}

std::unique_ptr<ForwardBackend> makeSyntheticCudaForward(const ModelConfig& config, DType dtype,
                                                         uint64_t seed, int deviceIndex,
                                                         int64_t contextSize) {
    return std::make_unique<cuda::CudaForward>(
        config, deviceIndex, contextSize, cuda::planSynthetic(config, dtype),
        [&] { return cuda::syntheticWeights(config, dtype, seed); });
}

}  // namespace inferlens
