#include "tokenizer/sentencepiece_proto_reader.h"

#include <cstdint>

namespace inferlens {
namespace {

class ProtoReader {
  public:
    explicit ProtoReader(std::string_view bytes) : bytes_(bytes) {}

    bool atEnd() const { return position_ >= bytes_.size(); }

    // Reads the next field's tag; false on malformed input (the caller then keeps defaults).
    bool next(uint32_t& field, uint32_t& wireType) {
        uint64_t tag;
        if (!varint(tag))
            return false;
        field = uint32_t(tag >> 3);
        wireType = uint32_t(tag & 7);
        return true;
    }
    bool varint(uint64_t& value) {
        value = 0;
        for (int shift = 0; shift < 64 && position_ < bytes_.size(); shift += 7) {
            const auto byte = uint8_t(bytes_[position_++]);
            value |= uint64_t(byte & 0x7f) << shift;
            if ((byte & 0x80) == 0)
                return true;
        }
        return false;
    }
    bool lengthDelimited(std::string_view& value) {
        uint64_t length;
        if (!varint(length) || length > bytes_.size() - position_)
            return false;
        value = bytes_.substr(position_, size_t(length));
        position_ += size_t(length);
        return true;
    }
    bool skip(uint32_t wireType) {
        uint64_t ignored;
        std::string_view ignoredBytes;
        switch (wireType) {
            case 0:
                return varint(ignored);
            case 1:
                return advance(8);
            case 2:
                return lengthDelimited(ignoredBytes);
            case 5:
                return advance(4);
            default:
                return false;
        }
    }

  private:
    bool advance(size_t count) {
        if (count > bytes_.size() - position_)
            return false;
        position_ += count;
        return true;
    }
    std::string_view bytes_;
    size_t position_ = 0;
};

// Calls `onField(field, reader)` for every length-delimited or varint field of `message`.
template <typename OnField>
void forEachField(std::string_view message, OnField onField) {
    ProtoReader reader(message);
    uint32_t field, wireType;
    while (!reader.atEnd() && reader.next(field, wireType))
        if (!onField(field, wireType, reader) && !reader.skip(wireType))
            return;
}

}  // namespace

SentencePieceSettings readSentencePieceSettings(std::string_view serializedModel) {
    SentencePieceSettings settings;
    forEachField(serializedModel, [&](uint32_t field, uint32_t wireType, ProtoReader& model) {
        std::string_view spec;
        if (wireType != 2 || (field != 2 && field != 3) || !model.lengthDelimited(spec))
            return false;
        forEachField(spec, [&](uint32_t inner, uint32_t innerType, ProtoReader& reader) {
            uint64_t flag;
            std::string_view text;
            if (field == 2 && inner == 44 && innerType == 2 && reader.lengthDelimited(text)) {
                settings.unknownSurface = std::string(text);
                return true;
            }
            if (field == 3 && (inner == 3 || inner == 4) && innerType == 0 && reader.varint(flag)) {
                (inner == 3 ? settings.addDummyPrefix : settings.removeExtraWhitespaces) = flag;
                return true;
            }
            return false;
        });
        return true;
    });
    return settings;
}

std::vector<PieceType> readPieceTypes(std::string_view serializedModel) {
    std::vector<PieceType> types;
    forEachField(serializedModel, [&](uint32_t field, uint32_t wireType, ProtoReader& model) {
        std::string_view piece;
        if (field != 1 || wireType != 2 || !model.lengthDelimited(piece))
            return false;
        PieceType type = PieceType::Normal;
        forEachField(piece, [&](uint32_t inner, uint32_t innerType, ProtoReader& reader) {
            uint64_t value;
            if (inner != 3 || innerType != 0 || !reader.varint(value))
                return false;
            if (value >= 1 && value <= 6)
                type = static_cast<PieceType>(value);
            return true;
        });
        types.push_back(type);
        return true;
    });
    return types;
}

}  // namespace inferlens
