// Device discovery through the CUDA runtime. Compiled only when nvcc is available.

#include <cuda_runtime.h>

#include "backend/devices.h"

namespace inferlens {

CudaAvailability queryCudaDevices() {
    CudaAvailability result;
    result.compiledIn = true;
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        cudaGetLastError();
        result.message = std::string("no usable CUDA device: ") + cudaGetErrorString(status);
        return result;
    }
    for (int index = 0; index < count; ++index) {
        cudaDeviceProp properties{};
        if (cudaGetDeviceProperties(&properties, index) != cudaSuccess) {
            cudaGetLastError();  // not to be reported again by the next launch check
            continue;
        }
        result.devices.push_back({index, properties.name, int64_t(properties.totalGlobalMem),
                                  properties.major, properties.minor});
    }
    if (result.devices.empty())
        result.message = "no CUDA device found";
    return result;
}

}  // namespace inferlens
