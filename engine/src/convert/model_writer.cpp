#include "convert/model_writer.h"

#include <cctype>
#include <filesystem>
#include <map>

#include "core/dtype_codec.h"
#include "core/error.h"
#include "core/tensor.h"
#include "io/atomic_file_writer.h"
#include "io/gguf_writer.h"
#include "io/safetensors_file.h"
#include "models/rope_permutation.h"

namespace inferlens {
namespace fs = std::filesystem;
namespace {

int64_t elementCount(const std::vector<int64_t>& shape) {
    int64_t count = 1;
    for (int64_t dim : shape)
        count *= dim;
    return count;
}

// The canonical values of `weight` laid out for a file: as they are for GGUF; for Hugging Face
// with Q/K rows permuted to rotate-half order and Gemma's norms stored as w instead of 1 + w
// (the spec's ropePermuteHeads and hfNormOffset, zero for GGUF).
TensorSource encodeSource(const WeightSource& weight, std::string name, DType dtype,
                          const ModelConfig& config, int64_t ropePermuteHeads, float hfNormOffset) {
    TensorSource source{std::move(name), dtype, weight.shape, {}};
    source.fill = [&weight, dtype, &config, ropePermuteHeads,
                   hfNormOffset](std::span<std::byte> out) {
        std::vector<float> values(size_t(elementCount(weight.shape)));
        weight.values(values);
        if (ropePermuteHeads > 0)
            permuteRopeRows(values, weight.shape.size() == 2 ? weight.shape[1] : 1,
                            ropePermuteHeads, config.headDim, config.ropeDims,
                            RopePairing::Adjacent, RopePairing::RotateHalf);
        for (float& value : values)
            value -= hfNormOffset;
        encodeRow(dtype, values, out.data());
    };
    return source;
}

// llama.cpp's llama_ftype numbers, named after the type of the 2-D weights.
uint32_t ggufFileType(const std::vector<WeightSource>& weights) {
    for (const auto& weight : weights) {
        if (weight.shape.size() != 2)
            continue;
        switch (weight.dtype) {
            case DType::F32:
                return 0;  // LLAMA_FTYPE_ALL_F32
            case DType::F16:
                return 1;  // LLAMA_FTYPE_MOSTLY_F16
            case DType::BF16:
                return 32;  // LLAMA_FTYPE_MOSTLY_BF16
            case DType::Q8_0:
                return 7;  // LLAMA_FTYPE_MOSTLY_Q8_0
            case DType::Q4_0:
                return 2;  // LLAMA_FTYPE_MOSTLY_Q4_0
            case DType::Q4_1:
                return 3;  // LLAMA_FTYPE_MOSTLY_Q4_1
            case DType::Q5_0:
                return 8;  // LLAMA_FTYPE_MOSTLY_Q5_0
            case DType::Q5_1:
                return 9;  // LLAMA_FTYPE_MOSTLY_Q5_1
            case DType::Q4_K:
                return 14;  // LLAMA_FTYPE_MOSTLY_Q4_K_S (every matrix Q4_K)
            case DType::Q5_K:
                return 16;  // LLAMA_FTYPE_MOSTLY_Q5_K_S
            case DType::Q6_K:
                return 18;  // LLAMA_FTYPE_MOSTLY_Q6_K
        }
    }
    return 0;
}

std::string upperCase(std::string_view text) {
    std::string upper(text);
    for (char& c : upper)
        c = char(std::toupper(static_cast<unsigned char>(c)));
    return upper;
}

// A block type needs rows of whole blocks. Checked for every tensor before anything is written.
// A tensor that does not fit is an error, not (as in llama.cpp's quantizer) silently stored as f16:
// the user asked for this type. The model families we target have hidden and FFN sizes that are
// multiples of 32 (13696 = 428 · 32), so the 32-value types fit them; the 256-value K types do not
// fit ChatGLM2's 13696 (llama.cpp's quantizer falls back to other types there).
void checkBlockRows(const WeightSource& weight, DType dtype) {
    const int64_t block = dtypeInfo(dtype).blockElements;
    if (weight.shape.empty() || weight.shape.back() % block == 0)
        return;
    throw Error("tensor " + weight.name + " " + shapeToString(weight.shape) + ": rows of " +
                std::to_string(weight.shape.back()) + " values are not a whole number of " +
                std::to_string(block) + "-value " + std::string(dtypeName(dtype)) +
                " blocks; choose sizes that are multiples of " + std::to_string(block) +
                ", or --dtype f16");
}

void writeGguf(const ModelToWrite& model, const std::string& path) {
    GgufWriter writer;
    for (auto& entry : model.architecture->ggufMetadata(model.config))
        writer.set(entry.key, std::move(entry.value));
    writer.set("general.name", {model.name});
    if (!model.chatTemplate.empty())
        writer.set("tokenizer.chat_template", {model.chatTemplate});
    writer.set("general.file_type", {ggufFileType(model.weights)});
    writer.set("general.alignment", {uint32_t(32)});
    if (model.vocabulary)
        for (auto& entry : ggufVocabularyMetadata(*model.vocabulary))
            writer.set(entry.key, std::move(entry.value));
    for (const auto& weight : model.weights) {
        const DType dtype = weight.shape.size() == 1 ? DType::F32 : weight.dtype;
        checkBlockRows(weight, dtype);
        writer.addTensor(encodeSource(weight, weight.name, dtype, model.config, 0, 0.0f));
    }
    writer.write(path);
}

std::string_view torchDtypeName(const std::vector<WeightSource>& weights) {
    for (const auto& weight : weights) {
        if (weight.dtype == DType::F16)
            return "float16";
        if (weight.dtype == DType::BF16)
            return "bfloat16";
    }
    return "float32";
}

void writeTextFile(const std::string& path, const std::string& text) {
    AtomicFileWriter out(path);
    out.write(text.data(), text.size());
    out.commit();
}

void writeHuggingFace(const ModelToWrite& model, const std::string& path) {
    for (const auto& weight : model.weights)
        if (dtypeInfo(weight.dtype).safetensorsName.empty())
            throw Error(upperCase(dtypeName(weight.dtype)) +
                        " cannot be stored in safetensors; use --format gguf, or --dtype f16 (or "
                        "bf16, f32) for a Hugging Face directory");
    std::error_code error;
    fs::create_directories(path, error);
    if (error)
        throwFileError(path, "cannot create directory: " + error.message());
    if (fs::exists(fs::path(path) / "model.safetensors.index.json"))
        throwFileError(
            path,
            "holds a sharded model (model.safetensors.index.json); choose an empty directory");

    std::map<std::string, const TensorSpec*> specByName;
    const auto specs = model.architecture->tensorSpecs(model.config);
    for (const auto& spec : specs)
        specByName[spec.ggufName] = &spec;
    std::vector<TensorSource> tensors;
    for (const auto& weight : model.weights) {
        const auto spec = specByName.find(weight.name);
        if (spec == specByName.end())
            throw Error("tensor " + weight.name + " has no Hugging Face name in " +
                        std::string(model.architecture->name()));
        if (spec->second->hfName.empty())
            continue;  // config.json describes it (Llama 3's RoPE factors)
        tensors.push_back(encodeSource(weight, spec->second->hfName, weight.dtype, model.config,
                                       spec->second->ropePermuteHeads, spec->second->hfNormOffset));
    }
    nlohmann::json config =
        model.architecture->hfConfig(model.config, torchDtypeName(model.weights));
    config["_name_or_path"] = model.name;
    writeTextFile((fs::path(path) / "config.json").string(), config.dump(2) + "\n");
    if (!model.chatTemplate.empty())
        writeTextFile((fs::path(path) / "tokenizer_config.json").string(),
                      nlohmann::json{{"chat_template", model.chatTemplate}}.dump(2) + "\n");
    writeSafetensors((fs::path(path) / "model.safetensors").string(), tensors);
    if (model.vocabulary) {
        const std::vector<VocabEntry> pieces(model.vocabulary->entries.begin(),
                                             model.vocabulary->entries.begin() + model.pieceCount);
        SentencePieceOptions options;
        options.addDummyPrefix = model.vocabulary->addSpacePrefix;
        options.removeExtraWhitespaces = model.vocabulary->removeExtraWhitespaces;
        const std::string tokenizerPath = (fs::path(path) / "tokenizer.model").string();
        writeTextFile(tokenizerPath, serializeModelProto(pieces, options, tokenizerPath));
    }
}

}  // namespace

void writeModel(const ModelToWrite& model, ModelFormat format, const std::string& path) {
    if (format == ModelFormat::Gguf)
        writeGguf(model, path);
    else
        writeHuggingFace(model, path);
}

}  // namespace inferlens
