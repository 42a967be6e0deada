#include "models/weight_files.h"

#include <functional>
#include <memory>
#include <set>
#include <vector>

#include "core/error.h"
#include "io/json_file.h"
#include "io/safetensors_file.h"
#include "io/torch_checkpoint.h"

namespace inferlens {
namespace fs = std::filesystem;
namespace {

// One form of weights: its single-file name and its index's name.
struct WeightForm {
    const char* single;
    const char* index;
};

constexpr WeightForm kSafetensors{"model.safetensors", "model.safetensors.index.json"};
constexpr WeightForm kTorch{"pytorch_model.bin", "pytorch_model.bin.index.json"};

// An opened weight file: what keeps its mapping alive, and its tensors.
struct Shard {
    std::shared_ptr<const void> owner;
    std::vector<LocatedTensor> tensors;
};

using ShardOpener = std::function<Shard(const std::string& path)>;

Shard openSafetensors(const std::string& path) {
    auto file = std::make_shared<SafetensorsFile>(path);
    Shard shard{file, {}};
    for (const TensorView& tensor : file->tensors())
        shard.tensors.push_back({tensor, path, {}});
    return shard;
}

Shard openTorch(const std::string& path) {
    auto file = std::make_shared<TorchCheckpoint>(path);
    Shard shard{file, {}};
    for (const TensorView& tensor : file->tensors())
        shard.tensors.push_back({tensor, path, {}});
    for (const auto& [name, type] : file->otherTensors()) {
        TensorView placeholder;
        placeholder.name = name;
        shard.tensors.push_back({placeholder, path, type});
    }
    return shard;
}

// A *.index.json as transformers writes it: {"metadata": {...}, "weight_map": {tensor: shard}}.
struct ShardIndex {
    std::vector<std::string> shards;               // in order of first mention
    std::map<std::string, std::string> weightMap;  // tensor name → shard file name
};

ShardIndex readShardIndex(const fs::path& path) {
    const std::string file = path.string();
    const auto json = readJsonFile(file);
    const auto map = json.find("weight_map");
    if (map == json.end() || !map->is_object())
        throwFileError(file, "'weight_map' is missing or not an object");
    ShardIndex index;
    std::set<std::string> seen;
    for (const auto& [tensor, shard] : map->items()) {
        if (!shard.is_string())
            throwFileError(file, "weight_map entry '" + tensor + "' is not a file name");
        const auto shardName = shard.get<std::string>();
        // Shards are plain names inside the directory: no path may lead out of it.
        if (shardName.empty() || shardName.find('/') != std::string::npos || shardName == "." ||
            shardName == "..")
            throwFileError(file, "weight_map names an invalid shard '" + shardName + "'");
        index.weightMap[tensor] = shardName;
        if (seen.insert(shardName).second)
            index.shards.push_back(shardName);
    }
    return index;
}

RawTensors readForm(ModelFiles& files, const fs::path& directory, const WeightForm& form,
                    const ShardOpener& open) {
    ShardIndex index;
    if (fs::exists(directory / form.index))
        index = readShardIndex(directory / form.index);
    else
        index.shards.push_back(form.single);
    RawTensors raw;
    for (const auto& shardName : index.shards) {
        const std::string shardPath = (directory / shardName).string();
        Shard shard = open(shardPath);
        files.owners.push_back(shard.owner);
        files.weightFiles.push_back(shardPath);
        for (LocatedTensor& tensor : shard.tensors) {
            const std::string name = tensor.view.name;
            if (!index.weightMap.empty()) {
                const auto expected = index.weightMap.find(name);
                if (expected == index.weightMap.end() || expected->second != shardName)
                    continue;
            }
            if (!raw.emplace(name, std::move(tensor)).second)
                throwFileError(shardPath, "tensor '" + name + "' appears in two shards");
        }
    }
    for (const auto& [tensor, shardName] : index.weightMap)
        if (!raw.count(tensor))
            throwFileError((directory / shardName).string(),
                           "tensor '" + tensor + "' listed in the index is not in this shard");
    return raw;
}

}  // namespace

RawTensors readHfWeights(ModelFiles& files, const fs::path& directory) {
    const std::pair<const WeightForm&, ShardOpener> forms[] = {{kSafetensors, openSafetensors},
                                                               {kTorch, openTorch}};
    for (const auto& [form, open] : forms)
        if (fs::exists(directory / form.index) || fs::exists(directory / form.single))
            return readForm(files, directory, form, open);
    throwFileError(directory.string(),
                   "no model.safetensors, model.safetensors.index.json, pytorch_model.bin or "
                   "pytorch_model.bin.index.json found");
}

}  // namespace inferlens
