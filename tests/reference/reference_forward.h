#pragma once
// An independent oracle for the engine's logits: a plain-loop, double-precision forward pass over a
// Hugging Face model directory (config.json + model.safetensors, or a sharded index). It shares no
// code with the engine — it parses config.json and safetensors itself and decodes f16/bf16 itself —
// so that a mistake in the engine's loaders, converters or kernels cannot also hide here.
//
// The whole sequence is computed at once with a causal mask (no KV cache), layer by layer,
// following the PyTorch modelling code of each architecture (transformers' modeling_llama.py and
// THUDM's modeling_chatglm.py). Supported: model_type "llama" and "chatglm" (ChatGLM2/3).

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace inferlens::reference {

// Every failure (missing file or tensor, bad header, unsupported configuration) throws this, with a
// message naming the file or tensor concerned.
class ReferenceError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// How RoPE pairs the dimensions of a head.
enum class RopePairing {
    RotateHalf,  // HF LLaMA: pairs (i, i + d/2)
    Adjacent,    // ChatGLM: pairs (2i, 2i + 1)
};

struct ReferenceOptions {
    // Replaces the architecture's own pairing. Only for negative tests: it computes a deliberately
    // wrong model, to prove that a comparison can tell the pairings apart.
    std::optional<RopePairing> forceRopePairing;
    // Rounds the input of every product with a weight matrix stored as F16 or BF16 (the
    // projections, the FFN, the LM head; not attention's own products) to the nearest value of
    // that type, ties to even: what the engine does, as a model run in that type does.
    bool roundInputsToWeightType = false;
};

// Logits [ids.size()][vocab] for the ids placed at positions 0, 1, 2, ...
std::vector<std::vector<double>> referenceLogits(const std::string& hfDirectory,
                                                 const std::vector<int32_t>& ids,
                                                 const ReferenceOptions& options = {});

// The logit lens, independently: for every layer l, the logits [vocab] that the final norm and the
// LM head give for the last id's hidden state (the residual stream) after layer l.
std::vector<std::vector<double>> referenceLayerLogits(const std::string& hfDirectory,
                                                      const std::vector<int32_t>& ids);

// x rounded to the nearest value of a weight type, ties to even: "F16" (binary16: 11 significant
// bits, subnormals, infinite past 65504) or "BF16" (8 significant bits); any other type: x.
double roundToStoredType(double x, const std::string& storedAs);

// Exact decodings of IEEE binary16 and bfloat16 bit patterns.
double halfToDouble(uint16_t bits);
double bfloat16ToDouble(uint16_t bits);

}  // namespace inferlens::reference
