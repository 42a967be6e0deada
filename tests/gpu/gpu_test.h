#pragma once
// The GPU tests' main: it runs every PLAIN_TEST (plain/plain_test.h) when a CUDA device is
// present, and otherwise prints "SKIP   : <why>" — the line CTest reports as a skip — and exits 0,
// so that a machine without a GPU shows the skip instead of a silent pass.

#include "backend/devices.h"
#include "plain/plain_test.h"

namespace inferlens::gputest {

using namespace inferlens::plaintest;

inline int runWithGpu() {
    const CudaAvailability cuda = queryCudaDevices();
    if (cuda.devices.empty()) {
        std::printf("SKIP   : GPU test skipped: %s\n", cuda.message.c_str());
        return 0;
    }
    std::printf("GPU: %s\n", cuda.devices.front().name.c_str());
    return runTests();
}

}  // namespace inferlens::gputest

#define GPU_TEST(name) PLAIN_TEST(name)
#define GPU_TEST_MAIN()                            \
    int main() {                                   \
        return ::inferlens::gputest::runWithGpu(); \
    }
