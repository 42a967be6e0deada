// The machine's two ceilings as `inferlens-cli bench` measures them (engine/src/evaluation/
// machine_limits.h), with more passes and every kernel set the CPU has, AMX included where the
// kernel grants it: read bandwidth for 1 and N threads, and int8 operations per second (2 per
// multiply-add) of each set's dot-product instruction.
//
// Usage: bench_machine_limits [THREADS] [BUFFER_MIB]   (defaults: every logical CPU, 1024 MiB)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>

#include "backend/cpu/cpu_features.h"
#include "evaluation/machine_limits.h"

using namespace inferlens;

int main(int argc, char** argv) {
    const int threads =
        argc > 1 ? std::atoi(argv[1]) : int(std::max(1u, std::thread::hardware_concurrency()));
    const size_t mib = argc > 2 ? size_t(std::atoll(argv[2])) : 1024;
    if (threads < 1 || mib < 1) {
        std::fprintf(stderr, "usage: %s [THREADS] [BUFFER_MIB]\n", argv[0]);
        return 2;
    }
    // "12.3 Gop/s on 1 thread, 24.1 Gop/s on 2", or the first part alone for one thread.
    const auto onOneAndAll = [threads](const std::function<double(int)>& peak) {
        char text[96];
        const int length =
            std::snprintf(text, sizeof text, "%.1f Gop/s on 1 thread", peak(1) / 1e9);
        if (threads > 1)
            std::snprintf(text + length, sizeof text - size_t(length), ", %.1f Gop/s on %d",
                          peak(threads) / 1e9, threads);
        return std::string(text);
    };
    std::printf("kernel set in use: %s\n", cpuKernelsName(cpuKernels()));
    for (const int n : {1, threads}) {
        std::printf("read bandwidth, %d thread(s), best of 8 passes over %zu MiB: %.1f GB/s\n", n,
                    mib, measureReadBandwidth(n, mib << 20, 8) / 1e9);
        if (threads == 1)
            break;
    }
    for (const CpuKernels set : {CpuKernels::Portable, CpuKernels::Avx2, CpuKernels::Avx512}) {
        if (!cpuSupports(set)) {
            std::printf("int8 peak, %s: not supported by this CPU\n", cpuKernelsName(set));
            continue;
        }
        std::printf("int8 peak, %s (%s): %s\n", cpuKernelsName(set), int8InstructionName(set),
                    onOneAndAll([set](int n) { return measureInt8Peak(set, n); }).c_str());
    }
    if (amxInt8Usable())
        std::printf("int8 peak, AMX (tdpbusd): %s\n", onOneAndAll(measureAmxInt8Peak).c_str());
    else
        std::printf(
            "int8 peak, AMX: not available (no AMX-INT8, or the kernel refused the tiles)\n");
    return 0;
}
