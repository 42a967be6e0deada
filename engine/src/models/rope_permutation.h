#pragma once
// Converting Q/K projection rows between RoPE pairings. A head's rotated dimensions are paired
// (2i, 2i+1) in GGUF and (i, i + rot/2) in Hugging Face LLaMA checkpoints; reordering the rows of
// the projection turns one into the other (what llama.cpp's converter does), so the engine runs
// either file with the same numbers.

#include <cstdint>
#include <span>

#include "models/model_config.h"

namespace inferlens {

// `values` is a row-major [heads × headDim, columns] matrix (or a [heads × headDim] bias with
// columns = 1); reorders the first `ropeDims` rows of every head from one pairing to the other.
void permuteRopeRows(std::span<float> values, int64_t columns, int64_t heads, int64_t headDim,
                     int64_t ropeDims, RopePairing from, RopePairing to);

}  // namespace inferlens
