// Arbitrary vocabularies through our checks and our sentencepiece ModelProto builder: entries are
// read from the input (a type byte, a score byte, a piece up to the next NUL), validated, turned
// into a ModelProto, loaded by sentencepiece, and used once. What sentencepiece does inside is not
// ours to fuzz; what we hand it must never make it crash.

#include <string>
#include <vector>

#include "core/error.h"
#include "tokenizer/sentencepiece_model.h"

#include <sentencepiece_processor.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using inferlens::PieceType;
    std::vector<inferlens::VocabEntry> entries;
    size_t at = 0;
    while (at + 2 <= size && entries.size() < 4096) {
        inferlens::VocabEntry entry;
        entry.type = PieceType(data[at] % 8);  // 0 and 7 are not valid types
        entry.score = float(int8_t(data[at + 1])) / 8.0f;
        at += 2;
        while (at < size && data[at] != 0)
            entry.piece.push_back(char(data[at++]));
        ++at;
        entries.push_back(std::move(entry));
    }
    try {
        inferlens::validateVocabulary(entries, "fuzz");
        for (const bool bpe : {true, false}) {
            inferlens::SentencePieceOptions options;
            options.bpe = bpe;
            const std::string proto = inferlens::serializeModelProto(entries, options, "fuzz");
            const auto processor = inferlens::loadSentencePiece(proto, "fuzz");
            std::vector<int> ids;
            (void)processor->Encode("Hello 世界 \xff", &ids);
            inferlens::vocabularyOf(*processor);
        }
    } catch (const inferlens::Error&) {
    }
    return 0;
}
