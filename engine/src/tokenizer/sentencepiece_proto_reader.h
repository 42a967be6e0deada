#pragma once
// Reading the few fields of a serialized sentencepiece ModelProto that the library's public API
// hides (model_proto() needs protobuf headers that Debian does not ship): the normalizer settings
// that encoding and decoding depend on, and each piece's exact type (sentencepiece 0.1.97 cannot
// tell user-defined pieces from normal ones). Malformed input leaves the defaults.

#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/sentencepiece_model.h"

namespace inferlens {

// trainer_spec (2).unk_surface (44), normalizer_spec (3).add_dummy_prefix (3) and
// .remove_extra_whitespaces (4); absent fields take the proto's defaults.
struct SentencePieceSettings {
    bool addDummyPrefix = true;
    bool removeExtraWhitespaces = true;
    std::string unknownSurface = " \xE2\x81\x87 ";  // " ⁇ "
};

SentencePieceSettings readSentencePieceSettings(std::string_view serializedModel);

// The type of every piece (ModelProto.pieces (1) .type (3)), in id order; Normal when absent.
std::vector<PieceType> readPieceTypes(std::string_view serializedModel);

}  // namespace inferlens
