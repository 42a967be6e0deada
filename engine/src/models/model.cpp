#include "models/model.h"

#include <cmath>

#include "backend/cpu/reference_ops.h"
#include "core/dtype_codec.h"
#include "core/error.h"
#include "kv_cache.h"

namespace inferlens {

ForwardScratch::ForwardScratch(const ModelConfig& c)
    : normed(c.hiddenSize),
      query(c.queryWidth()),
      attended(c.queryWidth()),
      projected(c.hiddenSize),
      gate(c.ffnSize),
      up(c.ffnSize) {}

Model::Model(ModelFiles files) : files_(std::move(files)) {
    weights_ = files_.architecture->bind(files_.config, [this](const std::string& name) {
        const auto found = files_.tensors.find(name);
        if (found == files_.tensors.end())
            throwFileError(files_.path, "missing tensor " + name);
        return &found->second;
    });
}

void Model::embed(int32_t token, std::span<float> x) const {
    const TensorView& table = weights_.tokenEmbedding;
    if (token < 0 || token >= table.rows())
        throw Error("token id " + std::to_string(token) + " is outside the vocabulary [0, " +
                    std::to_string(table.rows()) + ")");
    decodeRow(table.dtype, table.row(token), x);
}

void Model::forwardLayer(int64_t layerIndex, int64_t firstPosition, std::span<float> x,
                         KvCache& cache, ForwardScratch& s, AttentionRecorder* recorder) const {
    const LayerWeights& layer = weights_.layers[layerIndex];
    const auto hidden = size_t(config().hiddenSize);
    if (firstPosition != cache.size())
        throw Error("position " + std::to_string(firstPosition) + " does not follow the " +
                    std::to_string(cache.size()) + " tokens in the KV cache");
    // Token by token in position order: each token's attention reads the K/V that the tokens
    // before it wrote to the cache in this same layer, which is the causal mask.
    const auto count = int64_t(x.size() / hidden);
    for (int64_t i = 0; i < count; ++i)
        forwardToken(layer, layerIndex, firstPosition + i, x.subspan(size_t(i) * hidden, hidden),
                     cache, s, recorder);
}

void Model::forwardToken(const LayerWeights& layer, int64_t layerIndex, int64_t position,
                         std::span<float> x, KvCache& cache, ForwardScratch& s,
                         AttentionRecorder* recorder) const {
    const ModelConfig& c = config();

    // Attention block: x += Wo · attention(RMSNorm(x))
    rmsNorm(x, layer.attentionNorm, c.rmsNormEps, s.normed);
    attention(layer, layerIndex, position, cache, s, recorder);
    matVec(layer.attentionOutput, s.attended, s.projected, s.pool);
    for (int64_t i = 0; i < c.hiddenSize; ++i)
        x[i] += s.projected[i];

    // SwiGLU MLP block: x += W_down · (silu(W_gate · h) ⊙ (W_up · h)), h = RMSNorm(x)
    rmsNorm(x, layer.ffnNorm, c.rmsNormEps, s.normed);
    matVec(layer.ffnGate, s.normed, s.gate, s.pool);
    matVec(layer.ffnUp, s.normed, s.up, s.pool);
    swiGlu(s.gate, s.up);
    matVec(layer.ffnDown, s.gate, s.projected, s.pool);
    for (int64_t i = 0; i < c.hiddenSize; ++i)
        x[i] += s.projected[i];
}

void Model::attention(const LayerWeights& layer, int64_t layerIndex, int64_t position,
                      KvCache& cache, ForwardScratch& s, AttentionRecorder* recorder) const {
    const ModelConfig& c = config();
    const int64_t headDim = c.headDim;
    const size_t dim = size_t(headDim);

    // Q, K, V projections (+ bias for GLM), RoPE on Q and K; K and V of this token go to the cache
    // (the cache holds rotated keys).
    std::span<float> key = cache.keyRow(layerIndex, position);
    std::span<float> value = cache.valueRow(layerIndex, position);
    matVec(layer.query, s.normed, s.query, s.pool);
    matVec(layer.key, s.normed, key, s.pool);
    matVec(layer.value, s.normed, value, s.pool);
    if (layer.queryBias)
        addBias(*layer.queryBias, s.query);
    if (layer.keyBias)
        addBias(*layer.keyBias, key);
    if (layer.valueBias)
        addBias(*layer.valueBias, value);
    for (int64_t h = 0; h < c.headCount; ++h)
        applyRope(std::span(s.query).subspan(h * dim, dim), position, c.ropeDims, c.ropeBase,
                  c.ropePairing);
    for (int64_t g = 0; g < c.kvHeadCount; ++g)
        applyRope(key.subspan(g * dim, dim), position, c.ropeDims, c.ropeBase, c.ropePairing);

    // Causal attention of each query head over positions 0..position of its KV group.
    const std::span<const float> keys = cache.keys(layerIndex, position + 1);
    const std::span<const float> values = cache.values(layerIndex, position + 1);
    const int64_t width = cache.rowWidth();
    const int64_t headsPerGroup = c.headCount / c.kvHeadCount;
    const float scale = float(1.0 / std::sqrt(double(headDim)));
    s.scores.resize(position + 1);
    for (int64_t h = 0; h < c.headCount; ++h) {
        const int64_t group = h / headsPerGroup;
        const float* q = s.query.data() + h * headDim;
        for (int64_t t = 0; t <= position; ++t) {
            const float* k = keys.data() + t * width + group * headDim;
            float dot = 0.0f;
            for (int64_t d = 0; d < headDim; ++d)
                dot += q[d] * k[d];
            s.scores[t] = dot * scale;
        }
        softmaxInPlace(s.scores);
        if (recorder != nullptr && recorder->wantsHead(layerIndex, h))
            recorder->record(layerIndex, h, position, s.scores);
        float* out = s.attended.data() + h * headDim;
        std::fill(out, out + headDim, 0.0f);
        for (int64_t t = 0; t <= position; ++t) {
            const float* v = values.data() + t * width + group * headDim;
            for (int64_t d = 0; d < headDim; ++d)
                out[d] += s.scores[t] * v[d];
        }
    }
}

void Model::computeLogits(std::span<const float> x, std::span<float> logits,
                          ForwardScratch& s) const {
    rmsNorm(x, weights_.outputNorm, config().rmsNormEps, s.normed);
    matVec(weights_.output, s.normed, logits, s.pool);
}

}  // namespace inferlens
