#pragma once
// The shapes of well-known checkpoints, for benchmarks that run random weights of a real model's
// size without its file (`inferlens-cli bench --synth NAME`).

#include <string>
#include <vector>

#include "models/model_config.h"

namespace inferlens {

std::vector<std::string> shapePresetNames();  // "chatglm2-6b", "tinyllama-1.1b", …
// Throws Error listing the names for an unknown one.
ModelConfig shapePreset(const std::string& name);

}  // namespace inferlens
