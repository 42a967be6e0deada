#pragma once
// A loaded decoder-only transformer: the shared pre-norm gated-FFN block that every architecture
// uses, run one token at a time on the reference CPU path. The double loop that drives it (tokens
// outside, layers inside) is in generator.cpp.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backend/cpu/fused_attention.h"
#include "backend/cpu/packed_rows.h"
#include "models/decoder_weights.h"
#include "models/model_files.h"

namespace inferlens {

class KvCache;
class ThreadPool;

// Receives attention weights while a layer runs, for the heads it asks for (the probes' way in;
// with no recorder the forward pass does no extra work).
class AttentionRecorder {
  public:
    virtual ~AttentionRecorder() = default;
    virtual bool wantsHead(int64_t layer, int64_t head) const = 0;
    // Softmax weights of the query at `position` over key positions 0 .. position.
    virtual void record(int64_t layer, int64_t head, int64_t position,
                        std::span<const float> weights) = 0;
};

// Activations of one token, sized once per model and reused for every token and layer.
struct ForwardScratch {
    explicit ForwardScratch(const ModelConfig& config);
    std::vector<float> normed;    // [H]
    std::vector<float> query;     // [heads × head_dim]
    std::vector<float> key;       // [kv_heads × head_dim], before it goes into the cache
    std::vector<float> value;     // [kv_heads × head_dim]
    std::vector<float> attended;  // [heads × head_dim]: attention output before the projection
    std::vector<float> scores;    // [heads × rows]: attention weights over the cache's rows
    std::vector<float> positionWeights;  // one head's weights over positions (a sliding cache)
    // A layer's f16 or int8 K/V rows as f32, for the reference kernels.
    std::vector<float> decodedKeys, decodedValues;
    std::vector<float> projected;  // [H]
    std::vector<float> gate;       // [F]
    std::vector<float> up;         // [F]
    ThreadPool* pool = nullptr;    // splits the large products across threads when set
    // Which kernel computes the attention output; with Fused, the weights a recorder wants are
    // computed beside it, so that watching a head never changes the numbers.
    AttentionKernel attention = AttentionKernel::Fused;
    // A prefill's matrices, [tokens, width] row-major (sized by the first prefill that needs them).
    struct Batch {
        std::vector<float> normed, query, key, value, attended, projected, gate, up;
    } batch;
};

// The attention of `config`'s layers, reading K/V rows `kvRowWidth` floats apart.
AttentionLayout attentionLayoutOf(const ModelConfig& config, int64_t kvRowWidth);

class Model {
  public:
    // `placeForCpu`: place the matrices where the CPU kernels read them fastest now (see
    // placeForCpu()); a model that runs on a GPU skips that and is uploaded as stored.
    explicit Model(ModelFiles files, bool placeForCpu = true);
    static Model open(const std::string& path, bool placeForCpu = true) {
        return Model(openModelFiles(path), placeForCpu);
    }

    // Repacks or copies every matrix a product reads into the layout the CPU kernels read fastest
    // (backend/cpu/packed_rows.h). Idempotent; the CPU path works without it, only slower.
    void placeForCpu();

    const ModelConfig& config() const { return files_.config; }
    const ModelFiles& files() const { return files_; }
    const DecoderWeights& weights() const { return weights_; }

    // x = the embedding of `token`; throws Error for an id outside the vocabulary.
    void embed(int32_t token, std::span<float> x) const;
    // One decoder layer on the residual streams x [count, H] of the tokens at positions
    // firstPosition .. firstPosition + count − 1 (firstPosition == cache.nextPosition(); their
    // K/V go to the rows reserved in `cache`).
    void forwardLayer(int64_t layer, int64_t firstPosition, std::span<float> x, KvCache& cache,
                      ForwardScratch& scratch, AttentionRecorder* recorder = nullptr) const;
    // logits = output · final_norm(x)
    void computeLogits(std::span<const float> x, std::span<float> logits,
                       ForwardScratch& scratch) const;

  private:
    // One token (a decode step): matrix-vector products.
    void forwardToken(const LayerWeights& layer, int64_t layerIndex, int64_t position,
                      std::span<float> x, KvCache& cache, ForwardScratch& scratch,
                      AttentionRecorder* recorder) const;
    // Several tokens (a prefill): every product as one matrix-matrix product over the tokens.
    void forwardTokens(const LayerWeights& layer, int64_t layerIndex, int64_t firstPosition,
                       int64_t count, std::span<float> x, KvCache& cache, ForwardScratch& scratch,
                       AttentionRecorder* recorder) const;
    // Biases, per-head Q/K norms, then RoPE on the query heads and key groups of the token at
    // `position`.
    void finishQkv(const LayerWeights& layer, int64_t layerIndex, int64_t position,
                   std::span<float> query, std::span<float> key, std::span<float> value) const;
    // x += block, after the block's post-norm when the layer has one (Gemma 3); may overwrite
    // scratch.normed.
    void addResidual(const std::optional<TensorView>& postNorm, std::span<float> block,
                     std::span<float> x, ForwardScratch& scratch) const;
    // The attention of a layer over `cache`'s rows: masked by a sliding cache's window, and by
    // the layer's own window when it is a local layer.
    AttentionLayout attentionLayout(const KvCache& cache, int64_t layerIndex) const;
    // Whether the recorder wants any head of this layer.
    bool recordsLayer(int64_t layerIndex, const AttentionRecorder* recorder) const;
    // The softmax weights of every head of scratch.query (the token in cache row `row`) over
    // rows 0..row, into scratch.scores.
    void attentionWeights(int64_t layerIndex, int64_t row, const KvCache& cache,
                          ForwardScratch& scratch) const;
    // Computes the weights (beside the fused kernel, which never forms them) and hands those of
    // the heads the recorder wants to it, over positions (those a sliding cache evicted get 0).
    void recordAttention(int64_t layerIndex, int64_t row, const KvCache& cache,
                         ForwardScratch& scratch, AttentionRecorder& recorder) const;
    // Causal attention of scratch.query (the token in cache row `row`, its K/V already there)
    // into scratch.attended.
    void attend(int64_t layerIndex, int64_t row, KvCache& cache, ForwardScratch& scratch,
                AttentionRecorder* recorder) const;

    ModelFiles files_;
    DecoderWeights weights_;
    // Repacked copies of the quantized matrices, when this CPU's kernels use them.
    std::shared_ptr<PackedStore> packed_;
    std::vector<std::vector<double>> ropeFrequencies_;  // [layer][ropeDims / 2]
};

}  // namespace inferlens
