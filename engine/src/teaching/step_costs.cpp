#include "teaching/step_costs.h"

#include <algorithm>

#include "core/error.h"

// How the figures are counted (T: the step's tokens, P: positions already cached, H: hidden size,
// Q: heads × head_dim, KV: kv_heads × head_dim, F: the MLP's inner size, V: the vocabulary, b:
// bytes per weight):
// - A multiply-add counts as 2 FLOPs, so a [T, in] × [in, out] product costs 2·T·in·out.
// - Attention: query row i (at position P + i) sees P + i + 1 keys; `keyVisits` sums them over the
//   step's rows, T·P + T(T+1)/2 (P + 1 for a decode step). Scores and the weighted sum each cost
//   2·keyVisits·heads·head_dim; the softmax about 5 per score (scale, max, exp, sum, divide).
// - Weight bytes: every weight the stage uses is read once per step (the embedding: only the T rows
//   looked up). This is what makes a decode step memory-bound: ~2 FLOPs per weight read.
// - Activation bytes: the stage's f32 inputs read and outputs written (intermediates it writes and
//   reads back count both ways), and the KV cache: the new keys and values written once, and every
//   query row reading its keys and values (keyVisits × KV × 4 each), as the reference path does.
// - Only the step's last token is normalised and goes through the LM head: that is all the
//   generator needs, and what InferLens computes.
namespace inferlens {
namespace {

constexpr double kFloat = 4;  // bytes of an f32 activation

// Per-element FLOPs of the cheap stages.
constexpr double kNormFlops = 4;     // square and accumulate, scale, multiply by the weight
constexpr double kRopeFlops = 6;     // per rotated pair: four multiplies, two additions
constexpr double kSoftmaxFlops = 5;  // per score: scale, max, exp, sum, divide
constexpr double kSwiGluFlops = 5;   // per inner element: silu (negate, exp, add, divide), product
// Per vocabulary entry, sampling: a temperature divide, a softmax (5) and about two comparisons
// to select the candidates (top-k / top-p / argmax). Penalties touch only the history: ignored.
constexpr double kSamplingFlops = 8;

// A tensor of the step's tokens in the architecture's layout: ChatGLM puts the sequence first
// ([seq, batch, ...], as its modelling code does), LLaMA the batch ([batch, seq, ...]).
std::vector<int64_t> tokenShape(const ModelConfig& c, int64_t tokens,
                                std::initializer_list<int64_t> features) {
    const bool sequenceFirst = c.architecture == "chatglm";
    std::vector<int64_t> shape;
    shape.reserve(2 + features.size());
    shape.push_back(sequenceFirst ? tokens : 1);
    shape.push_back(sequenceFirst ? 1 : tokens);
    for (const int64_t feature : features)
        shape.push_back(feature);
    return shape;
}

StageCost rmsNormCost(Stage stage, const ModelConfig& c, int64_t tokens, double bytesPerWeight) {
    const double elements = double(tokens) * double(c.hiddenSize);
    return {stage,
            "hidden states",
            tokenShape(c, tokens, {c.hiddenSize}),
            kNormFlops * elements,
            double(c.hiddenSize) * bytesPerWeight,
            2 * elements * kFloat};
}

// hidden += block output: one addition per element, two tensors read, one written.
StageCost residualCost(Stage stage, const ModelConfig& c, int64_t tokens) {
    const double elements = double(tokens) * double(c.hiddenSize);
    return {stage, "hidden states",      tokenShape(c, tokens, {c.hiddenSize}), elements,
            0,     3 * elements * kFloat};
}

std::vector<StageCost> stageCosts(const ModelConfig& c, int64_t tokens, int64_t firstPosition,
                                  double b) {
    const double T = double(tokens), H = double(c.hiddenSize), Q = double(c.queryWidth()),
                 KV = double(c.kvWidth()), F = double(c.ffnSize), V = double(c.vocabSize),
                 heads = double(c.headCount), D = double(c.headDim);
    const double keyVisits = T * double(firstPosition) + T * (T + 1) / 2;
    const double qkvWidth = Q + 2 * KV;
    const double bias = c.qkvBias ? 1 : 0;
    const int64_t keys = firstPosition + tokens;

    std::vector<StageCost> stages;
    stages.push_back({Stage::Embedding, "hidden states", tokenShape(c, tokens, {c.hiddenSize}), 0,
                      T * H * b, T * H * kFloat});
    stages.push_back(rmsNormCost(Stage::AttentionNorm, c, tokens, b));
    stages.push_back({Stage::QkvProjection, "query",
                      tokenShape(c, tokens, {c.headCount, c.headDim}),
                      2 * T * H * qkvWidth + bias * T * qkvWidth, (H + bias) * qkvWidth * b,
                      (T * H + T * qkvWidth) * kFloat, 2 * T * H * qkvWidth});
    // Query and key rotate in place; the rotated key and the value then enter the cache, so the
    // shape shown is theirs.
    stages.push_back({Stage::Rope, "key/value", tokenShape(c, tokens, {c.kvHeadCount, c.headDim}),
                      kRopeFlops * T * double(c.headCount + c.kvHeadCount) * double(c.ropeDims) / 2,
                      0, (2 * T * (Q + KV) + 2 * T * KV) * kFloat});
    // Both architectures' modelling code hold the scores as [batch, heads, queries, keys].
    stages.push_back({Stage::ScoresSoftmax,
                      "attention scores",
                      {1, c.headCount, tokens, keys},
                      keyVisits * heads * (2 * D + kSoftmaxFlops),
                      0,
                      (T * Q + keyVisits * KV + keyVisits * heads) * kFloat});
    stages.push_back({Stage::WeightedSum, "attention output",
                      tokenShape(c, tokens, {c.queryWidth()}), 2 * keyVisits * heads * D, 0,
                      (keyVisits * heads + keyVisits * KV + T * Q) * kFloat});
    stages.push_back({Stage::OutputProjection, "hidden states",
                      tokenShape(c, tokens, {c.hiddenSize}), 2 * T * Q * H, Q * H * b,
                      (T * Q + T * H) * kFloat, 2 * T * Q * H});
    stages.push_back(residualCost(Stage::ResidualAttention, c, tokens));
    stages.push_back(rmsNormCost(Stage::FfnNorm, c, tokens, b));
    // Gate and up ([F, H] each), SiLU and product, down ([H, F]); gate and up are written and read
    // back, and so is their product.
    stages.push_back({Stage::SwiGluMlp, "MLP hidden", tokenShape(c, tokens, {c.ffnSize}),
                      2 * T * H * 2 * F + 2 * T * F * H + kSwiGluFlops * T * F, 3 * H * F * b,
                      (2 * T * H + 6 * T * F) * kFloat, 2 * T * 3 * H * F});
    stages.push_back(residualCost(Stage::ResidualMlp, c, tokens));
    stages.push_back(rmsNormCost(Stage::FinalNorm, c, 1, b));
    // [1, 1, V] in both layouts: one sequence, one (the last) token.
    stages.push_back({Stage::LmHead,
                      "logits",
                      {1, 1, c.vocabSize},
                      2 * V * H,
                      V * H * b,
                      (H + V) * kFloat,
                      2 * V * H});
    stages.push_back({Stage::Sampling,
                      "logits",
                      {1, 1, c.vocabSize},
                      kSamplingFlops * V,
                      0,
                      2 * V * kFloat});  // the logits read, the probabilities written
    return stages;
}

}  // namespace

const char* stageName(Stage stage) {
    switch (stage) {
        case Stage::Embedding:
            return "embedding";
        case Stage::AttentionNorm:
            return "attention_norm";
        case Stage::QkvProjection:
            return "qkv_projection";
        case Stage::Rope:
            return "rope";
        case Stage::ScoresSoftmax:
            return "scores_softmax";
        case Stage::WeightedSum:
            return "weighted_sum";
        case Stage::OutputProjection:
            return "output_projection";
        case Stage::ResidualAttention:
            return "residual_attention";
        case Stage::FfnNorm:
            return "ffn_norm";
        case Stage::SwiGluMlp:
            return "swiglu_mlp";
        case Stage::ResidualMlp:
            return "residual_mlp";
        case Stage::FinalNorm:
            return "final_norm";
        case Stage::LmHead:
            return "lm_head";
        case Stage::Sampling:
            return "sampling";
    }
    return "unknown";
}

bool stageRepeatsPerLayer(Stage stage) {
    return stage >= Stage::AttentionNorm && stage <= Stage::ResidualMlp;
}

const StageCost& StepCosts::stage(Stage id) const {
    const auto found = std::find_if(stages.begin(), stages.end(),
                                    [id](const StageCost& cost) { return cost.stage == id; });
    if (found == stages.end())
        throw Error(std::string("no costs for stage ") + stageName(id));
    return *found;
}

StepCosts stepCosts(const ModelConfig& config, int64_t tokens, int64_t firstPosition,
                    double bytesPerWeight) {
    if (tokens < 1 || firstPosition < 0 || bytesPerWeight <= 0)
        throw Error("step costs need at least one token, a position ≥ 0 and weight bytes > 0");
    StepCosts costs;
    costs.tokens = tokens;
    costs.firstPosition = firstPosition;
    costs.stages = stageCosts(config, tokens, firstPosition, bytesPerWeight);
    const auto layers = double(config.layerCount);
    double onceFlops = 0, onceBytes = 0;
    for (const StageCost& stage : costs.stages) {
        const bool perLayer = stageRepeatsPerLayer(stage.stage);
        (perLayer ? costs.flopsPerLayer : onceFlops) += stage.flops;
        (perLayer ? costs.bytesPerLayer : onceBytes) += stage.bytes();
        const double times = perLayer ? layers : 1;
        costs.weightBytes += times * stage.weightBytes;
        costs.productFlops += times * stage.productFlops;
    }
    costs.flops = layers * costs.flopsPerLayer + onceFlops;
    costs.bytes = layers * costs.bytesPerLayer + onceBytes;
    return costs;
}

int64_t kvBytesPerToken(const ModelConfig& config, int64_t bytesPerValue, bool fullMultiHead) {
    const int64_t kvHeads = fullMultiHead ? config.headCount : config.kvHeadCount;
    return config.layerCount * 2 * kvHeads * config.headDim * bytesPerValue;  // 2: K and V
}

std::string formatShape(const std::vector<int64_t>& shape) {
    std::string text = "[";
    for (size_t i = 0; i < shape.size(); ++i)
        text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + "]";
}

}  // namespace inferlens
