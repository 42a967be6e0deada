// Built instead of the backend/cuda/ sources when the CUDA backend is not compiled in.

#include "backend/cuda_backend.h"
#include "backend/devices.h"
#include "core/error.h"

namespace inferlens {
namespace {

constexpr const char* kNoCuda =
    "this build has no CUDA backend (nvcc was not found when it was built)";

}  // namespace

CudaAvailability queryCudaDevices() {
    return {false, {}, kNoCuda};
}

std::unique_ptr<ForwardBackend> makeCudaForward(const Model&, int, int64_t) {
    throw Error(kNoCuda);
}

std::unique_ptr<ForwardBackend> makeSyntheticCudaForward(const ModelConfig&, DType, uint64_t, int,
                                                         int64_t) {
    throw Error(kNoCuda);
}

}  // namespace inferlens
