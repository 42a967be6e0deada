#include "tokenizer/tokenizer.h"

#include <sentencepiece_processor.h>

#include <algorithm>

#include "core/error.h"
#include "models/model_files.h"
#include "tokenizer/sentencepiece_proto_reader.h"
#include "tokenizer/streaming_detokenizer.h"

namespace inferlens {

std::vector<int32_t> TokenizationInfo::ids() const {
    std::vector<int32_t> result;
    result.reserve(tokens.size());
    for (const TokenInfo& token : tokens)
        result.push_back(token.id);
    return result;
}

Tokenizer::Tokenizer(const ModelFiles& files) : processor_(files.tokenizer), source_(files.path) {
    if (!processor_)
        throwFileError(files.path,
                       "the model has no tokenizer (no tokenizer.ggml.* keys in a GGUF file, no "
                       "tokenizer.model in a Hugging Face directory)");
    if (files.vocabulary) {
        entries_ = files.vocabulary->entries;
        if (files.vocabulary->bosId >= 0)
            bosId_ = int32_t(files.vocabulary->bosId);
        if (files.vocabulary->eosId >= 0)
            eosId_ = int32_t(files.vocabulary->eosId);
    } else {
        entries_ = vocabularyOf(*processor_);
    }
    pieceCount_ = files.pieceCount > 0 ? files.pieceCount : int64_t(processor_->GetPieceSize());
    vocabularySize_ = std::max(files.config.vocabSize, int64_t(entries_.size()));
    // Padding: the unused entries at the end of the vocabulary (llama.cpp names them [PAD<id>])
    // and output rows past it.
    tokenCount_ = int64_t(entries_.size());
    while (tokenCount_ > pieceCount_ && entries_[size_t(tokenCount_ - 1)].type == PieceType::Unused)
        --tokenCount_;

    const SentencePieceSettings settings =
        readSentencePieceSettings(processor_->serialized_model_proto());
    addDummyPrefix_ = settings.addDummyPrefix;
    removeExtraWhitespaces_ = settings.removeExtraWhitespaces;
    unknownSurface_ = settings.unknownSurface;

    if (files.architecture != nullptr && files.architecture->name() == "chatglm")
        prefixIds_ = {specialId("[gMASK]"), specialId("sop")};
    else if (files.vocabulary && files.vocabulary->addBos && bosId_)
        prefixIds_ = {*bosId_};
}

std::vector<int32_t> Tokenizer::encode(std::string_view text, bool addPrefix) const {
    return tokenize(text, addPrefix).ids();
}

TokenizationInfo Tokenizer::tokenize(std::string_view text, bool addPrefix) const {
    TokenizationInfo info;
    if (addPrefix)
        for (const int32_t id : prefixIds_)
            appendSpecial(info, id, false);
    appendText(info, text);
    return info;
}

void Tokenizer::appendText(TokenizationInfo& info, std::string_view text) const {
    const auto offset = int64_t(info.text.size());
    info.text.append(text);
    sentencepiece::ImmutableSentencePieceText encoded;
    const auto status = processor_->Encode(text, encoded.mutable_proto());
    if (!status.ok())
        throw Error(source_ + ": sentencepiece could not encode the text (" + status.ToString() +
                    ")");
    // sentencepiece gives the whole character's span to the last byte piece of a character and
    // empty spans to the ones before it; `firstByte` is the first of such a run.
    constexpr size_t kNone = size_t(-1);
    size_t firstByte = kNone;
    for (const auto& piece : encoded.pieces()) {
        TokenInfo token;
        token.id = int32_t(piece.id());
        token.piece = piece.piece();
        token.begin = offset + piece.begin();
        token.end = offset + piece.end();
        token.special = isSpecial(token.id);
        token.byteFallback = processor_->IsByte(token.id);
        info.tokens.push_back(std::move(token));
        const size_t index = info.tokens.size() - 1;
        if (!info.tokens[index].byteFallback) {
            firstByte = kNone;
            continue;
        }
        if (firstByte == kNone)
            firstByte = index;
        if (piece.begin() == piece.end())
            continue;  // more byte pieces of this character follow
        const size_t count = index - firstByte + 1;
        const int64_t begin = info.tokens[index].begin;
        if (size_t(info.tokens[index].end - begin) == count)
            for (size_t i = 0; i < count; ++i) {
                info.tokens[firstByte + i].begin = begin + int64_t(i);
                info.tokens[firstByte + i].end = begin + int64_t(i) + 1;
            }
        firstByte = kNone;
    }
}

void Tokenizer::appendSpecial(TokenizationInfo& info, int32_t id, bool writeName) const {
    TokenInfo token;
    token.id = id;
    token.piece = piece(id);
    token.begin = int64_t(info.text.size());
    if (writeName)
        info.text += token.piece;
    token.end = int64_t(info.text.size());
    token.special = isSpecial(id);
    token.byteFallback = isByte(id);
    info.tokens.push_back(std::move(token));
}

std::string Tokenizer::textOf(int32_t id) const {
    if (const std::optional<uint8_t> byte = byteValue(id))
        return std::string(1, char(*byte));
    if (isUnknown(id))
        return unknownSurface();  // as decode writes it
    if (isSpecial(id))
        return {};
    const std::string pieceText = piece(id);
    std::string text;
    for (size_t at = 0; at < pieceText.size();) {
        if (pieceText.compare(at, 3, "\xe2\x96\x81") == 0) {  // "▁"
            text += ' ';
            at += 3;
        } else {
            text += pieceText[at++];
        }
    }
    return text;
}

std::vector<std::string> Tokenizer::textsOfAll() const {
    std::vector<std::string> texts(static_cast<size_t>(vocabularySize()));
    for (int32_t id = 0; id < int32_t(vocabularySize()); ++id)
        texts[size_t(id)] = textOf(id);
    return texts;
}

void Tokenizer::appendGenerated(TokenizationInfo& info, int32_t id) const {
    TokenInfo token;
    token.id = id;
    token.piece = piece(id);
    token.special = isSpecial(id);
    token.byteFallback = isByte(id);
    token.begin = int64_t(info.text.size());
    info.text += textOf(id);
    token.end = int64_t(info.text.size());
    info.tokens.push_back(std::move(token));
}

std::string Tokenizer::decode(std::span<const int32_t> ids, SpecialTokens specials) const {
    StreamingDetokenizer detokenizer(*this, specials);
    std::string text;
    for (const int32_t id : ids)
        text += detokenizer.push(id);
    text += detokenizer.flush();
    return text;
}

std::optional<int32_t> Tokenizer::findSpecial(std::string_view name) const {
    for (int64_t id = 0; id < tokenCount_; ++id)
        if (entries_[size_t(id)].piece == name && isSpecial(int32_t(id)))
            return int32_t(id);
    return std::nullopt;
}

int32_t Tokenizer::specialId(std::string_view name) const {
    if (const auto id = findSpecial(name))
        return *id;
    throwFileError(source_, "the tokenizer has no special token '" + std::string(name) + "'");
}

std::vector<int32_t> Tokenizer::eosIds() const {
    if (eosId_)
        return {*eosId_};
    return {};
}

void Tokenizer::checkId(int32_t id) const {
    if (id < 0 || id >= vocabularySize_)
        throw Error(source_ + ": token id " + std::to_string(id) +
                    " is outside the vocabulary [0, " + std::to_string(vocabularySize_) + ")");
}

std::string Tokenizer::piece(int32_t id) const {
    checkId(id);
    if (size_t(id) < entries_.size())
        return entries_[size_t(id)].piece;
    return "[PAD" + std::to_string(id) + "]";
}

bool Tokenizer::isSpecial(int32_t id) const {
    checkId(id);
    return id >= pieceCount_ || entries_[size_t(id)].type == PieceType::Control;
}

bool Tokenizer::isByte(int32_t id) const {
    checkId(id);
    return size_t(id) < entries_.size() && entries_[size_t(id)].type == PieceType::Byte;
}

bool Tokenizer::isUnknown(int32_t id) const {
    checkId(id);
    return size_t(id) < entries_.size() && entries_[size_t(id)].type == PieceType::Unknown;
}

std::optional<uint8_t> Tokenizer::byteValue(int32_t id) const {
    if (!isByte(id))
        return std::nullopt;
    // validateVocabulary guarantees the form <0xXX>.
    return uint8_t(std::stoul(entries_[size_t(id)].piece.substr(3, 2), nullptr, 16));
}

}  // namespace inferlens
