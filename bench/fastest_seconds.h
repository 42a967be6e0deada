#pragma once
// The timing the one-core kernel benchmarks share: the shortest of several runs, since on a shared
// machine the slower ones measure the neighbours too.

#include <algorithm>
#include <chrono>

namespace inferlens::bench {

// The shortest wall time in seconds of `repeats` runs of `work`.
template <typename Work>
double fastestSeconds(int repeats, Work&& work) {
    double fastest = 1e30;
    for (int i = 0; i < repeats; ++i) {
        const auto start = std::chrono::steady_clock::now();
        work();
        fastest = std::min(
            fastest,
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return fastest;
}

}  // namespace inferlens::bench
