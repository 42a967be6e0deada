#pragma once
// --device: where a command runs the model. A GPU that is asked for but missing, or that cannot
// take the model, is explained on stderr and the command runs on the CPU instead (stdout keeps
// only the command's own output).

#include <memory>

#include "arguments.h"
#include "generator.h"

namespace inferlens::cli {

// --device cpu|cuda|cuda:N (default cpu), as this machine can honour it.
ComputeDevice chooseDevice(const Arguments& args);

// The backend `options` ask for, or the CPU's when the GPU's cannot be made. `model` was opened
// with CPU placement only if it runs on the CPU; falling back places it then.
std::unique_ptr<ForwardBackend> makeBackend(Model& model, const GeneratorOptions& options);

}  // namespace inferlens::cli
