#pragma once
// The tokenizer.ggml.* keys of a GGUF file: reading them (only sentencepiece-style "llama"
// vocabularies are supported) and writing them.

#include <optional>
#include <string>
#include <vector>

#include "io/gguf_value.h"
#include "tokenizer/sentencepiece_model.h"

namespace inferlens {

class GgufFile;

struct GgufVocabulary {
    std::vector<VocabEntry> entries;  // by token id
    int64_t bosId = -1;
    int64_t eosId = -1;
    bool addBos = false;
    bool addSpacePrefix = true;
    bool removeExtraWhitespaces = false;
};

// nullopt when the file has no tokenizer.ggml.model key. Throws Error naming the file for a
// vocabulary of an unsupported kind (e.g. "gpt2") or malformed token arrays.
std::optional<GgufVocabulary> readGgufVocabulary(const GgufFile& file);
std::vector<GgufKeyValue> ggufVocabularyMetadata(const GgufVocabulary& vocabulary);

}  // namespace inferlens
