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

// Where a model runs, as the user names it: "cpu", "cuda" (the first GPU) or "cuda:N".
struct ComputeDevice {
    enum class Kind { Cpu, Cuda };
    Kind kind = Kind::Cpu;
    int index = 0;  // the CUDA device's index

    bool isCuda() const { return kind == Kind::Cuda; }
    std::string name() const;  // "cpu" or "cuda:N"
};

// Throws Error for anything but cpu, cuda or cuda:N (N ≥ 0).
ComputeDevice parseComputeDevice(const std::string& text);

}  // namespace inferlens
