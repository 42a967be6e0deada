// Built instead of backend/cuda/cuda_devices.cu when the CUDA backend is not compiled in.

#include "backend/devices.h"

namespace inferlens {

CudaAvailability queryCudaDevices() {
    return {false, {}, "this build has no CUDA backend (nvcc was not found when it was built)"};
}

}  // namespace inferlens
