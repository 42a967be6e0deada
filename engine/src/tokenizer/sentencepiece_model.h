#pragma once
// Vocabularies as sentencepiece sees them, and the bridge to the sentencepiece library. Debian
// ships no generated protobuf header for sentencepiece's ModelProto, so we encode the few fields we
// need by hand (see DESIGN.md §4) and let the library load the bytes with LoadFromSerializedProto.
// Our own validation runs first, so a bad vocabulary gets a message that names the problem.

#include <memory>
#include <string>
#include <vector>

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace inferlens {

// Numbered as sentencepiece's ModelProto.SentencePiece.Type and GGUF's tokenizer.ggml.token_type.
enum class PieceType : int32_t {
    Normal = 1,
    Unknown = 2,
    Control = 3,
    UserDefined = 4,
    Unused = 5,
    Byte = 6
};

struct VocabEntry {
    std::string piece;
    float score = 0;
    PieceType type = PieceType::Normal;

    bool operator==(const VocabEntry&) const = default;
};

struct SentencePieceOptions {
    bool bpe = true;  // BPE (LLaMA, ChatGLM) rather than unigram
    bool addDummyPrefix = true;
    bool removeExtraWhitespaces = false;  // LLaMA's and ChatGLM's keep whitespace runs
};

// Throws Error("<source>: ...") on what sentencepiece would reject or mis-handle: no entries, an
// empty or duplicate piece, not exactly one unknown piece, an unknown type number, a byte piece
// that is not "<0xXX>", or byte pieces without all 256 of them.
void validateVocabulary(const std::vector<VocabEntry>& entries, const std::string& source);

// The serialized ModelProto for `entries` (validated first). Byte fallback is enabled exactly when
// the vocabulary has byte pieces.
std::string serializeModelProto(const std::vector<VocabEntry>& entries,
                                const SentencePieceOptions& options, const std::string& source);

std::unique_ptr<sentencepiece::SentencePieceProcessor> loadSentencePiece(
    const std::string& serializedProto, const std::string& source);

std::vector<VocabEntry> vocabularyOf(const sentencepiece::SentencePieceProcessor& processor);

}  // namespace inferlens
