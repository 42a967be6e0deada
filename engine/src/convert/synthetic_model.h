#pragma once
// Random-weight models of any shape, for tests and benchmarks: deterministic for a seed, with a
// valid sentencepiece tokenizer, written as GGUF or as a Hugging Face directory. The same seed
// gives the same model in both formats.

#include <cstdint>
#include <string>

#include "core/dtype.h"
#include "models/model_files.h"

namespace inferlens {

struct SyntheticModelOptions {
    std::string architecture = "llama";  // chatglm, llama, qwen2, qwen3 or gemma3
    int64_t layers = 2;
    int64_t hidden = 64;
    int64_t heads = 4;
    int64_t kvHeads = 2;
    int64_t headDim = 0;  // 0: hidden / heads
    int64_t ffn = 128;
    int64_t vocab = 320;
    int64_t context = 256;
    double ropeBase = 10000.0;
    bool tiedOutput = false;  // not ChatGLM: the output layer reuses the token embedding
    // RoPE scaling (llama, qwen2, qwen3; gemma3: linear only): "none", "linear" (positions /
    // ropeFactor) or "llama3" (factor ropeFactor, low 1, high 4, original context ropeOriginal).
    std::string ropeScaling = "none";
    double ropeFactor = 8.0;
    int64_t ropeOriginalContext = 64;
    // Gemma 3: local layers' window (0: none), one global layer every slidingPattern layers,
    // the local layers' RoPE base, final logit soft-capping (0: none).
    int64_t slidingWindow = 8;
    int64_t slidingPattern = 6;
    double localRopeBase = 10000.0;
    double finalLogitSoftcap = 0.0;
    DType dtype = DType::F32;
    uint64_t seed = 1;
    ModelFormat format = ModelFormat::Gguf;
};

void writeSyntheticModel(const SyntheticModelOptions& options, const std::string& path);

}  // namespace inferlens
