#pragma once
// The sentencepiece library as a TextEncoder, with byte pieces given one byte of the text each.

#include <memory>
#include <string>

#include "tokenizer/text_encoder.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace inferlens {

class SentencePieceEncoder final : public TextEncoder {
  public:
    SentencePieceEncoder(std::shared_ptr<const sentencepiece::SentencePieceProcessor> processor,
                         std::string source);
    std::vector<EncodedToken> encode(std::string_view text) const override;

  private:
    std::shared_ptr<const sentencepiece::SentencePieceProcessor> processor_;
    std::string source_;
};

}  // namespace inferlens
