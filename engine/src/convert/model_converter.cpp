#include "convert/model_converter.h"

#include "convert/model_writer.h"
#include "core/dtype_codec.h"
#include "models/rope_permutation.h"

namespace inferlens {

void convertModel(const ModelFiles& source, ModelFormat format, std::optional<DType> dtype,
                  const std::string& path) {
    ModelToWrite model;
    model.architecture = source.architecture;
    model.config = source.config;
    model.vocabulary = source.vocabulary;
    model.pieceCount = source.pieceCount;
    model.name = source.path;
    const ModelConfig& c = source.config;
    for (const TensorSpec& spec : source.architecture->tensorSpecs(c)) {
        const auto found = source.tensors.find(spec.ggufName);
        if (found == source.tensors.end()) continue;  // an optional tensor the source lacks
        const TensorView& tensor = found->second;
        const int64_t permuteHeads = spec.ropePermuteHeads;
        model.weights.push_back(
            {spec.ggufName, tensor.shape, dtype.value_or(tensor.dtype),
             [&tensor, &c, permuteHeads](std::span<float> out) {
                 decodeRow(tensor.dtype, tensor.data, out);
                 if (permuteHeads > 0)
                     permuteRopeRows(out, tensor.columns(), permuteHeads, c.headDim, c.ropeDims,
                                     c.ropePairing, RopePairing::Adjacent);
             }});
    }
    writeModel(model, format, path);
}

}  // namespace inferlens
