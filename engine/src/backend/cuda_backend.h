#pragma once
// The forward pass on an NVIDIA GPU (backend/cuda/). Declared in every build: without the CUDA
// backend compiled in, these throw Error saying so (backend/cpu_only_devices.cpp).

#include <cstdint>
#include <memory>

#include "backend/forward_backend.h"
#include "core/dtype.h"

namespace inferlens {

// Uploads the model's weights to GPU `deviceIndex` (F32/F16/BF16 as stored, Q8_0/Q4_0 kept
// quantized, other block types converted to F16) and allocates a KV cache of `contextSize`
// tokens there. Throws Error naming the device and the numbers when they do not fit, when the
// device does not exist, or when any CUDA call fails. `model` must outlive the backend.
std::unique_ptr<ForwardBackend> makeCudaForward(const Model& model, int deviceIndex,
                                                int64_t contextSize);

// The same backend with random weights of `config`'s shape generated in device memory (for
// benchmarks of shapes whose files would take gigabytes): `dtype` is F32, F16, BF16, Q8_0 or Q4_0.
std::unique_ptr<ForwardBackend> makeSyntheticCudaForward(const ModelConfig& config, DType dtype,
                                                         uint64_t seed, int deviceIndex,
                                                         int64_t contextSize);

}  // namespace inferlens
