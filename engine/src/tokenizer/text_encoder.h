#pragma once
// What the Tokenizer asks of a vocabulary's algorithm: plain text in, token ids out, each with the
// bytes of the text it stands for. Two implementations: sentencepiece (LLaMA-2, ChatGLM, Gemma)
// and byte-level BPE (GPT-2, Llama 3, Qwen2, SmolLM, ...).

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace inferlens {

struct EncodedToken {
    int32_t id = 0;
    size_t begin = 0;  // [begin, end): bytes of the encoded text
    size_t end = 0;
};

class TextEncoder {
  public:
    virtual ~TextEncoder() = default;
    // Control tokens' names and user-defined markers (<|START_OF_TURN_TOKEN|>) in `text` are
    // plain text; user-defined text pieces (Gemma's "\n\n") are matched whole, as sentencepiece
    // and llama.cpp do (see UserDefinedTokens). Throws Error naming the model on what the
    // vocabulary cannot encode.
    virtual std::vector<EncodedToken> encode(std::string_view text) const = 0;
};

}  // namespace inferlens
