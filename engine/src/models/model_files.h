#pragma once
// Opening a model the way users download it — one GGUF file, or a Hugging Face directory
// (config.json + safetensors, optionally sharded, + tokenizer.model) — and validating all of it:
// configuration, every tensor's presence, type, shape and bytes, and the tokenizer. The result maps
// the engine's canonical (GGUF) tensor names to zero-copy views and keeps the mappings alive.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "models/architecture.h"
#include "models/model_config.h"
#include "tokenizer/gguf_vocabulary.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace inferlens {

enum class ModelFormat { Gguf, HuggingFace };

struct ModelFiles {
    std::string path;  // as given: the GGUF file or the directory
    ModelFormat format = ModelFormat::Gguf;
    const Architecture* architecture = nullptr;
    ModelConfig config;
    std::map<std::string, TensorView>
        tensors;                             // by canonical (GGUF) name; only those the model uses
    std::vector<std::string> unusedTensors;  // present in the files but not part of the model
    std::vector<std::string> weightFiles;

    // The vocabulary by token id, specials appended after the pieces included (ChatGLM), and the
    // number of pieces at its start. Absent when the model ships no tokenizer. `tokenizer` is the
    // sentencepiece processor of a sentencepiece vocabulary (null for byte-level BPE, which the
    // Tokenizer builds from `vocabulary`).
    std::optional<GgufVocabulary> vocabulary;
    int64_t pieceCount = 0;
    std::shared_ptr<sentencepiece::SentencePieceProcessor> tokenizer;

    // Hints for choosing a chat template: the model's name (GGUF general.name, or config.json's
    // _name_or_path) and its Jinja chat template (GGUF tokenizer.chat_template, or
    // tokenizer_config.json's chat_template), empty when absent.
    std::string modelName;
    std::string chatTemplate;

    // Opened by openTokenizerFiles from a GGUF file that has no tensors (llama.cpp's
    // ggml-vocab-*.gguf): a vocabulary, no model.
    bool vocabularyOnly = false;

    std::vector<std::shared_ptr<const void>> owners;  // the mapped files the views point into

    int64_t parameterCount() const;
    int64_t weightBytes() const;
};

// Throws Error whose message names the offending file and the problem.
ModelFiles openModelFiles(const std::string& path);

// Only what tokenizing needs. For a GGUF file: its vocabulary and chat hints, with no tensor read
// or checked, so a vocabulary-only file works whatever architecture it names (`architecture` is
// set only where InferLens knows it, for ChatGLM's specials). A directory opens as openModelFiles.
ModelFiles openTokenizerFiles(const std::string& path);

// Whether `path` is a GGUF file without tensors (only a vocabulary); false for anything else,
// including files that do not open (openModelFiles then says why).
bool isVocabularyOnlyGguf(const std::string& path);

}  // namespace inferlens
