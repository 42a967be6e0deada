#pragma once
// User-defined tokens (GGUF token type 4, Hugging Face added tokens that are not special) are
// matched whole in the raw text before the vocabulary's algorithm sees it, longest first, as
// llama.cpp partitions text (tokenizer_st_partition): Gemma's "   " and "\n\n" runs, StarCoder's
// "<fim_prefix>". Control tokens are not matched: text a person types never becomes one.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizer/sentencepiece_model.h"

namespace inferlens {

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
    std::vector<std::pair<std::string, int32_t>> tokens_;  // longest first
};

}  // namespace inferlens
