#pragma once
// A read-only view of one weight tensor as it lies in a (memory-mapped) file: no copy is made.
// Shapes are in PyTorch order, outermost first: a linear layer's weight is [out_features,
// in_features] and each of its rows is contiguous. (GGUF lists dimensions the other way round; its
// reader reverses them.)

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace inferlens {

struct TensorView {
    std::string name;
    DType dtype = DType::F32;
    std::vector<int64_t> shape;
    const std::byte* data = nullptr;
    int64_t byteCount = 0;
    // The same matrix repacked for the CPU's products (backend/cpu/packed_rows.h), or null. The
    // model owns it; `data` stays valid for everything else.
    const std::byte* packed = nullptr;

    int64_t elementCount() const;
    // A 2-D tensor's rows; a 1-D tensor counts as one row.
    int64_t rows() const { return shape.size() == 2 ? shape[0] : 1; }
    int64_t columns() const { return shape.empty() ? 0 : shape.back(); }
    int64_t rowBytes() const;
    const std::byte* row(int64_t index) const { return data + index * rowBytes(); }
    // Rows [begin, begin + count) of a 2-D tensor, or elements of a 1-D one, as a tensor of its own
    // (how fused QKV and gate/up matrices are split without copying).
    TensorView slice(int64_t begin, int64_t count) const;
};

std::string shapeToString(const std::vector<int64_t>& shape);

}  // namespace inferlens
