#pragma once
// Writing a model as a GGUF file or a Hugging Face directory (config.json, model.safetensors,
// tokenizer.model). `synth` and `convert` both describe the model in the engine's canonical form —
// GGUF tensor names, adjacent-pair RoPE rows — and this writer lays it out for the chosen format.
// Q8_0/Q4_0 exist only in GGUF: a Hugging Face directory refuses them, and in GGUF they apply to
// 2-D tensors only (1-D stay f32), whose rows must be whole 32-value blocks.

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "models/architecture.h"
#include "models/model_files.h"

namespace inferlens {

struct WeightSource {
    std::string name;  // canonical (GGUF) name
    std::vector<int64_t> shape;
    DType dtype =
        DType::F32;  // stored type (1-D tensors are always f32 in GGUF, as llama.cpp does)
    std::function<void(std::span<float>)> values;  // fills all elements, row-major
};

struct ModelToWrite {
    const Architecture* architecture = nullptr;
    // Sources are canonical (GGUF: adjacent-pair Q/K rows for LLaMA, Gemma norms as 1 + w), so
    // ropePairing and normWeightOffset are ignored.
    ModelConfig config;
    std::vector<WeightSource> weights;
    std::optional<GgufVocabulary> vocabulary;  // every id, specials after the pieces included
    int64_t pieceCount = 0;  // sentencepiece pieces at the start of the vocabulary
    std::string name;
    std::string chatTemplate;  // Jinja, as GGUF tokenizer.chat_template; empty when unknown
};

void writeModel(const ModelToWrite& model, ModelFormat format, const std::string& path);

}  // namespace inferlens
