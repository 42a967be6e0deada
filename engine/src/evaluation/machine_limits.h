#pragma once
// The two ceilings a CPU puts on inference, measured on this machine: how fast it reads memory
// (a decode step reads every weight once, so weight bytes × tokens/s can at best reach it) and how
// many int8 multiply-adds per second the kernel set's dot-product instruction can issue (a prefill
// shares each weight read among many tokens, so its int8 products approach this instead). The
// CLI's bench and the app's shapes-and-costs panel quote the achieved speed as a fraction of each.
// Measured briefly (a few tenths of a second in all), so figures vary by some percent run to run.

#include <cstddef>

#include "backend/cpu/cpu_features.h"

namespace inferlens {

struct MachineLimits {
    int threads = 1;                         // the thread count of the "all threads" figures
    double readBytesPerSecondOneThread = 0;  // best pass over a buffer larger than the caches
    double readBytesPerSecond = 0;           // the same with `threads` threads
    const char* kernels = "";                // the kernel set the peak is of: "avx512", ...
    const char* instruction = "";            // its dot-product instruction(s)
    double int8OpsPerSecondOneThread = 0;    // 2 × multiply-adds per second, a tight loop
    double int8OpsPerSecond = 0;             // the same with `threads` threads
};

// Best of `passes` reads of a `bytes` buffer split among `threads` threads, in bytes per second.
double measureReadBandwidth(int threads, size_t bytes, int passes);

// Int8 operations (2 per multiply-add) per second of `threads` threads each running a tight loop
// of `kernels`' dot-product instruction on independent accumulators; 0 when the CPU lacks the set.
// Portable: a plain C++ loop, whatever the compiler makes of it.
double measureInt8Peak(CpuKernels kernels, int threads);

// The same for AMX TDPBUSD (16×16 int32 tiles, 64 bytes deep), when the CPU has AMX-INT8 and the
// kernel grants this process the tile data (arch_prctl ARCH_REQ_XCOMP_PERM); otherwise 0.
double measureAmxInt8Peak(int threads);
bool amxInt8Usable();

// Both ceilings for the kernel set in use (cpuKernels()), with `threads` threads and one.
MachineLimits measureMachineLimits(int threads);

const char* int8InstructionName(CpuKernels kernels);

// What share of a ceiling a run reached: `amount` (bytes read, or operations) done in `seconds`
// over `limitPerSecond`; 0 when either is not positive (nothing measured).
double fractionOfLimit(double amount, double seconds, double limitPerSecond);

}  // namespace inferlens
