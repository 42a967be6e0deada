#include "core/tensor.h"

#include "core/error.h"

namespace inferlens {

int64_t TensorView::elementCount() const {
    int64_t count = 1;
    for (int64_t dim : shape)
        count *= dim;
    return count;
}

int64_t TensorView::rowBytes() const {
    return *byteSize(dtype, columns());
}

TensorView TensorView::slice(int64_t begin, int64_t count) const {
    if (shape.size() > 2 || begin < 0 || count < 0 || begin + count > shape.front())
        throw Error("slice [" + std::to_string(begin) + ", +" + std::to_string(count) +
                    ") is outside tensor " + name + " " + shapeToString(shape));
    TensorView part = *this;
    part.shape.front() = count;
    part.packed = nullptr;  // a slice is packed on its own, if at all
    if (shape.size() == 2) {
        part.data = data + begin * rowBytes();
        part.byteCount = count * rowBytes();
        return part;
    }
    // A 1-D slice counts elements, which in a block-quantized tensor must not cut a block.
    const auto offset = byteSize(dtype, begin), bytes = byteSize(dtype, count);
    if (!offset || !bytes)
        throw Error("slice [" + std::to_string(begin) + ", +" + std::to_string(count) +
                    ") of tensor " + name + " splits a " + std::string(dtypeName(dtype)) +
                    " block");
    part.data = data + *offset;
    part.byteCount = *bytes;
    return part;
}

std::string shapeToString(const std::vector<int64_t>& shape) {
    std::string text = "[";
    for (size_t i = 0; i < shape.size(); ++i)
        text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + "]";
}

}  // namespace inferlens
