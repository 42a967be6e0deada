#pragma once
// What compute devices this build can use. The CPU is always there; CUDA devices are listed when
// the CUDA backend was compiled in and a driver and GPU are present at run time.

#include <cstdint>
#include <string>
#include <vector>

namespace inferlens {

struct CudaDevice {
    int index = 0;
    std::string name;
    int64_t totalMemoryBytes = 0;
    int computeCapabilityMajor = 0;
    int computeCapabilityMinor = 0;
};

struct CudaAvailability {
    bool compiledIn = false;
    std::vector<CudaDevice> devices;
    std::string message;  // why there are no devices, when there are none
};

CudaAvailability queryCudaDevices();

}  // namespace inferlens
