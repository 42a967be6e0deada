#include "tokenizer/vocabulary_summary.h"

#include "models/model_files.h"

namespace inferlens {

std::string vocabularySummary(const ModelFiles& files) {
    if (!files.vocabulary)
        return "none in this model";
    const GgufVocabulary& vocabulary = *files.vocabulary;
    std::string summary;
    if (vocabulary.kind == VocabularyKind::ByteLevelBpe)
        summary = "byte-level BPE, " + std::to_string(vocabulary.entries.size()) + " tokens, " +
                  std::to_string(vocabulary.merges.size()) + " merges, pre-tokenizer '" +
                  (vocabulary.preTokenizer.empty() ? "default" : vocabulary.preTokenizer) + "'";
    else
        summary = "sentencepiece, " + std::to_string(files.pieceCount) + " pieces + " +
                  std::to_string(int64_t(vocabulary.entries.size()) - files.pieceCount) +
                  " more ids (loaded)";
    return summary + (vocabulary.addBos && vocabulary.bosId >= 0 ? "; inputs start with BOS"
                                                                 : "; no BOS added");
}

}  // namespace inferlens
