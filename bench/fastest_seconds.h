#pragma once
// The timing the one-core kernel benchmarks share: the shortest of several runs, since on a shared
// machine the slower ones measure the neighbours too; and two variants side by side, in pairs.

#include <algorithm>
#include <chrono>
#include <vector>

namespace inferlens::bench {

// The wall time in seconds of one run of `work`.
template <typename Work>
double secondsOf(Work&& work) {
    const auto start = std::chrono::steady_clock::now();
    work();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The shortest wall time in seconds of `repeats` runs of `work`.
template <typename Work>
double fastestSeconds(int repeats, Work&& work) {
    double fastest = 1e30;
    for (int i = 0; i < repeats; ++i)
        fastest = std::min(fastest, secondsOf(work));
    return fastest;
}

// The ratios timeA / timeB of `pairs` rounds that run `a` and `b` one right after the other (the
// order alternating, the first round a warm-up left out), sorted: a neighbour's load that comes
// and goes over seconds slows both sides of a round alike, so a ratio that separate runs would
// bury in their spread shows in the middle of these (its quartiles say how well).
template <typename A, typename B>
std::vector<double> pairedRatios(int pairs, A&& a, B&& b) {
    std::vector<double> ratios;
    for (int round = 0; round <= pairs; ++round) {
        double timeA = 0.0, timeB = 0.0;
        if (round % 2 == 0) {
            timeA = secondsOf(a);
            timeB = secondsOf(b);
        } else {
            timeB = secondsOf(b);
            timeA = secondsOf(a);
        }
        if (round > 0)
            ratios.push_back(timeA / timeB);
    }
    std::sort(ratios.begin(), ratios.end());
    return ratios;
}

}  // namespace inferlens::bench
