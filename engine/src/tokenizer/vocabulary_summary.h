#pragma once
// One line that says what tokenizer a model has, for `inferlens-cli info` and the app.

#include <string>

namespace inferlens {

struct ModelFiles;

// "sentencepiece, 32000 pieces + 0 more ids (loaded)", "byte-level BPE, 49152 tokens, 48900
// merges, pre-tokenizer 'smollm'", or "none in this model"; then whether inputs start with BOS.
std::string vocabularySummary(const ModelFiles& files);

}  // namespace inferlens
