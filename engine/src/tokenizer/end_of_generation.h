#pragma once
// The tokens that end a model's turn. Files declare eos, and GGUF also eot and eom; many
// conversions declare only one of them, so llama.cpp also recognises such tokens by name
// (<|eot_id|>, <|im_end|>, <end_of_turn>, ...). We follow it, so that generation stops where it
// does in llama.cpp.

#include <cstdint>
#include <string_view>
#include <vector>

#include "tokenizer/sentencepiece_model.h"

namespace inferlens {

bool isEndOfGenerationName(std::string_view piece);

// `declared` (eos, eot, eom; -1 for absent) in that order, then every other entry whose piece is
// an end-of-generation name, each once.
std::vector<int32_t> endOfGenerationIds(const std::vector<VocabEntry>& entries,
                                        const std::vector<int64_t>& declared);

}  // namespace inferlens
