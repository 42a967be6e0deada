// Arbitrary byte-level BPE vocabularies (as a GGUF "gpt2" vocabulary or a tokenizer.json brings
// them) through the Tokenizer: the input is NUL-separated fields — a pre-tokenizer name, then
// tokens (each a type byte and the piece) up to an empty field, then merges up to an empty field,
// then the text to encode. Encoding and decoding it must never crash, hang or split a character.

#include <string>
#include <vector>

#include "core/error.h"
#include "models/model_files.h"
#include "tokenizer/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::vector<std::string> fields(1);
    for (size_t i = 0; i < size && fields.size() < 8192; ++i) {
        if (data[i] == 0)
            fields.emplace_back();
        else
            fields.back().push_back(char(data[i]));
    }
    inferlens::GgufVocabulary vocabulary;
    vocabulary.kind = inferlens::VocabularyKind::ByteLevelBpe;
    size_t at = 0;
    vocabulary.preTokenizer = fields[at++];
    const auto spec = inferlens::preTokenizerByName(vocabulary.preTokenizer);
    vocabulary.preTokenizerSpec = spec ? *spec : *inferlens::preTokenizerByName("gpt-2");
    for (; at < fields.size() && !fields[at].empty(); ++at)
        vocabulary.entries.push_back(
            {fields[at].substr(1), 0.0f, inferlens::PieceType(1 + uint8_t(fields[at][0]) % 6)});
    for (++at; at < fields.size() && !fields[at].empty(); ++at)
        vocabulary.merges.push_back(fields[at]);
    const std::string text = at + 1 < fields.size() ? fields[at + 1] : "Hello 世界 \xff 123";
    if (vocabulary.entries.empty())
        return 0;
    inferlens::ModelFiles files;
    files.path = "fuzz";
    files.pieceCount = int64_t(vocabulary.entries.size());
    files.vocabulary = std::move(vocabulary);
    try {
        const inferlens::Tokenizer tokenizer(files);
        const inferlens::TokenizationInfo info = tokenizer.tokenize(text);
        for (const inferlens::TokenInfo& token : info.tokens)
            if (token.begin < 0 || token.end < token.begin || token.end > int64_t(info.text.size()))
                __builtin_trap();  // a span outside the text
        (void)tokenizer.decode(info.ids());
    } catch (const inferlens::Error&) {
    }
    return 0;
}
