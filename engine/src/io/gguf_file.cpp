#include "io/gguf_file.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <unordered_set>

#include "core/utf8.h"
#include "io/byte_reader.h"

namespace inferlens {
namespace {

constexpr uint32_t kMagic = 0x46554747;  // "GGUF" read as a little-endian u32
constexpr uint32_t kMaxDims = 4;
constexpr int kMaxArrayNesting = 8;
constexpr int64_t kMaxElements = int64_t(1) << 48;  // far above any real tensor, far below overflow
// Limits on what the header may ask us to hold in memory, far above any real model (vocabularies
// have < 300k tokens, models < 100k tensors) and far below what could exhaust memory.
constexpr uint64_t kMaxMetadataEntries = 1u << 16;
constexpr uint64_t kMaxTensors = 1u << 20;
constexpr uint64_t kMaxStringArrayElements = 1u << 22;
constexpr uint64_t kMaxScalarArrayBytes = uint64_t(1) << 28;

std::string readString(ByteReader& reader, std::string_view what) {
    const auto length = reader.read<uint64_t>(what);
    const auto bytes = reader.readBytes(length, what);
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

GgufType readType(ByteReader& reader, std::string_view what) {
    const auto number = reader.read<uint32_t>(what);
    if (number > static_cast<uint32_t>(GgufType::F64))
        throwFileError(reader.file(), "unknown metadata value type " + std::to_string(number) +
                                          " for " + std::string(what));
    return static_cast<GgufType>(number);
}

GgufValue readValue(ByteReader& reader, GgufType type, const std::string& key, int depth);

GgufArray readArray(ByteReader& reader, const std::string& key, int depth) {
    if (depth > kMaxArrayNesting)
        throwFileError(reader.file(), "metadata key '" + key + "': arrays nested too deeply");
    GgufArray array;
    array.elementType = readType(reader, "array element type of '" + key + "'");
    const auto count = reader.read<uint64_t>("array length of '" + key + "'");
    const size_t scalarSize = ggufScalarSize(array.elementType);
    if (scalarSize != 0) {
        if (count > kMaxScalarArrayBytes / scalarSize)
            throwFileError(reader.file(), "metadata array '" + key + "' has an absurd length " +
                                              std::to_string(count));
        if (count > reader.remaining() / scalarSize)
            throwFileError(reader.file(), "metadata array '" + key + "' claims " +
                                              std::to_string(count) +
                                              " elements, more than the file holds");
        const auto bytes = reader.readBytes(count * scalarSize, "array '" + key + "'");
        array.scalarBytes.assign(bytes.begin(), bytes.end());
        return array;
    }
    // Strings take at least 8 bytes and nested arrays 12, so the file size bounds the count.
    const size_t smallestElement = array.elementType == GgufType::String ? 8 : 12;
    if (count > kMaxStringArrayElements)
        throwFileError(reader.file(), "metadata array '" + key + "' has an absurd length " +
                                          std::to_string(count));
    if (count > reader.remaining() / smallestElement)
        throwFileError(reader.file(), "metadata array '" + key + "' claims " +
                                          std::to_string(count) +
                                          " elements, more than the file holds");
    if (array.elementType == GgufType::String) {
        for (uint64_t i = 0; i < count; ++i)
            array.strings.push_back(readString(reader, "string in array '" + key + "'"));
    } else {
        for (uint64_t i = 0; i < count; ++i)
            array.arrays.push_back(readArray(reader, key, depth + 1));
    }
    return array;
}

GgufValue readValue(ByteReader& reader, GgufType type, const std::string& key, int depth) {
    const std::string what = "value of '" + key + "'";
    switch (type) {
        case GgufType::U8:
            return {reader.read<uint8_t>(what)};
        case GgufType::I8:
            return {reader.read<int8_t>(what)};
        case GgufType::U16:
            return {reader.read<uint16_t>(what)};
        case GgufType::I16:
            return {reader.read<int16_t>(what)};
        case GgufType::U32:
            return {reader.read<uint32_t>(what)};
        case GgufType::I32:
            return {reader.read<int32_t>(what)};
        case GgufType::F32:
            return {reader.read<float>(what)};
        case GgufType::Bool: {
            const auto byte = reader.read<uint8_t>(what);
            if (byte > 1)
                throwFileError(reader.file(), "metadata key '" + key + "': bool value " +
                                                  std::to_string(byte) + " is neither 0 nor 1");
            return {byte == 1};
        }
        case GgufType::String:
            return {readString(reader, what)};
        case GgufType::Array:
            return {readArray(reader, key, depth + 1)};
        case GgufType::U64:
            return {reader.read<uint64_t>(what)};
        case GgufType::I64:
            return {reader.read<int64_t>(what)};
        case GgufType::F64:
            return {reader.read<double>(what)};
    }
    throwFileError(reader.file(), "unknown metadata value type for '" + key + "'");
}

uint64_t alignUp(uint64_t value, uint64_t alignment) {
    return (value + alignment - 1) / alignment * alignment;
}

}  // namespace

GgufFile::GgufFile(const std::string& path) : file_(std::make_shared<MappedFile>(path)) {
    ByteReader reader(file_->bytes(), path);
    if (file_->size() == 0)
        throwFileError(path, "empty file, not a GGUF file");
    if (file_->size() < 4 || reader.read<uint32_t>("magic") != kMagic)
        throwFileError(path, "not a GGUF file (bad magic; expected \"GGUF\")");
    version_ = reader.read<uint32_t>("version");
    if (version_ != 2 && version_ != 3)
        throwFileError(path, "unsupported GGUF version " + std::to_string(version_) +
                                 " (versions 2 and 3 are supported)");
    const auto tensorCount = reader.read<uint64_t>("tensor count");
    const auto keyCount = reader.read<uint64_t>("metadata count");
    // Each key-value pair needs at least 12 bytes and each tensor info at least 28.
    if (keyCount > std::min<uint64_t>(reader.remaining() / 12, kMaxMetadataEntries))
        throwFileError(path, "header claims " + std::to_string(keyCount) +
                                 " metadata entries, more than the file can hold or any model has");
    if (tensorCount > std::min<uint64_t>(reader.remaining() / 28, kMaxTensors))
        throwFileError(path, "header claims " + std::to_string(tensorCount) +
                                 " tensors, more than the file can hold or any model has");
    readMetadata(reader, keyCount);
    readTensorInfos(reader, tensorCount);
    checkTensorRanges(alignUp(reader.position(), alignment_));
}

void GgufFile::readMetadata(ByteReader& reader, uint64_t count) {
    std::unordered_set<std::string> seen;
    for (uint64_t i = 0; i < count; ++i) {
        std::string key = readString(reader, "metadata key");
        if (key.empty() || !isValidUtf8(key))
            throwFileError(path(),
                           "metadata key #" + std::to_string(i) + " is empty or not valid UTF-8");
        if (!seen.insert(key).second)
            throwFileError(path(), "metadata key '" + key + "' appears twice");
        const GgufType type = readType(reader, "type of '" + key + "'");
        GgufValue value = readValue(reader, type, key, 0);
        metadata_.push_back({std::move(key), std::move(value)});
    }
    if (const GgufValue* alignment = find("general.alignment")) {
        const auto* number = std::get_if<uint32_t>(&alignment->value);
        if (number == nullptr || *number == 0 || (*number & (*number - 1)) != 0 ||
            *number > (1u << 20))
            throwFileError(path(), "general.alignment must be a u32 power of two up to 1 MiB");
        alignment_ = *number;
    }
}

void GgufFile::readTensorInfos(ByteReader& reader, uint64_t count) {
    std::unordered_set<std::string> seen;
    for (uint64_t i = 0; i < count; ++i) {
        TensorView tensor;
        tensor.name = readString(reader, "tensor name");
        if (tensor.name.empty() || !isValidUtf8(tensor.name))
            throwFileError(path(),
                           "tensor #" + std::to_string(i) + " has an empty or non-UTF-8 name");
        if (!seen.insert(tensor.name).second)
            throwFileError(path(), "tensor '" + tensor.name + "' appears twice");
        const std::string where = "tensor '" + tensor.name + "'";
        const auto dims = reader.read<uint32_t>("dimension count of " + where);
        if (dims == 0 || dims > kMaxDims)
            throwFileError(path(),
                           where + " has " + std::to_string(dims) + " dimensions (1 to 4 allowed)");
        std::vector<int64_t> ne(dims);
        int64_t elements = 1;
        for (auto& extent : ne) {
            extent = reader.read<int64_t>("dimensions of " + where);
            if (extent <= 0 || extent > kMaxElements / elements)
                throwFileError(path(), where + " has an invalid or absurd dimension " +
                                           std::to_string(extent));
            elements *= extent;
        }
        tensor.shape.assign(ne.rbegin(), ne.rend());  // GGUF lists the contiguous dimension first
        const auto type = reader.read<uint32_t>("type of " + where);
        const auto dtype = dtypeFromGgmlType(type);
        if (!dtype) {
            const auto known = knownUnsupportedGgmlTypeName(type);
            if (!known.empty())
                throwFileError(path(), where + " has type " + std::string(known) +
                                           ", which this version of InferLens does not support");
            throwFileError(path(), where + " has unknown tensor type " + std::to_string(type));
        }
        tensor.dtype = *dtype;
        const auto bytes = byteSize(tensor.dtype, elements);
        if (!bytes || ne[0] % dtypeInfo(tensor.dtype).blockElements != 0)
            throwFileError(path(), where + ": row length " + std::to_string(ne[0]) +
                                       " is not a whole number of " +
                                       std::string(dtypeName(tensor.dtype)) + " blocks");
        tensor.byteCount = *bytes;
        const auto offset = reader.read<uint64_t>("data offset of " + where);
        if (offset % alignment_ != 0)
            throwFileError(path(), where + ": data offset " + std::to_string(offset) +
                                       " is not a multiple of the alignment " +
                                       std::to_string(alignment_));
        tensors_.push_back(std::move(tensor));
        tensorOffsets_.push_back(offset);
    }
}

void GgufFile::checkTensorRanges(size_t dataStart) {
    const uint64_t dataSize = dataStart <= file_->size() ? file_->size() - dataStart : 0;
    std::vector<size_t> order(tensors_.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return tensorOffsets_[a] < tensorOffsets_[b]; });
    uint64_t previousEnd = 0;
    const TensorView* previous = nullptr;
    for (size_t index : order) {
        TensorView& tensor = tensors_[index];
        const uint64_t offset = tensorOffsets_[index];
        const auto size = static_cast<uint64_t>(tensor.byteCount);
        if (offset > dataSize || size > dataSize - offset)
            throwFileError(path(), "tensor '" + tensor.name + "' (bytes " + std::to_string(offset) +
                                       " to " + std::to_string(offset + size) +
                                       " of the data section) lies outside the file; the data "
                                       "section holds " +
                                       std::to_string(dataSize) + " bytes (truncated file?)");
        if (previous != nullptr && offset < previousEnd)
            throwFileError(path(),
                           "tensors '" + previous->name + "' and '" + tensor.name + "' overlap");
        tensor.data = file_->bytes().data() + dataStart + offset;
        previousEnd = offset + size;
        previous = &tensor;
    }
}

const GgufValue* GgufFile::find(std::string_view key) const {
    for (const auto& entry : metadata_)
        if (entry.key == key)
            return &entry.value;
    return nullptr;
}

std::optional<int64_t> GgufFile::optionalInteger(std::string_view key) const {
    const GgufValue* value = find(key);
    if (value == nullptr)
        return std::nullopt;
    const auto integer = value->asInteger();
    if (!integer && value->type() == GgufType::U64)
        throwFileError(path(), "metadata '" + std::string(key) +
                                   "' = " + std::to_string(std::get<uint64_t>(value->value)) +
                                   " is too large");
    if (!integer)
        throwFileError(path(), "metadata '" + std::string(key) + "' has type " +
                                   std::string(ggufTypeName(value->type())) +
                                   ", expected an integer");
    return integer;
}

int64_t GgufFile::requireInteger(std::string_view key) const {
    const auto value = optionalInteger(key);
    if (!value)
        throwFileError(path(), "required metadata '" + std::string(key) + "' is missing");
    return *value;
}

std::optional<double> GgufFile::optionalNumber(std::string_view key) const {
    const GgufValue* value = find(key);
    if (value == nullptr)
        return std::nullopt;
    const auto number = value->asNumber();
    if (!number)
        throwFileError(path(), "metadata '" + std::string(key) + "' has type " +
                                   std::string(ggufTypeName(value->type())) +
                                   ", expected a number");
    return number;
}

std::optional<bool> GgufFile::optionalBool(std::string_view key) const {
    const GgufValue* value = find(key);
    if (value == nullptr)
        return std::nullopt;
    if (value->type() != GgufType::Bool)
        throwFileError(path(), "metadata '" + std::string(key) + "' has type " +
                                   std::string(ggufTypeName(value->type())) + ", expected a bool");
    return std::get<bool>(value->value);
}

std::string GgufFile::requireString(std::string_view key) const {
    const GgufValue* value = find(key);
    if (value == nullptr)
        throwFileError(path(), "required metadata '" + std::string(key) + "' is missing");
    const auto* text = value->asString();
    if (text == nullptr)
        throwFileError(path(), "metadata '" + std::string(key) + "' has type " +
                                   std::string(ggufTypeName(value->type())) +
                                   ", expected a string");
    return *text;
}

}  // namespace inferlens
