#pragma once
// The weight files of a Hugging Face directory, in either form models are published in:
// safetensors (model.safetensors, or shards listed by model.safetensors.index.json) or PyTorch
// checkpoints (pytorch_model.bin, or shards listed by pytorch_model.bin.index.json, as ChatGLM2-6B
// is published). Safetensors win when a directory has both, as in transformers. Both forms share
// one index reader and one check that every tensor the index lists is in the shard it names.

#include <filesystem>
#include <map>
#include <string>

#include "core/tensor.h"
#include "models/model_files.h"

namespace inferlens {

// A tensor as found in a weight file, before it is matched to the architecture's specs.
struct LocatedTensor {
    TensorView view;
    std::string file;
    // Set for a valid tensor of a type the engine cannot compute with (e.g. an int64 buffer in a
    // PyTorch checkpoint): what it is, for the error raised only if the model needs it.
    std::string unusableType;
};

using RawTensors = std::map<std::string, LocatedTensor>;

// Opens the directory's weight files, adding their mappings to files.owners and their paths to
// files.weightFiles. Throws Error naming the file at fault.
RawTensors readHfWeights(ModelFiles& files, const std::filesystem::path& directory);

}  // namespace inferlens
