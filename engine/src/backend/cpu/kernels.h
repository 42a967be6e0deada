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

// A tile of products for float-type rows (F32, F16, BF16): out[r · tokenCount + t] = Σ_i
// rows[r][i] · xs[t][i] over `count` elements, for up to kTileRows rows and kTileTokens activation
// vectors (a decode step's single token, or a prefill's tokens). A tile loads each weight once for
// all its tokens and each activation once for all its rows, which is what makes a prefill
// compute-bound; and every (row, token) pair is summed the same way whatever the tile's shape, so
// a token's numbers do not depend on whether it ran alone or in a batch.
constexpr int kTileRows = 4;
constexpr int kTileTokens = 4;
using FloatTile = void (*)(const std::byte* const* rows, int rowCount, const float* const* xs,
                           int tokenCount, int64_t count, float* out);
// The same for block-type rows (Q8_0, Q4_0) against 8-bit activations, over `blocks` blocks.
using BlockTile = void (*)(const std::byte* const* rows, int rowCount,
                           const QuantizedActivations* const* xs, int tokenCount, int64_t blocks,
                           float* out);

FloatTile floatTile(DType dtype, CpuKernels kernels);  // F32, F16 or BF16
BlockTile q8_0Tile(CpuKernels kernels);
BlockTile q4_0Tile(CpuKernels kernels);

}  // namespace inferlens
