#pragma once
// A tensor to be written: its name, type and shape, and a function that fills its bytes. Writers
// call `fill` one tensor at a time, so writing a model never holds more than one tensor in memory.

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace inferlens {

struct TensorSource {
    std::string name;
    DType dtype = DType::F32;
    std::vector<int64_t> shape;  // PyTorch order, outermost first
    std::function<void(std::span<std::byte>)> fill;

    int64_t byteCount() const;
};

}  // namespace inferlens
