#pragma once
// Which SIMD kernels this process uses. Chosen once, at the first product: the best set the CPU
// supports, unless INFERLENS_CPU_KERNELS (portable, avx2 or avx512) asks for a lower one — how the
// tests run every path on one machine, and how a user rules out a suspect one.

namespace inferlens {

enum class CpuKernels {
    Portable,  // plain C++, any CPU
    Avx2,      // AVX2 + FMA + F16C (x86-64 since 2013)
    Avx512,    // AVX-512 F/BW/VL + VNNI (integer dot products in one instruction)
};

bool cpuSupports(CpuKernels kernels);
// The set in use (the environment variable read once; a set the CPU lacks falls back, with a
// message on stderr).
CpuKernels cpuKernels();
const char* cpuKernelsName(CpuKernels kernels);

}  // namespace inferlens
