#pragma once
// The sentencepiece library as a TextEncoder, with byte pieces given one byte of the text each.
// User-defined tokens are matched in the raw text first and sentencepiece encodes the stretches
// between them, each with its dummy-prefix space, as llama.cpp does: sentencepiece itself would
// look for them only in its normalised text, where Gemma's "   " token (three spaces) never
// appears.

#include <memory>
#include <string>

#include "tokenizer/text_encoder.h"
#include "tokenizer/user_defined_tokens.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace inferlens {

class SentencePieceEncoder final : public TextEncoder {
  public:
    SentencePieceEncoder(std::shared_ptr<const sentencepiece::SentencePieceProcessor> processor,
                         const std::vector<VocabEntry>& entries, std::string source);
    std::vector<EncodedToken> encode(std::string_view text) const override;

  private:
    // Appends the tokens of text[begin, end), a stretch without user-defined tokens.
    void encodeStretch(std::string_view text, size_t begin, size_t end,
                       std::vector<EncodedToken>& tokens) const;

    std::shared_ptr<const sentencepiece::SentencePieceProcessor> processor_;
    UserDefinedTokens userDefined_;
    std::string source_;
};

}  // namespace inferlens
