#pragma once
// The model's tokenizer: text → token ids, with per token the piece, the bytes of the text it
// stands for and its kind (what the tokenization panel draws as chips); ids → text; and look-ups of
// special tokens. The vocabulary's own algorithm (a TextEncoder: sentencepiece, or byte-level BPE)
// turns text into ids; this class adds what neither knows about: ChatGLM's specials appended after
// the pieces, the padding rows of the output layer, the prefix the model expects every input to
// start with, the tokens that end a turn, and how each token reads as text.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/sentencepiece_model.h"
#include "tokenizer/text_encoder.h"

namespace inferlens {

struct ModelFiles;

struct TokenInfo {
    int32_t id = 0;
    // The vocabulary's piece: "▁the", "<0xE4>", "[gMASK]", "[PAD64798]"; byte-level BPE spells
    // bytes in its own alphabet ("Ġthe", "Ċ"), which the token strip shows readably.
    std::string piece;
    // The bytes [begin, end) of TokenizationInfo::text that this token stands for. A "▁" that
    // sentencepiece added as the dummy prefix stands for nothing, so the first piece's span starts
    // after it. Specials that are not in the text (the prefix) have an empty span where they sit.
    // A character encoded as several byte pieces: byte piece i covers byte i of the character, so
    // the pieces partition its span. (Should a normaliser ever have changed the character, the
    // source bytes are not the piece bytes; then, as sentencepiece reports it, the last byte piece
    // covers the whole character and the others are empty at its start.)
    int64_t begin = 0;
    int64_t end = 0;
    // Not text: <s>, </s>, ChatGLM's [gMASK], sop, ..., padding, and added tokens such as
    // <|im_start|>.
    bool special = false;
    bool byteFallback = false;  // a <0xXX> piece: one UTF-8 byte of a character without a piece
};

struct TokenizationInfo {
    std::string text;  // what the spans index: the encoded text, or a chat template's rendering
    std::vector<TokenInfo> tokens;

    std::vector<int32_t> ids() const;
};

// Whether decoding writes special tokens ([gMASK], </s>, padding) as their names or leaves them
// out. A written name is text like any other: a "▁" after it decodes as a space.
enum class SpecialTokens { Skip, Render };

// Immutable once made, so one Tokenizer may serve several threads (the GUI and the worker).
class Tokenizer {
  public:
    // Throws Error naming files.path when the model ships no tokenizer.
    explicit Tokenizer(const ModelFiles& files);

    // `addPrefix`: start with the model's own prefix (prefixIds()). Special-token names inside
    // `text` ("<s>", "[gMASK]", "<|START_OF_TURN_TOKEN|>") are plain text, never the special
    // tokens (isSpecial); user-defined text pieces (Gemma's "\n\n") are matched. Invalid UTF-8 is
    // encoded as U+FFFD, as sentencepiece does.
    std::vector<int32_t> encode(std::string_view text, bool addPrefix = true) const;
    TokenizationInfo tokenize(std::string_view text, bool addPrefix = true) const;

    // Building blocks for chat templates: append `text`, encoded on its own (so with
    // sentencepiece's dummy-prefix space), to info.text and its tokens to info.tokens; or append
    // one special token, its name written into info.text when `writeName`.
    void appendText(TokenizationInfo& info, std::string_view text) const;
    void appendSpecial(TokenizationInfo& info, int32_t id, bool writeName) const;
    // Appends a token the model generated (or the user forced), standing for the bytes it decodes
    // to: its byte for a byte piece, nothing for a control token, else its piece with "▁" as a
    // space (sentencepiece) or its bytes (byte-level BPE, where a token may hold part of a
    // character).
    void appendGenerated(TokenizationInfo& info, int32_t id) const;
    // The bytes a generated token stands for (as appendGenerated writes them), and those of every
    // id of the vocabulary: what banned text and grammars check candidates against.
    std::string textOf(int32_t id) const;
    std::vector<std::string> textsOfAll() const;

    // ChatGLM: [gMASK] sop (every ChatGLM input starts with them; no BOS). Others: BOS when the
    // vocabulary says to add it (or, where a GGUF file does not say, when llama.cpp would), else
    // nothing.
    const std::vector<int32_t>& prefixIds() const { return prefixIds_; }

    std::string decode(std::span<const int32_t> ids,
                       SpecialTokens specials = SpecialTokens::Skip) const;

    // Special tokens by name ("[gMASK]", "<|user|>", "</s>", "<|im_start|>"): control and
    // user-defined pieces and the specials appended after the pieces. specialId throws Error
    // naming the model when there is none.
    std::optional<int32_t> findSpecial(std::string_view name) const;
    int32_t specialId(std::string_view name) const;
    std::optional<int32_t> bosId() const { return bosId_; }
    // Every token that ends generation: the file's eos (first), eot and eom, and those llama.cpp
    // recognises by name (<|eot_id|>, <|im_end|>, <end_of_turn>, <|endoftext|>, ...).
    const std::vector<int32_t>& eosIds() const { return eosIds_; }

    // Every id in [0, vocabularySize()) has a piece: the vocabulary's, or "[PAD<id>]" for output
    // rows past it. Other ids throw Error.
    std::string piece(int32_t id) const;
    // Control pieces, user-defined ones other than whitespace runs and single characters
    // (Gemma's "\n\n" is text), appended specials, padding.
    bool isSpecial(int32_t id) const;
    // A user-defined piece (an added token): written as its own text when decoded, unlike a
    // control token; matched whole in text when it is not special.
    bool isUserDefined(int32_t id) const;
    bool isByte(int32_t id) const;
    bool isUnknown(int32_t id) const;
    std::optional<uint8_t> byteValue(int32_t id) const;  // of a <0xXX> piece

    // Id ranges: [0, pieceCount) the sentencepiece pieces; [pieceCount, tokenCount) the specials
    // appended after them (ChatGLM); [tokenCount, vocabularySize) padding rows of the output layer,
    // which no text encodes to and a sampler should never pick.
    int64_t pieceCount() const { return pieceCount_; }
    int64_t tokenCount() const { return tokenCount_; }
    int64_t vocabularySize() const { return vocabularySize_; }

    // Byte-level BPE: pieces spell bytes in GPT-2's alphabet, and tokens may split a character.
    bool isByteLevel() const { return byteLevel_; }
    // The normaliser settings that decoding depends on, read from the sentencepiece model (both
    // false for byte-level BPE).
    bool addsDummyPrefix() const { return addDummyPrefix_; }
    bool removesExtraWhitespaces() const { return removeExtraWhitespaces_; }
    const std::string& unknownSurface() const { return unknownSurface_; }  // what <unk> decodes to

    const std::string& source() const { return source_; }  // the model's path, for messages

  private:
    void checkId(int32_t id) const;

    std::shared_ptr<const TextEncoder> encoder_;
    bool byteLevel_ = false;
    std::vector<VocabEntry> entries_;  // by id, the appended specials and padding included
    int64_t pieceCount_ = 0;
    int64_t tokenCount_ = 0;
    int64_t vocabularySize_ = 0;
    std::optional<int32_t> bosId_;
    std::vector<int32_t> eosIds_;
    std::vector<int32_t> prefixIds_;
    bool addDummyPrefix_ = true;
    bool removeExtraWhitespaces_ = false;
    std::string unknownSurface_;
    std::string source_;
};

}  // namespace inferlens
