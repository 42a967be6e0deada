#include "io/torch_checkpoint.h"

#include <optional>
#include <string_view>

#include "core/error.h"
#include "io/torch_pickle.h"
#include "io/zip_archive.h"

namespace inferlens {
namespace {

constexpr int64_t kMaxElements = int64_t(1) << 48;  // as for safetensors
constexpr uint64_t kMaxPickleBytes = uint64_t(64) << 20;

const TorchStorageType& storageType(const std::string& name, const std::string& path) {
    const TorchStorageType* type = findTorchStorageType(name);
    if (type == nullptr)  // cannot happen: the pickle admits no other storage class
        throwFileError(path, "unknown storage type '" + name + "'");
    return *type;
}

// A state dict key or entry name, ready to quote.
std::string quoted(const std::string& text) {
    return "'" + printableName(text) + "'";
}

// The archive's top-level folder: the one X with an entry "X/data.pkl".
std::string findPrefix(const ZipArchive& archive) {
    std::optional<std::string> prefix;
    for (const auto& [name, entry] : archive.entries()) {
        const size_t slash = name.find('/');
        if (slash == std::string::npos || name.substr(slash) != "/data.pkl")
            continue;
        if (prefix)
            throwFileError(archive.path(), "the archive holds two pickles, " +
                                               quoted(*prefix + "/data.pkl") + " and " +
                                               quoted(name));
        prefix = name.substr(0, slash);
    }
    if (!prefix)
        throwFileError(archive.path(),
                       "no <folder>/data.pkl in the archive (not a PyTorch checkpoint)");
    return *prefix;
}

// torch.save of PyTorch < 1.6 (and _use_new_zipfile_serialization=False) wrote a bare pickle
// stream instead of a ZIP, starting with protocol 2's PROTO opcode and a LONG1 magic number.
void refuseLegacyFormat(const MappedFile& file) {
    const auto bytes = file.bytes();
    if (bytes.size() >= 3 && bytes[0] == std::byte{0x80} && bytes[1] == std::byte{0x02} &&
        bytes[2] == std::byte{0x8a})
        throwFileError(file.path(),
                       "a PyTorch checkpoint in the legacy (pre-1.6) format; InferLens reads the "
                       "zip format (re-save it with a newer torch.save)");
}

void checkByteOrder(const ZipArchive& archive, const std::string& prefix) {
    const std::string name = prefix + "/byteorder";
    if (archive.find(name) == nullptr)
        return;  // written since PyTorch 2.1; older files are little-endian
    const auto bytes = archive.verifiedEntry(name);
    const std::string_view order(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    if (order != "little")
        throwFileError(archive.path(), quoted(name) + " says '" +
                                           printableName(order.substr(0, 16)) +
                                           "'; only little-endian checkpoints are supported");
}

// a·b, or nullopt past kMaxElements.
std::optional<int64_t> product(int64_t a, int64_t b) {
    if (a < 0 || b < 0 || (b != 0 && a > kMaxElements / b))
        return std::nullopt;
    return a * b;
}

// The tensor's element count, after checking row-major contiguity: each stride is the product of
// the sizes after it (a dimension of size 1 may have any stride, as PyTorch's is_contiguous
// allows).
int64_t contiguousElements(const TorchTensorRecord& record, const std::string& path,
                           const std::string& where) {
    int64_t elements = 1;
    for (size_t d = record.size.size(); d-- > 0;) {
        const int64_t extent = record.size[d];
        if (extent < 0)
            throwFileError(path, where + ": negative size " + shapeToString(record.size));
        if (extent != 1 && record.stride[d] != elements)
            throwFileError(path, where + " is not contiguous (size " + shapeToString(record.size) +
                                     ", stride " + shapeToString(record.stride) +
                                     "); only row-major contiguous tensors are supported");
        const auto next = product(elements, extent);
        if (!next)
            throwFileError(path, where + ": absurd size " + shapeToString(record.size));
        elements = *next;
    }
    return elements;
}

}  // namespace

TorchCheckpoint::TorchCheckpoint(const std::string& path)
    : file_(std::make_shared<MappedFile>(path)) {
    refuseLegacyFormat(*file_);
    const ZipArchive archive(file_);
    const std::string prefix = findPrefix(archive);
    checkByteOrder(archive, prefix);
    const std::string pickleName = prefix + "/data.pkl";
    if (archive.find(pickleName)->data.size() > kMaxPickleBytes)
        throwFileError(path, quoted(pickleName) + " is larger than " +
                                 std::to_string(kMaxPickleBytes >> 20) +
                                 " MiB, far more than a state dict needs");
    const auto records = readTorchStateDict(archive.verifiedEntry(pickleName), path, pickleName);

    std::map<std::string, std::string> storageTypes;  // key → type: one type per storage
    for (const TorchTensorRecord& record : records) {
        const std::string where = "tensor " + quoted(record.name);
        const TorchStorageType& type = storageType(record.storageType, path);
        const std::string entryName = prefix + "/data/" + record.storageKey;
        const auto [known, inserted] = storageTypes.emplace(record.storageKey, record.storageType);
        if (!inserted && known->second != record.storageType)
            throwFileError(path, where + ": storage " + quoted(entryName) + " is used as both " +
                                     known->second + " and " + record.storageType);

        const ZipArchive::Entry* entry = archive.find(entryName);
        if (entry == nullptr)
            throwFileError(path,
                           where + ": its storage " + quoted(entryName) + " is not in the archive");
        // The persistent id's element count must describe the entry exactly.
        const auto storageBytes = product(record.storageNumel, type.elementBytes);
        if (!storageBytes || uint64_t(*storageBytes) != entry->data.size())
            throwFileError(path, where + ": storage " + quoted(entryName) + " holds " +
                                     std::to_string(entry->data.size()) + " bytes, not " +
                                     std::to_string(record.storageNumel) + " elements of " +
                                     record.storageType);

        const int64_t elements = contiguousElements(record, path, where);
        if (record.storageOffset < 0 || record.storageOffset > record.storageNumel ||
            elements > record.storageNumel - record.storageOffset)
            throwFileError(path, where + ": elements [" + std::to_string(record.storageOffset) +
                                     ", +" + std::to_string(elements) + ") lie outside storage " +
                                     quoted(entryName) + " of " +
                                     std::to_string(record.storageNumel) + " elements");
        if (!type.dtype) {
            otherTensors_.emplace(record.name, record.storageType);
            continue;
        }
        TensorView view;
        view.name = record.name;
        view.dtype = *type.dtype;
        view.shape = record.size;
        view.data = entry->data.data() + record.storageOffset * type.elementBytes;
        view.byteCount = elements * type.elementBytes;
        tensors_.push_back(std::move(view));
    }
}

}  // namespace inferlens
