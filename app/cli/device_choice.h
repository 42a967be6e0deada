#pragma once
// --device: where a command runs the model, and opening the model for it. A GPU that is asked for
// but missing, or that cannot take the model, is explained on stderr and the command runs on the
// CPU instead (stdout keeps only the command's own output). A model that runs on the CPU is checked
// against the free memory before its weights are read.

#include <memory>

#include "arguments.h"
#include "generator.h"

namespace inferlens::cli {

// --device cpu|cuda|cuda:N (default cpu), as this machine can honour it.
ComputeDevice chooseDevice(const Arguments& args);

// The backend a command asks for: --device, --ctx-size (0: the model's), --threads (0: one per
// hardware thread), --kv-type f32|f16|int8, --window W [--sinks S] (a sliding cache; S defaults
// to 4) and, when `attentionIsKernel`, --attention fused|reference (the CPU's attention kernel;
// default fused).
GeneratorOptions backendOptions(const Arguments& args, bool attentionIsKernel = true);

// The model at `path` for options.device and options.contextSize: on the CPU, refused (Error with
// the numbers) when it needs more memory than is free, and placed for the CPU kernels.
Model openModel(const std::string& path, const GeneratorOptions& options);

// The backend `options` ask for, or the CPU's when the GPU's cannot be made (the model is then
// checked against the free memory and placed for the CPU).
std::unique_ptr<ForwardBackend> makeBackend(Model& model, const GeneratorOptions& options);

}  // namespace inferlens::cli
