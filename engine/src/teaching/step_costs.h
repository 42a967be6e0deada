#pragma once
// The tensors of one step of the outer loop, stage by stage: their shapes and what each stage
// costs in arithmetic and in memory traffic, computed from the configuration alone (no weights).
// The guided tour quotes these figures and the shapes-and-costs table lists them; comparing a
// decode step (one token: every weight read for two FLOPs each, memory-bound) with a prefill (many
// tokens share each weight read, compute-bound) is the lesson.

#include <cstdint>
#include <string>
#include <vector>

#include "models/model_config.h"

namespace inferlens {

// Stable ids, in execution order. The block's stages (attention_norm .. residual_mlp) repeat in
// every layer; the others run once per step.
enum class Stage {
    Embedding,          // token ids → hidden states (a row lookup)
    AttentionNorm,      // RMSNorm before attention
    QkvProjection,      // hidden → query, key, value (with bias for ChatGLM)
    Rope,               // rotary position embedding of query and key
    ScoresSoftmax,      // query · keyᵀ / √d over every cached position, causal mask, softmax
    WeightedSum,        // softmax weights · values
    OutputProjection,   // heads → hidden
    ResidualAttention,  // hidden += attention output
    FfnNorm,            // RMSNorm before the MLP
    SwiGluMlp,          // down(silu(gate(x)) ⊙ up(x))
    ResidualMlp,        // hidden += MLP output
    FinalNorm,          // RMSNorm after the last layer
    LmHead,             // hidden → logits over the vocabulary (the step's last token only)
    Sampling,           // logits → next token
};
const char* stageName(Stage stage);  // "embedding", "attention_norm", ... (snake_case of the enum)
bool stageRepeatsPerLayer(Stage stage);

struct StageCost {
    Stage stage;
    std::string tensor;          // what `shape` describes: "hidden states", "query", "key/value",
                                 // "attention scores", "attention output", "MLP hidden", "logits"
    std::vector<int64_t> shape;  // in the architecture's PyTorch layout: ChatGLM [seq, batch, ...],
                                 // LLaMA [batch, seq, ...]; batch is 1
    double flops = 0;            // for all of the step's tokens; per layer for repeating stages
    double weightBytes = 0;      // weights read (bytesPerWeight each)
    double activationBytes = 0;  // activations and KV cache read and written (f32, 4 bytes each)
    // The part of `flops` in products with weight matrices: int8 multiply-adds (2 FLOPs each) on
    // the CPU for the block types, what machine_limits.h's int8 peak bounds.
    double productFlops = 0;
    double bytes() const { return weightBytes + activationBytes; }
};

struct StepCosts {
    int64_t tokens = 0;             // tokens this step runs (the prompt's length, or 1)
    int64_t firstPosition = 0;      // positions already in the KV cache
    std::vector<StageCost> stages;  // one per Stage, in order
    double flopsPerLayer = 0, bytesPerLayer = 0;  // sums of the repeating stages
    double flops = 0, bytes = 0;  // the whole step: layers × per-layer + the once-per-step stages
    double weightBytes = 0, productFlops = 0;  // the whole step's, likewise
    // FLOPs per byte moved: ~1 for a decode step with f16 weights (memory-bound), hundreds for a
    // long prefill (compute-bound).
    double intensity() const { return bytes > 0 ? flops / bytes : 0; }
    const StageCost& stage(Stage id) const;
};

// `bytesPerWeight`: 2 for f16/bf16, 4 for f32, ~1.06 for Q8_0, ~0.56 for Q4_0 (the model's weight
// bytes over its parameter count is a good value).
StepCosts stepCosts(const ModelConfig& config, int64_t tokens, int64_t firstPosition,
                    double bytesPerWeight);

// Bytes the KV cache holds per token: every layer's keys and values at `bytesPerValue` each (2 for
// fp16); with `fullMultiHead`, as if every query head had its own K/V head (no MQA/GQA sharing).
// ChatGLM2-6B at fp16: 28 KiB, and 448 KiB with a full multi-head cache.
int64_t kvBytesPerToken(const ModelConfig& config, int64_t bytesPerValue,
                        bool fullMultiHead = false);

// "[17, 1, 4096]"
std::string formatShape(const std::vector<int64_t>& shape);

}  // namespace inferlens
