#pragma once
// The tokenizer.ggml.* keys of a GGUF file: reading them (sentencepiece "llama" vocabularies and
// byte-level BPE "gpt2" ones) and writing them.

#include <optional>
#include <string>
#include <vector>

#include "io/gguf_value.h"
#include "tokenizer/pre_tokenizer_table.h"
#include "tokenizer/sentencepiece_model.h"

namespace inferlens {

class GgufFile;

enum class VocabularyKind { SentencePiece, ByteLevelBpe };

struct GgufVocabulary {
    VocabularyKind kind = VocabularyKind::SentencePiece;
    std::vector<VocabEntry> entries;  // by token id
    std::vector<std::string> merges;  // byte-level BPE: "left right", in priority order
    std::string preTokenizer;  // byte-level BPE: tokenizer.ggml.pre ("" = llama.cpp's default)
    PreTokenizerSpec preTokenizerSpec;  // its expressions (or those of a tokenizer.json)
    int64_t bosId = -1;
    int64_t eosId = -1;
    int64_t eotId = -1;  // end of turn and end of message, where the file declares them
    int64_t eomId = -1;
    // When the file omits add_bos_token: true for sentencepiece, and for BPE as llama.cpp decides
    // by the pre-tokenizer (Llama 3 yes, Qwen2 no).
    bool addBos = false;
    bool addSpacePrefix = true;
    bool removeExtraWhitespaces = false;
};

// nullopt when the file has no tokenizer.ggml.model key. Throws Error naming the file and the key
// for a vocabulary of an unsupported kind, an unknown pre-tokenizer, malformed token arrays or
// out-of-range special ids.
std::optional<GgufVocabulary> readGgufVocabulary(const GgufFile& file);
std::vector<GgufKeyValue> ggufVocabularyMetadata(const GgufVocabulary& vocabulary);

}  // namespace inferlens
