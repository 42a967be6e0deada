#include "io/gguf_writer.h"

#include <cstring>
#include <vector>

#include "core/error.h"
#include "io/atomic_file_writer.h"

namespace inferlens {
namespace {

template <typename T>
void put(AtomicFileWriter& out, T value) {
    out.write(&value, sizeof(T));
}

void putString(AtomicFileWriter& out, const std::string& text) {
    put<uint64_t>(out, text.size());
    out.write(text.data(), text.size());
}

void putArray(AtomicFileWriter& out, const GgufArray& array) {
    put<uint32_t>(out, static_cast<uint32_t>(array.elementType));
    put<uint64_t>(out, array.size());
    if (array.elementType == GgufType::String) {
        for (const auto& text : array.strings)
            putString(out, text);
    } else if (array.elementType == GgufType::Array) {
        for (const auto& inner : array.arrays)
            putArray(out, inner);
    } else {
        out.write(array.scalarBytes.data(), array.scalarBytes.size());
    }
}

void putValue(AtomicFileWriter& out, const GgufValue& value) {
    std::visit(
        [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::string>)
                putString(out, v);
            else if constexpr (std::is_same_v<T, GgufArray>)
                putArray(out, v);
            else if constexpr (std::is_same_v<T, bool>)
                put<uint8_t>(out, v ? 1 : 0);
            else
                put<T>(out, v);
        },
        value.value);
}

uint64_t alignUp(uint64_t value, uint64_t alignment) {
    return (value + alignment - 1) / alignment * alignment;
}

}  // namespace

void GgufWriter::set(std::string key, GgufValue value) {
    for (auto& entry : metadata_) {
        if (entry.key == key) {
            entry.value = std::move(value);
            return;
        }
    }
    metadata_.push_back({std::move(key), std::move(value)});
}

void GgufWriter::addTensor(TensorSource tensor) {
    tensors_.push_back(std::move(tensor));
}

void GgufWriter::write(const std::string& path) const {
    uint32_t alignment = 32;
    for (const auto& entry : metadata_)
        if (entry.key == "general.alignment")
            alignment = std::get<uint32_t>(entry.value.value);

    AtomicFileWriter out(path);
    out.write("GGUF", 4);
    put<uint32_t>(out, 3);
    put<uint64_t>(out, tensors_.size());
    put<uint64_t>(out, metadata_.size());
    for (const auto& entry : metadata_) {
        putString(out, entry.key);
        put<uint32_t>(out, static_cast<uint32_t>(entry.value.type()));
        putValue(out, entry.value);
    }
    uint64_t offset = 0;
    for (const auto& tensor : tensors_) {
        putString(out, tensor.name);
        put<uint32_t>(out, static_cast<uint32_t>(tensor.shape.size()));
        for (auto dim = tensor.shape.rbegin(); dim != tensor.shape.rend(); ++dim)
            put<int64_t>(out, *dim);
        put<uint32_t>(out, dtypeInfo(tensor.dtype).ggmlType);
        put<uint64_t>(out, offset);
        offset = alignUp(offset + tensor.byteCount(), alignment);
    }
    out.writeZeros(alignUp(out.position(), alignment) - out.position());
    std::vector<std::byte> buffer;
    for (const auto& tensor : tensors_) {
        buffer.assign(tensor.byteCount(), std::byte{0});
        tensor.fill(buffer);
        out.write(buffer);
        out.writeZeros(alignUp(buffer.size(), alignment) - buffer.size());
    }
    out.commit();
}

}  // namespace inferlens
