#pragma once
// A Hugging Face tokenizer.json with a byte-level BPE model (GPT-2, Llama 3, Qwen2, SmolLM, ...)
// read into the same vocabulary as a GGUF "gpt2" one: model.vocab and model.merges; added_tokens
// (special ones as control tokens, the others user-defined); the pre-tokenizer's expressions
// (ByteLevel with its GPT-2 expression, Split with a Regex or String pattern and the "Isolated"
// behaviour, Digits, and Sequence of these); and BOS from the post-processor's template, unless
// tokenizer_config.json's add_bos_token says otherwise. tokenizer_config.json also names bos_token
// and eos_token. The NFC normaliser some files declare is not applied, as llama.cpp does not.

#include <string>

#include "tokenizer/gguf_vocabulary.h"

namespace inferlens {

// `configPath`: tokenizer_config.json, or empty when the directory has none. Throws Error naming
// the file and the JSON key on what it cannot read or does not support.
GgufVocabulary readHfTokenizerJson(const std::string& path, const std::string& configPath);

// The same from the documents' text (the fuzz target's entry).
GgufVocabulary parseHfTokenizerJson(std::string_view tokenizerJson, std::string_view configJson,
                                    const std::string& path);

}  // namespace inferlens
