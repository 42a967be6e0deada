#pragma once
// The angular frequency of every rotated pair of a layer's heads: the pair i of the token at
// position p turns by p · θ_i. θ_i = base^(−2i/rot) / (linear factor · divisor_i) on global
// layers; local (sliding-window) layers use their own base and no scaling, as Gemma 3 does.

#include <cstdint>
#include <vector>

#include "models/model_config.h"

namespace inferlens {

// [ropeDims / 2] frequencies of `layer`.
std::vector<double> ropeFrequencies(const ModelConfig& config, int64_t layer);

// Llama 3's divisors as llama.cpp's converter writes them to rope_freqs.weight and transformers
// applies them (_compute_llama3_parameters): 1 for wavelengths below original_context /
// high_freq_factor, `factor` above original_context / low_freq_factor, a smooth blend between.
std::vector<float> llama3RopeDivisors(const Llama3RopeScaling& scaling, double base,
                                      int64_t ropeDims);

}  // namespace inferlens
