#include "tokenizer/sentencepiece_encoder.h"

#include <sentencepiece_processor.h>

#include "core/error.h"

namespace inferlens {

SentencePieceEncoder::SentencePieceEncoder(
    std::shared_ptr<const sentencepiece::SentencePieceProcessor> processor,
    const std::vector<VocabEntry>& entries, std::string source)
    : processor_(std::move(processor)), userDefined_(entries), source_(std::move(source)) {}

std::vector<EncodedToken> SentencePieceEncoder::encode(std::string_view text) const {
    std::vector<EncodedToken> tokens;
    for (const TextFragment& fragment : userDefined_.partition(text)) {
        if (fragment.token >= 0)
            tokens.push_back({fragment.token, fragment.begin, fragment.end});
        else
            encodeStretch(text, fragment.begin, fragment.end, tokens);
    }
    return tokens;
}

void SentencePieceEncoder::encodeStretch(std::string_view text, size_t begin, size_t end,
                                         std::vector<EncodedToken>& tokens) const {
    sentencepiece::ImmutableSentencePieceText encoded;
    const auto status =
        processor_->Encode(text.substr(begin, end - begin), encoded.mutable_proto());
    if (!status.ok())
        throw Error(source_ + ": sentencepiece could not encode the text (" + status.ToString() +
                    ")");
    // sentencepiece gives the whole character's span to the last byte piece of a character and
    // empty spans to the ones before it; `firstByte` is the first of such a run.
    constexpr size_t kNone = size_t(-1);
    size_t firstByte = kNone;
    for (const auto& piece : encoded.pieces()) {
        tokens.push_back({int32_t(piece.id()), begin + piece.begin(), begin + piece.end()});
        const size_t index = tokens.size() - 1;
        if (!processor_->IsByte(int(piece.id()))) {
            firstByte = kNone;
            continue;
        }
        if (firstByte == kNone)
            firstByte = index;
        if (piece.begin() == piece.end())
            continue;  // more byte pieces of this character follow
        const size_t count = index - firstByte + 1;
        const size_t characterBegin = tokens[index].begin;
        if (tokens[index].end - characterBegin == count)
            for (size_t i = 0; i < count; ++i) {
                tokens[firstByte + i].begin = characterBegin + i;
                tokens[firstByte + i].end = characterBegin + i + 1;
            }
        firstByte = kNone;
    }
}

}  // namespace inferlens
