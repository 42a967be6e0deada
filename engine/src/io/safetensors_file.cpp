#include "io/safetensors_file.h"

#include <algorithm>
#include <limits>

#include "core/error.h"
#include "io/atomic_file_writer.h"
#include "io/byte_reader.h"
#include "io/json_file.h"

namespace inferlens {
namespace {

constexpr uint64_t kMaxHeaderBytes = uint64_t(100) << 20;  // the format's own limit
constexpr int64_t kMaxElements = int64_t(1) << 48;

struct ByteRange {
    uint64_t begin;
    uint64_t end;
    const TensorView* tensor;
};

std::vector<int64_t> readShape(const nlohmann::json& entry, const std::string& where,
                               const std::string& file) {
    const auto shape = entry.find("shape");
    if (shape == entry.end() || !shape->is_array() || shape->size() > 8)
        throwFileError(file, where + ": 'shape' must be an array of at most 8 dimensions");
    std::vector<int64_t> dims;
    int64_t elements = 1;
    for (const auto& dim : *shape) {
        if (!dim.is_number_unsigned() || dim.get<uint64_t>() > uint64_t(kMaxElements))
            throwFileError(file, where + ": invalid dimension " + describeJson(dim));
        const auto extent = dim.get<int64_t>();
        if (extent != 0 && elements > kMaxElements / extent)
            throwFileError(file, where + ": absurd shape");
        elements *= extent;
        dims.push_back(extent);
    }
    return dims;
}

}  // namespace

SafetensorsFile::SafetensorsFile(const std::string& path)
    : file_(std::make_shared<MappedFile>(path)) {
    ByteReader reader(file_->bytes(), path);
    const auto headerLength = reader.read<uint64_t>("header length");
    if (headerLength > kMaxHeaderBytes || headerLength > reader.remaining())
        throwFileError(path, "header length " + std::to_string(headerLength) +
                                 " is larger than the file or the 100 MB limit "
                                 "(not a safetensors file, or truncated)");
    const auto headerBytes = reader.readBytes(headerLength, "header");
    const auto header = parseJsonObject(
        {reinterpret_cast<const char*>(headerBytes.data()), headerBytes.size()}, path);
    const std::byte* data = file_->bytes().data() + reader.position();
    const uint64_t dataSize = reader.remaining();

    std::vector<ByteRange> ranges;
    tensors_.reserve(header.size());
    for (const auto& [name, entry] : header.items()) {
        if (name == "__metadata__")
            continue;
        const std::string where = "tensor '" + name + "'";
        if (!entry.is_object())
            throwFileError(path, where + ": entry is not an object");
        const auto dtypeField = entry.find("dtype");
        if (dtypeField == entry.end() || !dtypeField->is_string())
            throwFileError(path, where + ": missing 'dtype'");
        const auto dtypeText = dtypeField->get<std::string>();
        const auto dtype = dtypeFromSafetensorsName(dtypeText);
        if (!dtype)
            throwFileError(path, where + " has dtype " + dtypeText +
                                     ", which InferLens does not support (F32, F16, BF16)");
        TensorView tensor;
        tensor.name = name;
        tensor.dtype = *dtype;
        tensor.shape = readShape(entry, where, path);
        tensor.byteCount = *byteSize(tensor.dtype, tensor.elementCount());

        const auto offsets = entry.find("data_offsets");
        if (offsets == entry.end() || !offsets->is_array() || offsets->size() != 2 ||
            !(*offsets)[0].is_number_unsigned() || !(*offsets)[1].is_number_unsigned())
            throwFileError(path, where + ": 'data_offsets' must be two non-negative integers");
        const auto begin = (*offsets)[0].get<uint64_t>();
        const auto end = (*offsets)[1].get<uint64_t>();
        if (begin > end || end > dataSize)
            throwFileError(path, where + ": data_offsets [" + std::to_string(begin) + ", " +
                                     std::to_string(end) + ") lie outside the " +
                                     std::to_string(dataSize) + " data bytes (truncated file?)");
        if (end - begin != static_cast<uint64_t>(tensor.byteCount))
            throwFileError(path, where + ": data_offsets span " + std::to_string(end - begin) +
                                     " bytes but shape " + shapeToString(tensor.shape) + " of " +
                                     dtypeText + " needs " + std::to_string(tensor.byteCount));
        tensor.data = data + begin;
        tensors_.push_back(std::move(tensor));
        ranges.push_back({begin, end, nullptr});
    }
    for (size_t i = 0; i < ranges.size(); ++i)
        ranges[i].tensor = &tensors_[i];
    std::sort(ranges.begin(), ranges.end(),
              [](const ByteRange& a, const ByteRange& b) { return a.begin < b.begin; });
    for (size_t i = 1; i < ranges.size(); ++i)
        if (ranges[i].begin < ranges[i - 1].end)
            throwFileError(path, "tensors '" + ranges[i - 1].tensor->name + "' and '" +
                                     ranges[i].tensor->name + "' overlap");
}

void writeSafetensors(const std::string& path, const std::vector<TensorSource>& tensors) {
    nlohmann::json header = nlohmann::json::object();
    header["__metadata__"] = {{"format", "pt"}};
    uint64_t offset = 0;
    for (const auto& tensor : tensors) {
        const auto bytes = static_cast<uint64_t>(tensor.byteCount());
        header[tensor.name] = {{"dtype", dtypeInfo(tensor.dtype).safetensorsName},
                               {"shape", tensor.shape},
                               {"data_offsets", {offset, offset + bytes}}};
        offset += bytes;
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');

    AtomicFileWriter out(path);
    const uint64_t headerLength = text.size();
    out.write(&headerLength, sizeof headerLength);
    out.write(text.data(), text.size());
    std::vector<std::byte> buffer;
    for (const auto& tensor : tensors) {
        buffer.assign(tensor.byteCount(), std::byte{0});
        tensor.fill(buffer);
        out.write(buffer);
    }
    out.commit();
}

}  // namespace inferlens
