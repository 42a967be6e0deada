#include "tokenizer/sentencepiece_model.h"

#include <sentencepiece_processor.h>

#include <bit>
#include <cstdio>
#include <unordered_set>

#include "core/error.h"
#include "core/utf8.h"
#include "tokenizer/sentencepiece_proto_reader.h"

namespace inferlens {
namespace {

// Protocol-buffer wire encoding: just varints, fixed32 and length-delimited fields.
class ProtoWriter {
  public:
    void varint(uint32_t field, uint64_t value) {
        tag(field, 0);
        rawVarint(value);
    }
    void fixed32(uint32_t field, uint32_t value) {
        tag(field, 5);
        for (int i = 0; i < 4; ++i)
            bytes_.push_back(char((value >> (8 * i)) & 0xff));
    }
    void bytes(uint32_t field, const std::string& value) {
        tag(field, 2);
        rawVarint(value.size());
        bytes_ += value;
    }
    const std::string& data() const { return bytes_; }

  private:
    void tag(uint32_t field, uint32_t wireType) { rawVarint((uint64_t(field) << 3) | wireType); }
    void rawVarint(uint64_t value) {
        while (value >= 0x80) {
            bytes_.push_back(char((value & 0x7f) | 0x80));
            value >>= 7;
        }
        bytes_.push_back(char(value));
    }
    std::string bytes_;
};

std::string bytePieceName(int value) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", value);
    return name;
}

}  // namespace

void validateVocabulary(const std::vector<VocabEntry>& entries, const std::string& source) {
    if (entries.empty())
        throwFileError(source, "vocabulary is empty");
    std::unordered_set<std::string_view> seen;
    std::unordered_set<std::string_view> bytePieces;
    int unknownCount = 0;
    for (size_t id = 0; id < entries.size(); ++id) {
        const VocabEntry& entry = entries[id];
        const std::string where = "token " + std::to_string(id);
        if (entry.piece.empty())
            throwFileError(source, where + " is empty");
        if (!isValidUtf8(entry.piece))
            throwFileError(source, where + " is not valid UTF-8");
        if (!seen.insert(entry.piece).second)
            throwFileError(source, where + " '" + entry.piece + "' appears twice");
        const auto type = static_cast<int32_t>(entry.type);
        if (type < 1 || type > 6)
            throwFileError(source, where + " has unknown token type " + std::to_string(type));
        if (entry.type == PieceType::Unknown)
            ++unknownCount;
        if (entry.type == PieceType::Byte) {
            if (entry.piece.size() != 6 || entry.piece.rfind("<0x", 0) != 0 ||
                entry.piece[5] != '>')
                throwFileError(source, where + " is a byte token but '" + entry.piece +
                                           "' is not of the form <0xXX>");
            bytePieces.insert(entry.piece);
        }
    }
    if (unknownCount != 1)
        throwFileError(source, "vocabulary has " + std::to_string(unknownCount) +
                                   " unknown tokens; exactly one is required");
    if (!bytePieces.empty()) {
        for (int value = 0; value < 256; ++value)
            if (!bytePieces.count(bytePieceName(value)))
                throwFileError(source,
                               "vocabulary has byte tokens but lacks " + bytePieceName(value));
    }
}

std::string serializeModelProto(const std::vector<VocabEntry>& entries,
                                const SentencePieceOptions& options, const std::string& source) {
    validateVocabulary(entries, source);
    ProtoWriter model;
    bool hasBytes = false;
    int64_t unknownId = 0;
    for (size_t id = 0; id < entries.size(); ++id) {
        const VocabEntry& entry = entries[id];
        ProtoWriter piece;
        piece.bytes(1, entry.piece);
        piece.fixed32(2, std::bit_cast<uint32_t>(entry.score));
        piece.varint(3, static_cast<uint64_t>(entry.type));
        model.bytes(1, piece.data());
        hasBytes = hasBytes || entry.type == PieceType::Byte;
        if (entry.type == PieceType::Unknown)
            unknownId = int64_t(id);
    }
    const auto pieceId = [&](const char* piece) -> int64_t {
        for (size_t id = 0; id < entries.size(); ++id)
            if (entries[id].piece == piece && entries[id].type == PieceType::Control)
                return int64_t(id);
        return -1;
    };
    ProtoWriter trainer;
    trainer.varint(3, options.bpe ? 2 : 1);
    trainer.varint(35, hasBytes ? 1 : 0);
    trainer.varint(40, uint64_t(unknownId));
    trainer.varint(
        41, uint64_t(pieceId("<s>")));  // -1 is encoded as a 10-byte varint, as protobuf does
    trainer.varint(42, uint64_t(pieceId("</s>")));
    trainer.varint(43, uint64_t(int64_t(-1)));
    model.bytes(2, trainer.data());

    ProtoWriter normalizer;
    normalizer.bytes(1, "identity");
    normalizer.varint(3, options.addDummyPrefix ? 1 : 0);
    normalizer.varint(4, options.removeExtraWhitespaces ? 1 : 0);
    normalizer.varint(5, 1);
    model.bytes(3, normalizer.data());
    return model.data();
}

std::unique_ptr<sentencepiece::SentencePieceProcessor> loadSentencePiece(
    const std::string& serializedProto, const std::string& source) {
    auto processor = std::make_unique<sentencepiece::SentencePieceProcessor>();
    const auto status = processor->LoadFromSerializedProto(serializedProto);
    if (!status.ok())
        throwFileError(source, "not a valid sentencepiece model: sentencepiece rejected it (" +
                                   status.ToString() + ")");
    return processor;
}

std::vector<VocabEntry> vocabularyOf(const sentencepiece::SentencePieceProcessor& processor) {
    // Types from the serialized model: the API has no IsUserDefined.
    const std::vector<PieceType> types = readPieceTypes(processor.serialized_model_proto());
    std::vector<VocabEntry> entries;
    entries.reserve(size_t(processor.GetPieceSize()));
    for (int id = 0; id < processor.GetPieceSize(); ++id) {
        PieceType type = size_t(id) < types.size() ? types[size_t(id)] : PieceType::Normal;
        if (processor.IsUnknown(id))
            type = PieceType::Unknown;
        else if (processor.IsControl(id))
            type = PieceType::Control;
        else if (processor.IsUnused(id))
            type = PieceType::Unused;
        else if (processor.IsByte(id))
            type = PieceType::Byte;
        entries.push_back({processor.IdToPiece(id), processor.GetScore(id), type});
    }
    return entries;
}

}  // namespace inferlens
