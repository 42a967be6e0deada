#include "tokenizer/gguf_vocabulary.h"

#include "core/error.h"
#include "io/gguf_file.h"

namespace inferlens {
namespace {

const GgufArray* optionalArray(const GgufFile& file, const char* key, GgufType elementType) {
    const GgufValue* value = file.find(key);
    if (value == nullptr)
        return nullptr;
    const GgufArray* array = value->asArray();
    if (array == nullptr || array->elementType != elementType)
        throwFileError(file.path(), std::string("'") + key + "' is not an array of " +
                                        std::string(ggufTypeName(elementType)));
    return array;
}

const GgufArray& requireArray(const GgufFile& file, const char* key, GgufType elementType) {
    if (const GgufArray* array = optionalArray(file, key, elementType))
        return *array;
    throwFileError(file.path(), std::string("'") + key + "' is missing (an array of " +
                                    std::string(ggufTypeName(elementType)) + " is needed)");
}

void checkLength(const GgufFile& file, const GgufArray* array, const char* key, uint64_t count) {
    if (array != nullptr && array->size() != count)
        throwFileError(file.path(), std::string("tokenizer.ggml.tokens and '") + key +
                                        "' differ in length (" + std::to_string(count) + ", " +
                                        std::to_string(array->size()) + ")");
}

int64_t specialId(const GgufFile& file, const char* label, const char* key, int64_t count) {
    const int64_t id = file.optionalInteger(key).value_or(-1);
    if (id >= count || id < -1)
        throwFileError(file.path(),
                       std::string(label) + " token id (" + key + ") = " + std::to_string(id) +
                           " is outside the vocabulary of " + std::to_string(count) + " tokens");
    return id;
}

// sentencepiece wants exactly one unknown piece. Some conversions mark their added tokens unknown
// too (Phi-3): the declared one (else the first) stays unknown, the others become control tokens,
// which is how llama.cpp treats them (never produced from text, not decoded as text). Others give
// the unknown token the control type and name it by tokenizer.ggml.unknown_token_id (Gemma 3):
// that one becomes the unknown piece, as llama.cpp takes its unknown token from the key.
void settleUnknownToken(std::vector<VocabEntry>& entries, int64_t declared) {
    const auto isUnknown = [&](int64_t id) {
        return entries[size_t(id)].type == PieceType::Unknown;
    };
    if (declared < 0 || !isUnknown(declared)) {
        int64_t first = -1;
        for (size_t id = 0; id < entries.size() && first < 0; ++id)
            if (entries[id].type == PieceType::Unknown)
                first = int64_t(id);
        if (first < 0 && declared >= 0)
            entries[size_t(declared)].type = PieceType::Unknown;
        else
            declared = first;
    }
    for (size_t id = 0; id < entries.size(); ++id)
        if (entries[id].type == PieceType::Unknown && int64_t(id) != declared)
            entries[id].type = PieceType::Control;
}

}  // namespace

std::optional<GgufVocabulary> readGgufVocabulary(const GgufFile& file) {
    if (file.find("tokenizer.ggml.model") == nullptr)
        return std::nullopt;
    const std::string model = file.requireString("tokenizer.ggml.model");
    GgufVocabulary vocabulary;
    if (model == "gpt2")
        vocabulary.kind = VocabularyKind::ByteLevelBpe;
    else if (model != "llama")
        throwFileError(file.path(), "tokenizer.ggml.model = '" + model +
                                        "' is not supported: only sentencepiece ('llama') and "
                                        "byte-level BPE ('gpt2') vocabularies are");
    const bool bpe = vocabulary.kind == VocabularyKind::ByteLevelBpe;
    const GgufArray& tokens = requireArray(file, "tokenizer.ggml.tokens", GgufType::String);
    // sentencepiece needs scores and types; byte-level BPE ranks by its merges instead.
    const GgufArray* scores = bpe ? optionalArray(file, "tokenizer.ggml.scores", GgufType::F32)
                                  : &requireArray(file, "tokenizer.ggml.scores", GgufType::F32);
    const GgufArray* types = bpe ? optionalArray(file, "tokenizer.ggml.token_type", GgufType::I32)
                                 : &requireArray(file, "tokenizer.ggml.token_type", GgufType::I32);
    checkLength(file, scores, "tokenizer.ggml.scores", tokens.size());
    checkLength(file, types, "tokenizer.ggml.token_type", tokens.size());
    vocabulary.entries.reserve(tokens.size());
    for (uint64_t id = 0; id < tokens.size(); ++id) {
        int64_t type = types ? *types->integerAt(id) : int64_t(PieceType::Normal);
        if (type == 0)
            type = int64_t(PieceType::Normal);  // "undefined" in some old conversions
        if (type < int64_t(PieceType::Normal) || type > int64_t(PieceType::Byte))
            throwFileError(file.path(), "tokenizer.ggml.token_type: token " + std::to_string(id) +
                                            " has token type " + std::to_string(type) +
                                            ", which is not one (1 to 6)");
        vocabulary.entries.push_back({tokens.strings[id],
                                      scores ? float(*scores->numberAt(id)) : 0.0f,
                                      static_cast<PieceType>(type)});
    }
    const auto count = int64_t(tokens.size());
    if (!bpe)
        settleUnknownToken(vocabulary.entries,
                           specialId(file, "unknown", "tokenizer.ggml.unknown_token_id", count));
    vocabulary.bosId = specialId(file, "BOS", "tokenizer.ggml.bos_token_id", count);
    vocabulary.eosId = specialId(file, "EOS", "tokenizer.ggml.eos_token_id", count);
    vocabulary.eotId = specialId(file, "EOT", "tokenizer.ggml.eot_token_id", count);
    vocabulary.eomId = specialId(file, "EOM", "tokenizer.ggml.eom_token_id", count);
    bool addBosByDefault = true;  // llama.cpp's default for sentencepiece
    if (bpe) {
        vocabulary.merges = requireArray(file, "tokenizer.ggml.merges", GgufType::String).strings;
        if (file.find("tokenizer.ggml.pre"))
            vocabulary.preTokenizer = file.requireString("tokenizer.ggml.pre");
        const auto spec = preTokenizerByName(vocabulary.preTokenizer);
        if (!spec)
            throwFileError(file.path(), "tokenizer.ggml.pre = '" + vocabulary.preTokenizer +
                                            "' is a pre-tokenizer InferLens does not know (it "
                                            "knows " +
                                            knownPreTokenizerNames() + ")");
        addBosByDefault = spec->addBosByDefault;
        vocabulary.preTokenizerSpec = *spec;
    }
    vocabulary.addBos = file.optionalBool("tokenizer.ggml.add_bos_token")
                            .value_or(addBosByDefault && vocabulary.bosId >= 0);
    vocabulary.addSpacePrefix = file.optionalBool("tokenizer.ggml.add_space_prefix").value_or(!bpe);
    vocabulary.removeExtraWhitespaces =
        file.optionalBool("tokenizer.ggml.remove_extra_whitespaces").value_or(false);
    return vocabulary;
}

std::vector<GgufKeyValue> ggufVocabularyMetadata(const GgufVocabulary& vocabulary) {
    const bool bpe = vocabulary.kind == VocabularyKind::ByteLevelBpe;
    std::vector<std::string> tokens;
    std::vector<float> scores;
    std::vector<int32_t> types;
    for (const auto& entry : vocabulary.entries) {
        tokens.push_back(entry.piece);
        scores.push_back(entry.score);
        types.push_back(static_cast<int32_t>(entry.type));
    }
    std::vector<GgufKeyValue> metadata{
        {"tokenizer.ggml.model", {std::string(bpe ? "gpt2" : "llama")}},
        {"tokenizer.ggml.tokens", {GgufArray::ofStrings(std::move(tokens))}},
        {"tokenizer.ggml.scores", {GgufArray::ofFloats(scores)}},
        {"tokenizer.ggml.token_type", {GgufArray::ofInt32(types)}},
        {"tokenizer.ggml.add_bos_token", {vocabulary.addBos}},
        {"tokenizer.ggml.add_space_prefix", {vocabulary.addSpacePrefix}},
        {"tokenizer.ggml.remove_extra_whitespaces", {vocabulary.removeExtraWhitespaces}},
    };
    if (bpe) {
        metadata.push_back({"tokenizer.ggml.merges", {GgufArray::ofStrings(vocabulary.merges)}});
        metadata.push_back({"tokenizer.ggml.pre", {vocabulary.preTokenizer}});
    }
    const std::pair<const char*, int64_t> ids[] = {
        {"tokenizer.ggml.bos_token_id", vocabulary.bosId},
        {"tokenizer.ggml.eos_token_id", vocabulary.eosId},
        {"tokenizer.ggml.eot_token_id", vocabulary.eotId},
        {"tokenizer.ggml.eom_token_id", vocabulary.eomId}};
    for (const auto& [key, id] : ids)
        if (id >= 0)
            metadata.push_back({key, {uint32_t(id)}});
    return metadata;
}

}  // namespace inferlens
