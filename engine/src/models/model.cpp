#include "models/model.h"

#include <cmath>

#include "backend/cpu/kernels.h"
#include "backend/cpu/reference_attention.h"
#include "backend/cpu/reference_ops.h"
#include "backend/cpu/thread_pool.h"
#include "core/dtype_codec.h"
#include "core/error.h"
#include "kv_cache.h"
#include "models/rope_frequencies.h"

namespace inferlens {

ForwardScratch::ForwardScratch(const ModelConfig& c)
    : normed(c.hiddenSize),
      query(c.queryWidth()),
      key(c.kvWidth()),
      value(c.kvWidth()),
      attended(c.queryWidth()),
      projected(c.hiddenSize),
      gate(c.ffnSize),
      up(c.ffnSize) {}

Model::Model(ModelFiles files, bool placeForCpuKernels) : files_(std::move(files)) {
    weights_ = files_.architecture->bind(files_.config, [this](const std::string& name) {
        const auto found = files_.tensors.find(name);
        if (found == files_.tensors.end())
            throwFileError(files_.path, "missing tensor " + name);
        return &found->second;
    });
    for (int64_t layer = 0; layer < config().layerCount; ++layer)
        ropeFrequencies_.push_back(ropeFrequencies(config(), layer));
    if (placeForCpuKernels)
        placeForCpu();
}

void Model::placeForCpu() {
    if (packed_)
        return;
    // Every matrix a product reads, where its kernels read it fastest (backend/cpu/packed_rows.h;
    // the token embedding is only looked up by rows, unless the output layer shares it, and then
    // this is that view's copy).
    std::vector<TensorView*> matrices;
    for (LayerWeights& layer : weights_.layers)
        for (TensorView* matrix : {&layer.query, &layer.key, &layer.value, &layer.attentionOutput,
                                   &layer.ffnGate, &layer.ffnUp, &layer.ffnDown})
            matrices.push_back(matrix);
    matrices.push_back(&weights_.output);
    int64_t bytes = 0;
    for (const TensorView* matrix : matrices)
        bytes += placedBytes(*matrix);
    packed_ = std::make_shared<PackedStore>();
    packed_->reserve(bytes);
    ThreadPool pool(0);
    for (TensorView* matrix : matrices)
        placeForProducts(*matrix, *packed_, &pool);
}

void Model::embed(int32_t token, std::span<float> x) const {
    const TensorView& table = weights_.tokenEmbedding;
    if (token < 0 || token >= table.rows())
        throw Error("token id " + std::to_string(token) + " is outside the vocabulary [0, " +
                    std::to_string(table.rows()) + ")");
    decodeRow(table.dtype, table.row(token), x);
    if (const double scale = config().embeddingScale; scale != 1.0)
        for (float& value : x)
            value *= float(scale);
}

void Model::forwardLayer(int64_t layerIndex, int64_t firstPosition, std::span<float> x,
                         KvCache& cache, ForwardScratch& s, AttentionRecorder* recorder) const {
    const LayerWeights& layer = weights_.layers[layerIndex];
    const auto hidden = size_t(config().hiddenSize);
    if (firstPosition != cache.nextPosition())
        throw Error("position " + std::to_string(firstPosition) + " does not follow the " +
                    std::to_string(cache.nextPosition()) + " tokens of the KV cache");
    // Token by token in position order: each token's attention reads the K/V that the tokens
    // before it wrote to the cache in this same layer, which is the causal mask.
    const auto count = int64_t(x.size() / hidden);
    if (count == 1)
        forwardToken(layer, layerIndex, firstPosition, x, cache, s, recorder);
    else
        forwardTokens(layer, layerIndex, firstPosition, count, x, cache, s, recorder);
}

void Model::forwardTokens(const LayerWeights& layer, int64_t layerIndex, int64_t firstPosition,
                          int64_t count, std::span<float> x, KvCache& cache, ForwardScratch& s,
                          AttentionRecorder* recorder) const {
    const ModelConfig& c = config();
    const auto hidden = size_t(c.hiddenSize), queryWidth = size_t(c.queryWidth()),
               kvWidth = size_t(c.kvWidth()), ffn = size_t(c.ffnSize);
    const auto rows = size_t(count);
    ForwardScratch::Batch& b = s.batch;
    b.normed.resize(rows * hidden);
    b.query.resize(rows * queryWidth);
    b.key.resize(rows * kvWidth);
    b.value.resize(rows * kvWidth);
    b.attended.resize(rows * queryWidth);
    b.projected.resize(rows * hidden);
    b.gate.resize(rows * ffn);
    b.up.resize(rows * ffn);
    const auto row = [](std::vector<float>& matrix, size_t width, size_t i) {
        return std::span(matrix).subspan(i * width, width);
    };

    // Attention block: x += [PostNorm] Wo · attention(RMSNorm(x)), the products over all tokens
    // at once.
    for (size_t i = 0; i < rows; ++i)
        rmsNorm(x.subspan(i * hidden, hidden), layer.attentionNorm, c.rmsNormEps,
                row(b.normed, hidden, i), c.normWeightOffset);
    matMat(layer.query, b.normed, count, b.query, s.pool);
    matMat(layer.key, b.normed, count, b.key, s.pool);
    matMat(layer.value, b.normed, count, b.value, s.pool);
    // Every token's K/V row goes into the cache first; attention then reads, for the token in
    // each row, the rows up to its own (the causal mask).
    const int64_t firstRow = cache.size();
    for (size_t i = 0; i < rows; ++i) {
        const std::span<float> key = row(b.key, kvWidth, i), value = row(b.value, kvWidth, i);
        finishQkv(layer, layerIndex, firstPosition + int64_t(i), row(b.query, queryWidth, i), key,
                  value);
        cache.store(layerIndex, firstRow + int64_t(i), key, value);
    }
    if (s.attention == AttentionKernel::Fused) {
        fusedAttention(attentionLayout(cache, layerIndex), b.query, firstRow, count,
                       cache.keys(layerIndex), cache.values(layerIndex), b.attended, s.pool);
        if (recordsLayer(layerIndex, recorder))
            for (size_t i = 0; i < rows; ++i) {
                std::copy_n(b.query.begin() + ptrdiff_t(i * queryWidth), queryWidth,
                            s.query.begin());
                recordAttention(layerIndex, firstRow + int64_t(i), cache, s, *recorder);
            }
    } else {
        for (size_t i = 0; i < rows; ++i) {
            std::copy_n(b.query.begin() + ptrdiff_t(i * queryWidth), queryWidth, s.query.begin());
            attend(layerIndex, firstRow + int64_t(i), cache, s, recorder);
            std::copy(s.attended.begin(), s.attended.end(),
                      b.attended.begin() + ptrdiff_t(i * queryWidth));
        }
    }
    matMat(layer.attentionOutput, b.attended, count, b.projected, s.pool);
    for (size_t i = 0; i < rows; ++i)
        addResidual(layer.postAttentionNorm, row(b.projected, hidden, i),
                    x.subspan(i * hidden, hidden), s);

    // Gated FFN block, likewise.
    for (size_t i = 0; i < rows; ++i)
        rmsNorm(x.subspan(i * hidden, hidden), layer.ffnNorm, c.rmsNormEps,
                row(b.normed, hidden, i), c.normWeightOffset);
    matMat(layer.ffnGate, b.normed, count, b.gate, s.pool);
    matMat(layer.ffnUp, b.normed, count, b.up, s.pool);
    gatedActivation(c.ffnActivation, b.gate, b.up);
    matMat(layer.ffnDown, b.gate, count, b.projected, s.pool);
    for (size_t i = 0; i < rows; ++i)
        addResidual(layer.postFfnNorm, row(b.projected, hidden, i), x.subspan(i * hidden, hidden),
                    s);
}

void Model::forwardToken(const LayerWeights& layer, int64_t layerIndex, int64_t position,
                         std::span<float> x, KvCache& cache, ForwardScratch& s,
                         AttentionRecorder* recorder) const {
    const ModelConfig& c = config();

    // Attention block: x += [PostNorm] Wo · attention(RMSNorm(x))
    rmsNorm(x, layer.attentionNorm, c.rmsNormEps, s.normed, c.normWeightOffset);
    matVec(layer.query, s.normed, s.query, s.pool);
    matVec(layer.key, s.normed, s.key, s.pool);
    matVec(layer.value, s.normed, s.value, s.pool);
    finishQkv(layer, layerIndex, position, s.query, s.key, s.value);
    const int64_t row = cache.size();
    cache.store(layerIndex, row, s.key, s.value);
    attend(layerIndex, row, cache, s, recorder);
    matVec(layer.attentionOutput, s.attended, s.projected, s.pool);
    addResidual(layer.postAttentionNorm, s.projected, x, s);

    // Gated FFN block: x += [PostNorm] W_down · (act(W_gate · h) ⊙ (W_up · h)), h = RMSNorm(x),
    // act = SiLU (SwiGLU) or GELU-tanh (Gemma's GeGLU)
    rmsNorm(x, layer.ffnNorm, c.rmsNormEps, s.normed, c.normWeightOffset);
    matVec(layer.ffnGate, s.normed, s.gate, s.pool);
    matVec(layer.ffnUp, s.normed, s.up, s.pool);
    gatedActivation(c.ffnActivation, s.gate, s.up);
    matVec(layer.ffnDown, s.gate, s.projected, s.pool);
    addResidual(layer.postFfnNorm, s.projected, x, s);
}

void Model::addResidual(const std::optional<TensorView>& postNorm, std::span<float> block,
                        std::span<float> x, ForwardScratch& s) const {
    if (postNorm) {
        rmsNorm(block, *postNorm, config().rmsNormEps, s.normed, config().normWeightOffset);
        block = s.normed;
    }
    for (size_t i = 0; i < x.size(); ++i)
        x[i] += block[i];
}

void Model::finishQkv(const LayerWeights& layer, int64_t layerIndex, int64_t position,
                      std::span<float> query, std::span<float> key, std::span<float> value) const {
    const ModelConfig& c = config();
    const auto dim = size_t(c.headDim);
    if (layer.queryBias)
        addBias(*layer.queryBias, query);
    if (layer.keyBias)
        addBias(*layer.keyBias, key);
    if (layer.valueBias)
        addBias(*layer.valueBias, value);
    // Each head normalised on its own (Qwen3, Gemma 3), then rotated; the cache holds rotated
    // keys.
    const std::span<const double> frequencies = ropeFrequencies_[size_t(layerIndex)];
    const auto finishHeads = [&](std::span<float> heads, const std::optional<TensorView>& norm) {
        thread_local std::vector<float> normed;
        normed.resize(dim);
        for (size_t head = 0; head < heads.size(); head += dim) {
            const std::span<float> values = heads.subspan(head, dim);
            if (norm) {
                rmsNorm(values, *norm, c.rmsNormEps, normed, c.normWeightOffset);
                std::copy(normed.begin(), normed.end(), values.begin());
            }
            applyRope(values, position, frequencies, c.ropePairing);
        }
    };
    finishHeads(query, layer.queryNorm);
    finishHeads(key, layer.keyNorm);
}

bool Model::recordsLayer(int64_t layerIndex, const AttentionRecorder* recorder) const {
    if (recorder != nullptr)
        for (int64_t h = 0; h < config().headCount; ++h)
            if (recorder->wantsHead(layerIndex, h))
                return true;
    return false;
}

AttentionLayout attentionLayoutOf(const ModelConfig& c, int64_t kvRowWidth) {
    return {c.headDim, c.headCount, c.kvHeadCount, kvRowWidth, float(c.scoreScale())};
}

AttentionLayout Model::attentionLayout(const KvCache& cache, int64_t layerIndex) const {
    AttentionLayout layout = attentionLayoutOf(config(), config().kvWidth());
    const bool userWindow = cache.options().slides;
    if (userWindow) {
        layout.sinks = cache.options().sinks;
        layout.window = cache.window();
    }
    // A local layer's own window (Gemma 3) is a mask in positions, which are the cache's rows
    // (those after a sliding cache's sinks are consecutive positions). With the user's sliding
    // cache on top, the narrower window wins on a local layer and the user's sinks stay hidden
    // there: the model was trained to see only its recent positions in these layers. Global
    // layers keep the user's window and sinks.
    if (const int64_t own = config().layerWindow(layerIndex); own > 0) {
        layout.window = userWindow ? std::min(layout.window, own) : own;
        layout.sinks = 0;
    }
    return layout;
}

namespace {

// Rows 0 .. count − 1 as f32 for the reference kernels: the cache's own when it stores f32,
// else decoded into `decoded`.
const float* floatRows(const KvRows& rows, int64_t count, std::vector<float>& decoded) {
    if (const float* floats = rows.floatData())
        return floats;
    decoded.resize(size_t(count * rows.heads * rows.headDim));
    rows.decodeRows(0, count, decoded.data());
    return decoded.data();
}

}  // namespace

void Model::attentionWeights(int64_t layerIndex, int64_t row, const KvCache& cache,
                             ForwardScratch& s) const {
    const int64_t keyCount = row + 1;
    s.scores.resize(size_t(config().headCount * keyCount));
    attentionProbabilities(attentionLayout(cache, layerIndex), s.query, row,
                           floatRows(cache.keys(layerIndex), keyCount, s.decodedKeys), s.scores,
                           s.pool);
}

void Model::recordAttention(int64_t layerIndex, int64_t row, const KvCache& cache,
                            ForwardScratch& s, AttentionRecorder& recorder) const {
    attentionWeights(layerIndex, row, cache, s);
    // Recorders are called from this thread only.
    const int64_t keyCount = row + 1;
    const int64_t position = cache.positionOf(row);
    for (int64_t h = 0; h < config().headCount; ++h) {
        if (!recorder.wantsHead(layerIndex, h))
            continue;
        const auto weights = std::span(s.scores).subspan(size_t(h * keyCount), size_t(keyCount));
        if (position == row) {
            recorder.record(layerIndex, h, position, weights);
            continue;
        }
        // A sliding cache: spread the rows' weights over their positions; the evicted get 0.
        s.positionWeights.assign(size_t(position + 1), 0.0f);
        for (int64_t r = 0; r < keyCount; ++r)
            s.positionWeights[size_t(cache.positionOf(r))] = weights[size_t(r)];
        recorder.record(layerIndex, h, position, s.positionWeights);
    }
}

void Model::attend(int64_t layerIndex, int64_t row, KvCache& cache, ForwardScratch& s,
                   AttentionRecorder* recorder) const {
    const int64_t keyCount = row + 1;
    const AttentionLayout layout = attentionLayout(cache, layerIndex);
    if (s.attention == AttentionKernel::Fused) {
        fusedAttention(layout, s.query, row, 1, cache.keys(layerIndex), cache.values(layerIndex),
                       s.attended, s.pool);
        if (recordsLayer(layerIndex, recorder))
            recordAttention(layerIndex, row, cache, s, *recorder);
        return;
    }
    // The reference path: every head's probabilities, then their weighted sums of the values.
    if (recorder != nullptr)
        recordAttention(layerIndex, row, cache, s, *recorder);
    else
        attentionWeights(layerIndex, row, cache, s);
    weightedValues(layout, s.scores, keyCount,
                   floatRows(cache.values(layerIndex), keyCount, s.decodedValues), s.attended,
                   s.pool);
}

void Model::computeLogits(std::span<const float> x, std::span<float> logits,
                          ForwardScratch& s) const {
    rmsNorm(x, weights_.outputNorm, config().rmsNormEps, s.normed, config().normWeightOffset);
    matVec(weights_.output, s.normed, logits, s.pool);
    if (config().finalLogitSoftcap > 0)
        softcap(logits, config().finalLogitSoftcap);
}

}  // namespace inferlens
