#pragma once
// The pre-tokenizers that GGUF files name in tokenizer.ggml.pre: for each, the regular expressions
// that cut text into words before BPE runs on each word, and the settings llama.cpp ties to the
// name (learnt from llama.cpp's src/llama-vocab.cpp and the models' tokenizer.json files).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inferlens {

// GPT-2's expression, shared by many later vocabularies; Hugging Face's ByteLevel pre-tokenizer
// applies it with use_regex.
inline constexpr std::string_view kGpt2Expression =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))";

struct PreTokenizerSpec {
    std::vector<std::string> expressions;  // applied in turn (see RegexSplitter)
    // A word that is a token of its own is taken whole, without merging (Llama 3's tokenizer.json
    // sets ignore_merges).
    bool ignoreMerges = false;
    // Whether to start every input with BOS when the file has no tokenizer.ggml.add_bos_token.
    bool addBosByDefault = false;
};

// nullopt for a name we do not know. An empty name is llama.cpp's "default" (with its warning
// that such old conversions tokenize less well).
std::optional<PreTokenizerSpec> preTokenizerByName(std::string_view name);

// Every name preTokenizerByName knows, for messages.
std::string knownPreTokenizerNames();

}  // namespace inferlens
