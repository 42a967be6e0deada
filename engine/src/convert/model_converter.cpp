#include "convert/model_converter.h"

#include <map>

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

}  // namespace

void convertModel(const ModelFiles& source, ModelFormat format, std::optional<DType> dtype,
                  const std::string& path) {
    ModelToWrite model;
    model.architecture = source.architecture;
    model.config = source.config;
    model.vocabulary = source.vocabulary;
    model.pieceCount = source.pieceCount;
    model.name = source.path;
    const ModelConfig& c = source.config;
    const DType checkpointType = predominantMatrixType(source);
    for (const TensorSpec& spec : source.architecture->tensorSpecs(c)) {
        const auto found = source.tensors.find(spec.ggufName);
        if (found == source.tensors.end())
            continue;  // an optional tensor the source lacks
        const TensorView& tensor = found->second;
        const int64_t permuteHeads = spec.ropePermuteHeads;
        const DType stored =
            dtype.value_or(format == ModelFormat::HuggingFace ? checkpointType : tensor.dtype);
        model.weights.push_back({spec.ggufName, tensor.shape, stored,
                                 [&tensor, &c, permuteHeads](std::span<float> out) {
                                     decodeRow(tensor.dtype, tensor.data, out);
                                     if (permuteHeads > 0)
                                         permuteRopeRows(out, tensor.columns(), permuteHeads,
                                                         c.headDim, c.ropeDims, c.ropePairing,
                                                         RopePairing::Adjacent);
                                 }});
    }
    writeModel(model, format, path);
}

}  // namespace inferlens
