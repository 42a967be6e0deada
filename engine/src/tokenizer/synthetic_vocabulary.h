#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tokenizer/sentencepiece_model.h"

namespace inferlens {

// A valid sentencepiece BPE vocabulary of exactly `pieceCount` pieces laid out like LLaMA's and
// ChatGLM2's: 0 <unk>, 1 <s>, 2 </s>, 3..258 the byte pieces, then "▁", common English words and
// letters, and longer pieces, each reachable by merging two earlier pieces. At least 260 pieces.
// `reserved`: pieces that must not appear (the special tokens appended after the pieces, e.g.
// ChatGLM's "sop", which a large vocabulary would otherwise also build from letters).
std::vector<VocabEntry> syntheticVocabulary(int64_t pieceCount,
                                            const std::vector<std::string>& reserved = {});

}  // namespace inferlens
