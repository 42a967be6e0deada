#pragma once
// The dot products of a weight row (in its file's type) with an activation vector, per kernel set
// (cpu_features.h): the one place where a weight type meets arithmetic. Each family has its own
// file — kernels_float.cpp (F32, F16, BF16), kernels_q8_0.cpp, kernels_q4_0.cpp — with a portable
// version and SIMD ones compiled for their instruction sets by function attributes, so that one
// binary runs on any x86-64 and picks its kernels at run time.

#include <cstddef>
#include <cstdint>

#include "backend/cpu/cpu_features.h"
#include "backend/cpu/quantized_activations.h"
#include "core/dtype.h"

namespace inferlens {

// Σ row[i] · x[i] for i < count, the row in a float type.
using RowDot = float (*)(const std::byte* row, const float* x, int64_t count);
// Σ over x's blocks of the block products, the row in a block type.
using BlockDot = float (*)(const std::byte* row, const QuantizedActivations& x);
// One row against four activation vectors at once (a prefill's tokens): each weight is loaded and
// converted once for four products, which is what makes a batch of tokens compute-bound.
constexpr int kRowDotBatch = 4;
using RowDot4 = void (*)(const std::byte* row, const float* const* xs, int64_t count, float* out);

RowDot floatRowDot(DType dtype, CpuKernels kernels);  // F32, F16 or BF16
RowDot4 floatRowDot4(DType dtype, CpuKernels kernels);
BlockDot q8_0BlockDot(CpuKernels kernels);
BlockDot q4_0BlockDot(CpuKernels kernels);

bool isBlockType(DType dtype);

}  // namespace inferlens
