#pragma once
// Turns generated token ids into text as they arrive, for a chat view that prints while the model
// runs. Two things make this more than "decode each id": a character without a piece comes as
// several byte pieces (<0xE4> <0xBD> <0xA0>), so a token may hold only part of a character; and
// sentencepiece drops the dummy-prefix space of the first piece ("▁Hello" → "Hello" at the start,
// " Hello" later). push() returns only complete UTF-8, and the concatenation of everything push()
// and flush() return equals what sentencepiece's decode gives for the whole sequence (byte for
// byte, invalid byte sequences included) — Tokenizer::decode is implemented with this class.
// Byte-level BPE has no prefix space, but any token may end inside a character (a Chinese
// character is often two tokens): all of its text goes through the same UTF-8 assembly.

#include <cstdint>
#include <string>

#include "tokenizer/tokenizer.h"
#include "tokenizer/utf8_assembler.h"

namespace inferlens {

class StreamingDetokenizer {
  public:
    // `tokenizer` must outlive this object.
    explicit StreamingDetokenizer(const Tokenizer& tokenizer,
                                  SpecialTokens specials = SpecialTokens::Skip);

    // The text that `id` completes: empty while a character's bytes are still arriving. Byte
    // pieces that cannot be part of a valid character become U+FFFD, one per byte, as soon as
    // that is certain. Throws Error for an id outside the vocabulary.
    std::string push(int32_t id);
    // The end of the sequence: bytes of a character that never completed become U+FFFD, one per
    // byte (as sentencepiece's decode writes them). The object is then ready for a new sequence.
    std::string flush();
    void reset();

  private:
    std::string pushByteLevel(int32_t id);

    const Tokenizer& tokenizer_;
    SpecialTokens specials_;
    Utf8Assembler bytes_;  // byte pieces of a character not yet complete
    // sentencepiece's rule for the dummy prefix: the first piece that starts with "▁" loses it,
    // unless text has been written before it. Mirrors is_bos_ws / bos_ws_seen in its Decode.
    bool expectPrefixSpace_ = true;
    bool prefixSpaceSeen_ = false;
    bool wroteText_ = false;
};

}  // namespace inferlens
