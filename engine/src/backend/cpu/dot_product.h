#pragma once
// Dot products between a weight row stored in its file's type and an f32 activation vector: the one
// place where a weight type meets arithmetic. A new weight type (as Q8_0 and Q4_0 were; Q4_K, ...
// next) is a new case here plus its decoder in core/dtype_codec; nothing above this file changes.

#include <cstddef>
#include <cstdint>

#include "core/dtype.h"

namespace inferlens {

float dotRow(DType dtype, const std::byte* row, const float* x, int64_t count);

}  // namespace inferlens
