#include "tokenizer/hf_tokenizer_json.h"

#include <fstream>
#include <sstream>

#include "core/error.h"
#include "io/json_file.h"
#include "tokenizer/pre_tokenizer_table.h"

namespace inferlens {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& path, const std::string& key, const std::string& why) {
    throwFileError(path, key + ": " + why);
}

const json& member(const json& object, const char* key, const std::string& path,
                   const std::string& where) {
    if (!object.is_object() || !object.contains(key))
        fail(path, where + "." + key, "missing");
    return object.at(key);
}

std::string stringMember(const json& object, const char* key, const std::string& path,
                         const std::string& where) {
    const json& value = member(object, key, path, where);
    if (!value.is_string())
        fail(path, where + "." + key, "expected a string, found " + describeJson(value));
    return value.get<std::string>();
}

// Regular-expression metacharacters of a Split's String pattern, escaped.
std::string literalExpression(const std::string& text) {
    std::string expression;
    for (const char c : text) {
        if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos)
            expression += '\\';
        expression += c;
    }
    return expression;
}

void addPreTokenizer(const json& node, const std::string& path, const std::string& where,
                     PreTokenizerSpec& spec) {
    if (node.is_null())
        return;
    const std::string type = stringMember(node, "type", path, where);
    if (type == "Sequence") {
        const json& list = member(node, "pretokenizers", path, where);
        if (!list.is_array())
            fail(path, where + ".pretokenizers", "expected an array");
        for (size_t i = 0; i < list.size(); ++i)
            addPreTokenizer(list[i], path, where + ".pretokenizers[" + std::to_string(i) + "]",
                            spec);
    } else if (type == "ByteLevel") {
        if (node.value("add_prefix_space", false) == true)
            fail(path, where + ".add_prefix_space",
                 "true is not supported (no GGUF pre-tokenizer adds a space)");
        if (node.value("use_regex", true) == true)
            spec.expressions.emplace_back(kGpt2Expression);
    } else if (type == "Split") {
        const json& pattern = member(node, "pattern", path, where);
        if (node.value("behavior", std::string()) != "Isolated" || node.value("invert", false))
            fail(path, where + ".behavior",
                 "only the \"Isolated\" behaviour without invert is supported");
        if (pattern.is_object() && pattern.contains("Regex") && pattern["Regex"].is_string())
            spec.expressions.push_back(pattern["Regex"].get<std::string>());
        else if (pattern.is_object() && pattern.contains("String") && pattern["String"].is_string())
            spec.expressions.push_back(literalExpression(pattern["String"].get<std::string>()));
        else
            fail(path, where + ".pattern", "expected {\"Regex\": ...} or {\"String\": ...}");
    } else if (type == "Digits") {
        spec.expressions.push_back(node.value("individual_digits", false) ? R"(\p{N})"
                                                                          : R"(\p{N}+)");
    } else {
        fail(path, where + ".type", "pre-tokenizer '" + type + "' is not supported");
    }
}

// Whether a pre-tokenizer or decoder is ByteLevel or a Sequence holding one.
bool hasByteLevel(const json& node) {
    if (!node.is_object())
        return false;
    if (node.value("type", json()) == "ByteLevel")
        return true;
    for (const char* list : {"pretokenizers", "decoders"})
        if (node.contains(list) && node[list].is_array())
            for (const json& inner : node[list])
                if (hasByteLevel(inner))
                    return true;
    return false;
}

// The token a TemplateProcessing post-processor puts before the text ($A), if any.
std::optional<std::string> templateBos(const json& node) {
    if (!node.is_object())
        return std::nullopt;
    if (node.value("type", std::string()) == "Sequence" && node.contains("processors") &&
        node["processors"].is_array()) {
        for (const json& processor : node["processors"])
            if (const auto bos = templateBos(processor))
                return bos;
        return std::nullopt;
    }
    if (node.value("type", std::string()) != "TemplateProcessing" || !node.contains("single") ||
        !node["single"].is_array() || node["single"].empty())
        return std::nullopt;
    const json& first = node["single"][0];
    if (first.is_object() && first.contains("SpecialToken") && first["SpecialToken"].is_object() &&
        first["SpecialToken"].contains("id") && first["SpecialToken"]["id"].is_string())
        return first["SpecialToken"]["id"].get<std::string>();
    return std::nullopt;
}

// tokenizer_config.json writes special tokens as a string or as {"content": ...}.
std::optional<std::string> configToken(const json& config, const char* key) {
    if (!config.is_object() || !config.contains(key))
        return std::nullopt;
    const json& value = config[key];
    if (value.is_string())
        return value.get<std::string>();
    if (value.is_object() && value.contains("content") && value["content"].is_string())
        return value["content"].get<std::string>();
    return std::nullopt;
}

int64_t idOf(const GgufVocabulary& vocabulary, const std::string& piece) {
    for (size_t id = 0; id < vocabulary.entries.size(); ++id)
        if (vocabulary.entries[id].piece == piece)
            return int64_t(id);
    return -1;
}

std::string readText(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throwFileError(path, "cannot be read");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

GgufVocabulary readTokenizerDocuments(std::string_view tokenizerJson, std::string_view configJson,
                                      const std::string& path) {
    const json root = parseJsonObject(tokenizerJson, path);
    const json config = configJson.empty()
                            ? json::object()
                            : parseJsonObject(configJson, path + " (tokenizer_config.json)");
    const json& model = member(root, "model", path, "tokenizer");
    if (const std::string type = model.value("type", std::string("BPE")); type != "BPE")
        fail(path, "model.type", "'" + type + "' is not supported: only BPE models are");
    if (root.contains("normalizer") && !root["normalizer"].is_null() &&
        root["normalizer"].value("type", std::string()) != "NFC")
        fail(path, "normalizer", "only none or NFC (not applied, as in llama.cpp) is supported");

    // Sentencepiece-style BPE (pieces with "▁", byte fallback) has neither; its pieces would be
    // read in GPT-2's alphabet and give wrong tokens.
    if (!hasByteLevel(root.value("pre_tokenizer", json())) &&
        !hasByteLevel(root.value("decoder", json())))
        fail(path, "pre_tokenizer",
             "neither the pre-tokenizer nor the decoder is ByteLevel: only byte-level BPE is "
             "supported");

    GgufVocabulary vocabulary;
    vocabulary.kind = VocabularyKind::ByteLevelBpe;
    const json& vocab = member(model, "vocab", path, "model");
    if (!vocab.is_object())
        fail(path, "model.vocab", "expected an object of token → id");
    const json added = root.value("added_tokens", json::array());
    // Ids run from 0 without gaps in real files; bounding them by the number of tokens keeps a
    // tiny file from asking for a huge table.
    const auto tokenCount = int64_t(vocab.size() + (added.is_array() ? added.size() : 0));
    const auto place = [&](const std::string& piece, const json& idValue, PieceType type,
                           const std::string& where) {
        if (!idValue.is_number_integer() || idValue.get<int64_t>() < 0 ||
            idValue.get<int64_t>() >= tokenCount)
            fail(path, where,
                 "id " + describeJson(idValue) + " is not in [0, " + std::to_string(tokenCount) +
                     "), the number of tokens in model.vocab and added_tokens");
        const auto id = size_t(idValue.get<int64_t>());
        if (id >= vocabulary.entries.size())
            vocabulary.entries.resize(id + 1, {"", 0.0f, PieceType::Unused});
        vocabulary.entries[id] = {piece, 0.0f, type};
    };
    for (const auto& [piece, id] : vocab.items())
        place(piece, id, PieceType::Normal, "model.vocab['" + piece + "']");
    if (root.contains("added_tokens")) {
        if (!added.is_array())
            fail(path, "added_tokens", "expected an array");
        for (size_t i = 0; i < added.size(); ++i) {
            const std::string where = "added_tokens[" + std::to_string(i) + "]";
            place(stringMember(added[i], "content", path, where),
                  member(added[i], "id", path, where),
                  added[i].value("special", false) ? PieceType::Control : PieceType::UserDefined,
                  where + ".id");
        }
    }
    for (size_t id = 0; id < vocabulary.entries.size(); ++id)
        if (vocabulary.entries[id].type == PieceType::Unused)  // a hole in the ids
            vocabulary.entries[id].piece = "[PAD" + std::to_string(id) + "]";

    const json& merges = member(model, "merges", path, "model");
    if (!merges.is_array())
        fail(path, "model.merges", "expected an array");
    for (size_t i = 0; i < merges.size(); ++i) {
        const json& merge = merges[i];
        if (merge.is_string())
            vocabulary.merges.push_back(merge.get<std::string>());
        else if (merge.is_array() && merge.size() == 2 && merge[0].is_string() &&
                 merge[1].is_string())
            vocabulary.merges.push_back(merge[0].get<std::string>() + " " +
                                        merge[1].get<std::string>());
        else
            fail(path, "model.merges[" + std::to_string(i) + "]",
                 "expected \"left right\" or [\"left\", \"right\"]");
    }

    vocabulary.preTokenizerSpec.ignoreMerges = model.value("ignore_merges", false) == true;
    if (root.contains("pre_tokenizer"))
        addPreTokenizer(root["pre_tokenizer"], path, "pre_tokenizer", vocabulary.preTokenizerSpec);
    vocabulary.preTokenizer = "tokenizer.json";

    const std::optional<std::string> bos = configToken(config, "bos_token")
                                               ? configToken(config, "bos_token")
                                               : templateBos(root.value("post_processor", json()));
    if (bos)
        vocabulary.bosId = idOf(vocabulary, *bos);
    if (const auto eos = configToken(config, "eos_token"))
        vocabulary.eosId = idOf(vocabulary, *eos);
    const bool templateAddsBos = templateBos(root.value("post_processor", json())).has_value();
    const json addBos = config.value("add_bos_token", json());
    vocabulary.addBos =
        (addBos.is_boolean() ? addBos.get<bool>() : templateAddsBos) && vocabulary.bosId >= 0;
    vocabulary.addSpacePrefix = false;
    return vocabulary;
}

}  // namespace

GgufVocabulary parseHfTokenizerJson(std::string_view tokenizerJson, std::string_view configJson,
                                    const std::string& path) {
    try {
        return readTokenizerDocuments(tokenizerJson, configJson, path);
    } catch (const json::exception& error) {
        // A value of another type where an optional setting is read (e.g. "use_regex": "yes"):
        // the checks above name the keys they require; this names the file for the rest.
        throwFileError(path, std::string("unexpected JSON structure (") + error.what() + ")");
    }
}

GgufVocabulary readHfTokenizerJson(const std::string& path, const std::string& configPath) {
    return parseHfTokenizerJson(readText(path), configPath.empty() ? "" : readText(configPath),
                                path);
}

}  // namespace inferlens
