#pragma once
// User-defined tokens (GGUF token type 4, Hugging Face added tokens that are not special) that are
// text are matched whole in the raw text before the vocabulary's algorithm sees it, longest first,
// as llama.cpp partitions text (tokenizer_st_partition): Gemma's "   " and "\n\n" runs,
// DeepSeek's "ø". The other user-defined tokens are markers (command-r's
// <|START_OF_TURN_TOKEN|>, Qwen's <think>, StarCoder's <fim_prefix>): special tokens, which text a
// person types never becomes, unlike in llama.cpp (which matches every user-defined token). Control
// tokens are not matched either.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizer/sentencepiece_model.h"

namespace inferlens {

// Whether a user-defined piece is text rather than a marker: a run of whitespace or a single
// character.
bool isTextPiece(std::string_view piece);

struct TextFragment {
    size_t begin = 0;
    size_t end = 0;
    int32_t token = -1;  // a user-defined token, or -1 for text still to encode
};

class UserDefinedTokens {
  public:
    explicit UserDefinedTokens(const std::vector<VocabEntry>& entries);
    // The text cut into user-defined tokens and the stretches between them, in order.
    std::vector<TextFragment> partition(std::string_view text) const;

  private:
    std::vector<std::pair<std::string, int32_t>> tokens_;  // the text pieces, longest first
};

}  // namespace inferlens
