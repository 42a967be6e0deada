#include "tokenizer/gguf_vocabulary.h"

#include "core/error.h"
#include "io/gguf_file.h"

namespace inferlens {
namespace {

const GgufArray& requireArray(const GgufFile& file, const char* key, GgufType elementType) {
    const GgufValue* value = file.find(key);
    const GgufArray* array = value ? value->asArray() : nullptr;
    if (array == nullptr || array->elementType != elementType)
        throwFileError(file.path(), std::string("'") + key + "' is missing or is not an array of " +
                                        std::string(ggufTypeName(elementType)));
    return *array;
}

}  // namespace

std::optional<GgufVocabulary> readGgufVocabulary(const GgufFile& file) {
    if (file.find("tokenizer.ggml.model") == nullptr)
        return std::nullopt;
    const std::string model = file.requireString("tokenizer.ggml.model");
    if (model != "llama")
        throwFileError(file.path(), "tokenizer.ggml.model = '" + model +
                                        "' is not supported: only sentencepiece vocabularies "
                                        "('llama') are; GPT-2-style BPE and others are not");
    const GgufArray& tokens = requireArray(file, "tokenizer.ggml.tokens", GgufType::String);
    const GgufArray& scores = requireArray(file, "tokenizer.ggml.scores", GgufType::F32);
    const GgufArray& types = requireArray(file, "tokenizer.ggml.token_type", GgufType::I32);
    if (scores.size() != tokens.size() || types.size() != tokens.size())
        throwFileError(file.path(),
                       "tokenizer.ggml.tokens, .scores and .token_type differ in length (" +
                           std::to_string(tokens.size()) + ", " + std::to_string(scores.size()) +
                           ", " + std::to_string(types.size()) + ")");
    GgufVocabulary vocabulary;
    vocabulary.entries.reserve(tokens.size());
    for (uint64_t id = 0; id < tokens.size(); ++id)
        vocabulary.entries.push_back({tokens.strings[id], float(*scores.numberAt(id)),
                                      static_cast<PieceType>(*types.integerAt(id))});
    vocabulary.bosId = file.optionalInteger("tokenizer.ggml.bos_token_id").value_or(-1);
    vocabulary.eosId = file.optionalInteger("tokenizer.ggml.eos_token_id").value_or(-1);
    const auto count = int64_t(tokens.size());
    if (vocabulary.bosId >= count || vocabulary.eosId >= count)
        throwFileError(file.path(), "BOS or EOS token id is outside the vocabulary");
    vocabulary.addBos = file.optionalBool("tokenizer.ggml.add_bos_token").value_or(false);
    vocabulary.addSpacePrefix = file.optionalBool("tokenizer.ggml.add_space_prefix").value_or(true);
    vocabulary.removeExtraWhitespaces =
        file.optionalBool("tokenizer.ggml.remove_extra_whitespaces").value_or(false);
    return vocabulary;
}

std::vector<GgufKeyValue> ggufVocabularyMetadata(const GgufVocabulary& vocabulary) {
    std::vector<std::string> tokens;
    std::vector<float> scores;
    std::vector<int32_t> types;
    for (const auto& entry : vocabulary.entries) {
        tokens.push_back(entry.piece);
        scores.push_back(entry.score);
        types.push_back(static_cast<int32_t>(entry.type));
    }
    std::vector<GgufKeyValue> metadata{
        {"tokenizer.ggml.model", {std::string("llama")}},
        {"tokenizer.ggml.tokens", {GgufArray::ofStrings(std::move(tokens))}},
        {"tokenizer.ggml.scores", {GgufArray::ofFloats(scores)}},
        {"tokenizer.ggml.token_type", {GgufArray::ofInt32(types)}},
        {"tokenizer.ggml.add_bos_token", {vocabulary.addBos}},
        {"tokenizer.ggml.add_space_prefix", {vocabulary.addSpacePrefix}},
        {"tokenizer.ggml.remove_extra_whitespaces", {vocabulary.removeExtraWhitespaces}},
    };
    if (vocabulary.bosId >= 0)
        metadata.push_back({"tokenizer.ggml.bos_token_id", {uint32_t(vocabulary.bosId)}});
    if (vocabulary.eosId >= 0)
        metadata.push_back({"tokenizer.ggml.eos_token_id", {uint32_t(vocabulary.eosId)}});
    return metadata;
}

}  // namespace inferlens
