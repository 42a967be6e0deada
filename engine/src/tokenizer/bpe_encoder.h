#pragma once
// Byte-level BPE (GPT-2 and its descendants): the text is cut into user-defined tokens and the
// rest; the rest into words by the pre-tokenizer's regular expressions; each word is spelt in the
// byte-level alphabet, one symbol per byte, and adjacent symbols are merged, always the pair whose
// merge comes first in the vocabulary's merge list, until no listed merge applies. A final symbol
// that is not a token becomes one byte token per byte.

#include <array>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "tokenizer/pre_tokenizer_table.h"
#include "tokenizer/regex_splitter.h"
#include "tokenizer/sentencepiece_model.h"
#include "tokenizer/text_encoder.h"
#include "tokenizer/user_defined_tokens.h"

namespace inferlens {

struct BpeVocabulary {
    std::vector<VocabEntry> entries;  // by id; pieces of normal tokens in the byte-level alphabet
    std::vector<std::string> merges;  // "left right", in priority order
    PreTokenizerSpec preTokenizer;
};

class BpeEncoder final : public TextEncoder {
  public:
    // Throws Error naming `source` for a merge without its separating space or a pre-tokenizer
    // expression that does not compile.
    BpeEncoder(const BpeVocabulary& vocabulary, std::string source);
    std::vector<EncodedToken> encode(std::string_view text) const override;

  private:
    // Appends the tokens of text[begin, end), a word of the pre-tokenizer.
    void encodeWord(std::string_view text, size_t begin, size_t end,
                    std::vector<EncodedToken>& out) const;
    int32_t byteToken(uint8_t byte) const;

    std::unordered_map<std::string, int32_t> idOf_;
    std::unordered_map<std::string, int32_t> mergeRank_;  // by "left right"
    UserDefinedTokens userDefined_;
    std::array<int32_t, 256> byteTokens_{};  // -1 where the vocabulary has none
    int32_t unknownId_ = -1;
    bool ignoreMerges_ = false;
    std::unique_ptr<RegexSplitter> splitter_;
    std::string source_;
};

}  // namespace inferlens
