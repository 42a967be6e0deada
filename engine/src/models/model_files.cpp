#include "models/model_files.h"

#include <sentencepiece_processor.h>

#include <filesystem>
#include <set>

#include "core/error.h"
#include "io/gguf_file.h"
#include "io/json_file.h"
#include "io/mapped_file.h"
#include "models/weight_files.h"
#include "tokenizer/hf_tokenizer_json.h"
#include "tokenizer/sentencepiece_proto_reader.h"

namespace inferlens {
namespace fs = std::filesystem;
namespace {

bool isIgnorableBuffer(const std::string& name) {
    return name.ends_with("rotary_pos_emb.inv_freq") || name.ends_with("rotary_emb.inv_freq");
}

// Checks every spec against the file tensors and fills files.tensors / unusedTensors.
void bindSpecs(ModelFiles& files, const RawTensors& raw, bool hfNames) {
    std::set<std::string> used;
    for (const TensorSpec& spec : files.architecture->tensorSpecs(files.config)) {
        if (hfNames && spec.hfName.empty())
            continue;  // described by config.json instead (Llama 3's RoPE factors)
        const std::string& name = hfNames ? spec.hfName : spec.ggufName;
        const auto found = raw.find(name);
        if (found == raw.end()) {
            if (spec.optional)
                continue;
            throwFileError(files.path, "required tensor '" + name + "' is missing");
        }
        if (!found->second.unusableType.empty())
            throwFileError(found->second.file,
                           "tensor '" + name + "' is stored as " + found->second.unusableType +
                               ", which InferLens does not compute with (it reads "
                               "torch.FloatStorage, HalfStorage and BFloat16Storage)");
        const TensorView& view = found->second.view;
        if (view.shape != spec.shape)
            throwFileError(found->second.file,
                           "tensor '" + name + "' has shape " + shapeToString(view.shape) +
                               " but the configuration implies " + shapeToString(spec.shape));
        TensorView canonical = view;
        canonical.name = spec.ggufName;
        files.tensors.emplace(spec.ggufName, std::move(canonical));
        used.insert(name);
    }
    for (const auto& [name, tensor] : raw)
        if (!used.count(name) && !isIgnorableBuffer(name))
            files.unusedTensors.push_back(name);
}

void checkVocabularyFits(const ModelFiles& files, const std::string& source) {
    const auto count = int64_t(files.vocabulary->entries.size());
    if (count > files.config.vocabSize)
        throwFileError(source, "the tokenizer has " + std::to_string(count) +
                                   " tokens but the model's output layer only " +
                                   std::to_string(files.config.vocabSize));
}

// The vocabulary, the sentencepiece processor for a sentencepiece one, and the chat hints.
void loadGgufTokenizer(ModelFiles& files, const GgufFile& gguf) {
    if (gguf.find("general.name"))
        files.modelName = gguf.requireString("general.name");
    if (gguf.find("tokenizer.chat_template"))
        files.chatTemplate = gguf.requireString("tokenizer.chat_template");
    files.vocabulary = readGgufVocabulary(gguf);
    if (!files.vocabulary)
        return;
    files.pieceCount = int64_t(files.vocabulary->entries.size());
    if (files.vocabulary->kind == VocabularyKind::ByteLevelBpe)
        return;  // the Tokenizer builds its BPE encoder from the vocabulary
    const auto specials = files.architecture != nullptr ? files.architecture->specialsAfterPieces()
                                                        : std::vector<std::string>{};
    for (size_t id = 0; id < files.vocabulary->entries.size() && !specials.empty(); ++id) {
        if (files.vocabulary->entries[id].piece == specials.front()) {
            files.pieceCount = int64_t(id);
            break;
        }
    }
    SentencePieceOptions options;
    options.addDummyPrefix = files.vocabulary->addSpacePrefix;
    options.removeExtraWhitespaces = files.vocabulary->removeExtraWhitespaces;
    files.tokenizer = loadSentencePiece(
        serializeModelProto(files.vocabulary->entries, options, files.path), files.path);
}

void openGguf(ModelFiles& files) {
    auto gguf = std::make_shared<GgufFile>(files.path);
    files.owners.push_back(gguf);
    files.weightFiles = {files.path};
    const std::string arch = gguf->requireString("general.architecture");
    files.architecture = &architectureByName(arch, files.path);

    RawTensors raw;
    for (const TensorView& tensor : gguf->tensors())
        raw.emplace(tensor.name, LocatedTensor{tensor, files.path, {}});
    const auto embedding = raw.find("token_embd.weight");
    if (embedding == raw.end() || embedding->second.view.shape.size() != 2)
        throwFileError(files.path, "required tensor 'token_embd.weight' is missing or not 2-D");
    files.config = files.architecture->configFromGguf(*gguf, embedding->second.view.shape[0]);
    if (const auto declared = gguf->optionalInteger(arch + ".vocab_size");
        declared && *declared != files.config.vocabSize)
        throwFileError(files.path, arch + ".vocab_size = " + std::to_string(*declared) +
                                       " disagrees with token_embd.weight's " +
                                       std::to_string(files.config.vocabSize) + " rows");
    validateConfig(files.config, files.path);
    bindSpecs(files, raw, false);
    loadGgufTokenizer(files, *gguf);
    if (files.vocabulary)
        checkVocabularyFits(files, files.path);
}

// tokenizer.json with a byte-level BPE model, for directories that ship no tokenizer.model.
void openHfTokenizerJson(ModelFiles& files, const fs::path& directory) {
    const fs::path json = directory / "tokenizer.json";
    if (!fs::exists(json))
        return;
    const fs::path config = directory / "tokenizer_config.json";
    files.vocabulary =
        readHfTokenizerJson(json.string(), fs::exists(config) ? config.string() : "");
    files.pieceCount = int64_t(files.vocabulary->entries.size());
    checkVocabularyFits(files, json.string());
}

void openHfTokenizer(ModelFiles& files, const fs::path& directory) {
    const fs::path tokenizerPath = directory / "tokenizer.model";
    if (!fs::exists(tokenizerPath))
        return openHfTokenizerJson(files, directory);
    const MappedFile bytes(tokenizerPath.string());
    const auto span = bytes.bytes();
    files.tokenizer =
        loadSentencePiece(std::string(reinterpret_cast<const char*>(span.data()), span.size()),
                          tokenizerPath.string());
    GgufVocabulary vocabulary;
    vocabulary.entries = vocabularyOf(*files.tokenizer);
    files.pieceCount = int64_t(vocabulary.entries.size());
    for (const auto& special : files.architecture->specialsAfterPieces())
        vocabulary.entries.push_back({special, 0.0f, PieceType::Control});
    if (!files.architecture->specialsAfterPieces().empty()) {
        // Padding rows of the output layer, named as llama.cpp's converter names them.
        while (int64_t(vocabulary.entries.size()) < files.config.vocabSize)
            vocabulary.entries.push_back({"[PAD" + std::to_string(vocabulary.entries.size()) + "]",
                                          0.0f, PieceType::Unused});
    }
    const SentencePieceSettings settings =
        readSentencePieceSettings(files.tokenizer->serialized_model_proto());
    vocabulary.addSpacePrefix = settings.addDummyPrefix;
    vocabulary.removeExtraWhitespaces = settings.removeExtraWhitespaces;
    vocabulary.bosId = files.tokenizer->bos_id();
    vocabulary.eosId = files.tokenizer->eos_id();
    vocabulary.addBos = files.architecture->specialsAfterPieces().empty();
    files.vocabulary = std::move(vocabulary);
    checkVocabularyFits(files, tokenizerPath.string());
}

void openHuggingFace(ModelFiles& files) {
    files.format = ModelFormat::HuggingFace;
    const fs::path directory(files.path);
    const std::string configPath = (directory / "config.json").string();
    if (!fs::exists(configPath))
        throwFileError(files.path, "not a GGUF file, and no config.json in this directory");
    const auto json = readJsonFile(configPath);
    files.architecture = &architectureForHfConfig(json, configPath);
    files.config = files.architecture->configFromHf(json, configPath);
    validateConfig(files.config, configPath);
    const RawTensors raw = readHfWeights(files, directory);
    bindSpecs(files, raw, true);
    openHfTokenizer(files, directory);
    if (const auto name = json.find("_name_or_path"); name != json.end() && name->is_string())
        files.modelName = name->get<std::string>();
    const fs::path tokenizerConfig = directory / "tokenizer_config.json";
    if (fs::exists(tokenizerConfig)) {
        const auto settings = readJsonFile(tokenizerConfig.string());
        if (const auto chat = settings.find("chat_template");
            chat != settings.end() && chat->is_string())
            files.chatTemplate = chat->get<std::string>();
    }
}

}  // namespace

ModelFiles openModelFiles(const std::string& path) {
    ModelFiles files;
    files.path = path;
    std::error_code error;
    if (fs::is_directory(path, error))
        openHuggingFace(files);
    else if (path.ends_with(".safetensors") || path.ends_with(".json") ||
             (fs::path(path).filename().string().starts_with("pytorch_model") &&
              path.ends_with(".bin")))
        throwFileError(path,
                       "pass the model's directory (config.json, *.safetensors or "
                       "pytorch_model*.bin), not one file");
    else if (fs::exists(path, error))
        openGguf(files);
    else
        throwFileError(path, "no such file or directory");
    return files;
}

ModelFiles openTokenizerFiles(const std::string& path) {
    std::error_code error;
    if (fs::is_directory(path, error) || !fs::exists(path, error))
        return openModelFiles(path);
    ModelFiles files;
    files.path = path;
    const GgufFile gguf(path);
    files.vocabularyOnly = gguf.tensors().empty();
    // The architecture matters only for ChatGLM's specials; any other name, known or not, is fine.
    if (gguf.find("general.architecture")) {
        try {
            files.architecture =
                &architectureByName(gguf.requireString("general.architecture"), path);
        } catch (const Error&) {
            files.architecture = nullptr;
        }
    }
    loadGgufTokenizer(files, gguf);
    return files;
}

bool isVocabularyOnlyGguf(const std::string& path) {
    std::error_code error;
    if (!fs::is_regular_file(path, error))
        return false;
    try {
        return GgufFile(path).tensors().empty();
    } catch (const Error&) {
        return false;
    }
}

int64_t ModelFiles::parameterCount() const {
    int64_t count = 0;
    for (const auto& [name, tensor] : tensors)
        count += tensor.elementCount();
    return count;
}

int64_t ModelFiles::weightBytes() const {
    int64_t bytes = 0;
    for (const auto& [name, tensor] : tensors)
        bytes += tensor.byteCount;
    return bytes;
}

}  // namespace inferlens
