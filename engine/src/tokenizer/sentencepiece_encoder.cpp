#include "tokenizer/sentencepiece_encoder.h"

#include <sentencepiece_processor.h>

#include "core/error.h"

namespace inferlens {

SentencePieceEncoder::SentencePieceEncoder(
    std::shared_ptr<const sentencepiece::SentencePieceProcessor> processor, std::string source)
    : processor_(std::move(processor)), source_(std::move(source)) {}

std::vector<EncodedToken> SentencePieceEncoder::encode(std::string_view text) const {
    sentencepiece::ImmutableSentencePieceText encoded;
    const auto status = processor_->Encode(text, encoded.mutable_proto());
    if (!status.ok())
        throw Error(source_ + ": sentencepiece could not encode the text (" + status.ToString() +
                    ")");
    std::vector<EncodedToken> tokens;
    // sentencepiece gives the whole character's span to the last byte piece of a character and
    // empty spans to the ones before it; `firstByte` is the first of such a run.
    constexpr size_t kNone = size_t(-1);
    size_t firstByte = kNone;
    for (const auto& piece : encoded.pieces()) {
        tokens.push_back({int32_t(piece.id()), piece.begin(), piece.end()});
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
        const size_t begin = tokens[index].begin;
        if (tokens[index].end - begin == count)
            for (size_t i = 0; i < count; ++i) {
                tokens[firstByte + i].begin = begin + i;
                tokens[firstByte + i].end = begin + i + 1;
            }
        firstByte = kNone;
    }
    return tokens;
}

}  // namespace inferlens
