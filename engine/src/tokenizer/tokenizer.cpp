#include "tokenizer/tokenizer.h"

#include <sentencepiece_processor.h>

#include <algorithm>
#include <cctype>

#include "core/error.h"
#include "models/model_files.h"
#include "tokenizer/bpe_encoder.h"
#include "tokenizer/byte_level_alphabet.h"
#include "tokenizer/end_of_generation.h"
#include "tokenizer/sentencepiece_encoder.h"
#include "tokenizer/sentencepiece_proto_reader.h"
#include "tokenizer/streaming_detokenizer.h"
#include "tokenizer/user_defined_tokens.h"

namespace inferlens {

std::vector<int32_t> TokenizationInfo::ids() const {
    std::vector<int32_t> result;
    result.reserve(tokens.size());
    for (const TokenInfo& token : tokens)
        result.push_back(token.id);
    return result;
}

Tokenizer::Tokenizer(const ModelFiles& files) : source_(files.path) {
    const bool bpe = files.vocabulary && files.vocabulary->kind == VocabularyKind::ByteLevelBpe;
    if (!bpe && !files.tokenizer)
        throwFileError(files.path,
                       "the model has no tokenizer (no tokenizer.ggml.* keys in a GGUF file, no "
                       "tokenizer.model or tokenizer.json in a Hugging Face directory)");
    std::vector<int64_t> declaredEnds;
    if (files.vocabulary) {
        entries_ = files.vocabulary->entries;
        if (files.vocabulary->bosId >= 0)
            bosId_ = int32_t(files.vocabulary->bosId);
        declaredEnds = {files.vocabulary->eosId, files.vocabulary->eotId, files.vocabulary->eomId};
    } else {
        entries_ = vocabularyOf(*files.tokenizer);
    }
    // As llama.cpp does, a token that ends generation is a control token even where the file
    // calls it normal or user-defined: typed text never turns into it, decoding leaves it out.
    eosIds_ = endOfGenerationIds(entries_, declaredEnds);
    for (const int32_t id : eosIds_)
        if (entries_[size_t(id)].type == PieceType::Normal ||
            entries_[size_t(id)].type == PieceType::UserDefined)
            entries_[size_t(id)].type = PieceType::Control;

    if (bpe) {
        byteLevel_ = true;
        // sentencepiece's validation checks this for its vocabularies; byteValue relies on it.
        for (size_t id = 0; id < entries_.size(); ++id) {
            const std::string& piece = entries_[id].piece;
            if (entries_[id].type == PieceType::Byte &&
                (piece.size() != 6 || !piece.starts_with("<0x") || piece[5] != '>' ||
                 !std::isxdigit(uint8_t(piece[3])) || !std::isxdigit(uint8_t(piece[4]))))
                throwFileError(files.path, "token " + std::to_string(id) + " ('" + piece +
                                               "') is a byte token but not of the form <0xXX>");
        }
        encoder_ = std::make_shared<BpeEncoder>(
            BpeVocabulary{entries_, files.vocabulary->merges, files.vocabulary->preTokenizerSpec},
            files.path);
        addDummyPrefix_ = false;
        removeExtraWhitespaces_ = false;
        for (const VocabEntry& entry : entries_)
            if (entry.type == PieceType::Unknown) {
                unknownSurface_ = entry.piece;
                break;
            }
    } else {
        encoder_ = std::make_shared<SentencePieceEncoder>(files.tokenizer, entries_, files.path);
        const SentencePieceSettings settings =
            readSentencePieceSettings(files.tokenizer->serialized_model_proto());
        addDummyPrefix_ = settings.addDummyPrefix;
        removeExtraWhitespaces_ = settings.removeExtraWhitespaces;
        unknownSurface_ = settings.unknownSurface;
    }
    pieceCount_ = files.pieceCount > 0 ? files.pieceCount : int64_t(entries_.size());
    vocabularySize_ = std::max(files.config.vocabSize, int64_t(entries_.size()));
    // Padding: the unused entries at the end of the vocabulary (llama.cpp names them [PAD<id>])
    // and output rows past it.
    tokenCount_ = int64_t(entries_.size());
    while (tokenCount_ > pieceCount_ && entries_[size_t(tokenCount_ - 1)].type == PieceType::Unused)
        --tokenCount_;

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
    for (const EncodedToken& encoded : encoder_->encode(text)) {
        TokenInfo token;
        token.id = encoded.id;
        token.piece = piece(encoded.id);
        token.begin = offset + int64_t(encoded.begin);
        token.end = offset + int64_t(encoded.end);
        token.special = isSpecial(encoded.id);
        token.byteFallback = isByte(encoded.id);
        info.tokens.push_back(std::move(token));
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
    if (isUserDefined(id))
        return piece(id);
    if (isSpecial(id))
        return {};
    const std::string pieceText = piece(id);
    if (byteLevel_)  // a piece outside the alphabet is its own text
        return byteLevelDecode(pieceText).value_or(pieceText);
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
    if (id >= pieceCount_ || entries_[size_t(id)].type == PieceType::Control)
        return true;
    // Added tokens such as <|im_start|> or <fim_prefix> are; Gemma's user-defined runs of spaces
    // and newlines and DeepSeek's single characters are text.
    return entries_[size_t(id)].type == PieceType::UserDefined &&
           !isTextPiece(entries_[size_t(id)].piece);
}

bool Tokenizer::isUserDefined(int32_t id) const {
    checkId(id);
    return id < pieceCount_ && entries_[size_t(id)].type == PieceType::UserDefined;
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
