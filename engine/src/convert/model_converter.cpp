#include "convert/model_converter.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <vector>

#include "convert/model_writer.h"
#include "core/dtype_codec.h"
#include "models/rope_permutation.h"

namespace inferlens {

namespace {

// The type of most 2-D weights: what a Hugging Face checkpoint stores everything in (its
// torch_dtype), while GGUF keeps 1-D tensors in f32.
DType predominantMatrixType(const ModelFiles& source) {
    std::map<DType, int> counts;
    for (const auto& [name, tensor] : source.tensors)
        if (tensor.shape.size() == 2)
            ++counts[tensor.dtype];
    DType best = DType::F32;
    int bestCount = -1;
    for (const auto& [dtype, count] : counts)
        if (count > bestCount)
            best = dtype, bestCount = count;
    return best;
}

// Whether every value of `tensor` survives a round trip through `dtype` unchanged.
bool representableExactly(const TensorView& tensor, DType dtype) {
    std::vector<float> values(size_t(tensor.elementCount())), roundTripped(values.size());
    std::vector<std::byte> encoded(size_t(*byteSize(dtype, tensor.elementCount())));
    decodeRow(tensor.dtype, tensor.data, values);
    encodeRow(dtype, values, encoded.data());
    decodeRow(dtype, encoded.data(), roundTripped);
    return values == roundTripped;
}

// Without --dtype nothing is rounded. A Hugging Face checkpoint keeps everything in one type (its
// torch_dtype) where that loses nothing, so GGUF's f32 norms that came from a bf16 checkpoint go
// back to bf16 and HF → GGUF → HF gives the original files. safetensors has no Q8_0/Q4_0: those
// become f32, which holds every dequantized value d·q exactly (an 11-bit fp16 scale times an
// integer of up to 8 bits); f16 would round many of them.
DType storedType(const TensorView& tensor, ModelFormat format, std::optional<DType> requested,
                 DType checkpointType) {
    if (requested)
        return *requested;
    if (format == ModelFormat::Gguf)
        return tensor.dtype;
    if (isBlockQuantized(tensor.dtype))
        return DType::F32;
    const DType target = isBlockQuantized(checkpointType) ? DType::F32 : checkpointType;
    if (tensor.dtype == target)
        return tensor.dtype;
    return representableExactly(tensor, target) ? target : tensor.dtype;
}

}  // namespace

void convertModel(const ModelFiles& source, ModelFormat format, std::optional<DType> dtype,
                  const std::string& path) {
    ModelToWrite model;
    model.architecture = source.architecture;
    model.config = source.config;
    model.vocabulary = source.vocabulary;
    model.pieceCount = source.pieceCount;
    model.name = source.modelName.empty() ? std::filesystem::path(source.path).stem().string()
                                          : source.modelName;
    model.chatTemplate = source.chatTemplate;
    const ModelConfig& c = source.config;
    const DType checkpointType = predominantMatrixType(source);
    // The writer takes the canonical form: GGUF's adjacent-pair Q/K rows and 1 + w norms.
    const bool fromHf = source.format == ModelFormat::HuggingFace;
    for (const TensorSpec& spec : source.architecture->tensorSpecs(c)) {
        if (!spec.derivedValues.empty()) {
            const std::vector<float> values = spec.derivedValues;
            model.weights.push_back(
                {spec.ggufName, spec.shape, DType::F32, [values](std::span<float> out) {
                     std::copy(values.begin(), values.end(), out.begin());
                 }});
            continue;
        }
        const auto found = source.tensors.find(spec.ggufName);
        if (found == source.tensors.end())
            continue;  // an optional tensor the source lacks
        const TensorView& tensor = found->second;
        const int64_t permuteHeads = spec.ropePermuteHeads;
        const float normOffset = fromHf ? spec.hfNormOffset : 0.0f;
        const DType stored = storedType(tensor, format, dtype, checkpointType);
        model.weights.push_back({spec.ggufName, tensor.shape, stored,
                                 [&tensor, &c, permuteHeads, normOffset](std::span<float> out) {
                                     decodeRow(tensor.dtype, tensor.data, out);
                                     if (permuteHeads > 0)
                                         permuteRopeRows(out, tensor.columns(), permuteHeads,
                                                         c.headDim, c.ropeDims, c.ropePairing,
                                                         RopePairing::Adjacent);
                                     for (float& value : out)
                                         value += normOffset;
                                 }});
    }
    writeModel(model, format, path);
}

}  // namespace inferlens
