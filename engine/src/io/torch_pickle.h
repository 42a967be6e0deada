#pragma once
// The `data.pkl` of a PyTorch checkpoint: a pickle of the state dict, read by a small pickle
// machine that understands only the subset torch.save writes for one (protocol 2, plus the few
// protocol-4 opcodes a caller choosing pickle_protocol=4 would add). Nothing is ever imported or
// executed: GLOBAL names are looked up in a fixed allow-list, and the two callables on it are
// interpreted, not called — collections.OrderedDict() builds an empty dict and
// torch._utils._rebuild_tensor_v2(...) builds a TorchTensorRecord. Memo, stack, marks, strings and
// the number of objects are bounded, so a hostile pickle can neither exhaust memory nor recurse.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.h"

namespace inferlens {

// A storage class that torch.save names in persistent ids (the only globals besides the two
// callables that a pickle may name): its element size, and the engine's type for the float ones.
struct TorchStorageType {
    std::string_view name;  // "torch.HalfStorage"
    int64_t elementBytes;
    std::optional<DType> dtype;  // absent: a type the engine does not compute with
};

// nullptr when `name` is not one of them.
const TorchStorageType* findTorchStorageType(std::string_view name);

// One tensor of a state dict as torch.save describes it: a strided window on a storage, which the
// archive keeps as the entry `<prefix>/data/<storageKey>`.
struct TorchTensorRecord {
    std::string name;             // the state dict's key
    std::string storageType;      // the storage class, e.g. "torch.HalfStorage"
    std::string storageKey;       // e.g. "0"
    int64_t storageNumel = 0;     // elements in the whole storage, as its persistent id says
    int64_t storageOffset = 0;    // in elements
    std::vector<int64_t> size;    // PyTorch order, outermost first
    std::vector<int64_t> stride;  // in elements, one per dimension
};

// Runs the pickle in `pickle` (the bytes of entry `entryName` of checkpoint `file`) and returns
// the state dict's tensors in pickle order. Throws Error whose message starts with `file` and
// names the entry, the byte offset and the problem.
std::vector<TorchTensorRecord> readTorchStateDict(std::span<const std::byte> pickle,
                                                  const std::string& file,
                                                  const std::string& entryName);

}  // namespace inferlens
