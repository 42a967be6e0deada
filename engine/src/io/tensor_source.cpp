#include "io/tensor_source.h"

#include "core/error.h"
#include "core/tensor.h"

namespace inferlens {

int64_t TensorSource::byteCount() const {
    int64_t elements = 1;
    for (int64_t dim : shape)
        elements *= dim;
    const auto bytes = byteSize(dtype, elements);
    if (!bytes)
        throw Error("tensor " + name + " " + shapeToString(shape) + " has an invalid size");
    return *bytes;
}

}  // namespace inferlens
