#pragma once
// Which SIMD kernels this process uses. Chosen once, at the first product: the best set the CPU
// supports, unless INFERLENS_CPU_KERNELS (portable, avx2, avx512 or amx) asks for a lower one — how
// the tests run every path on one machine, and how a user rules out a suspect one.

#include <string>

namespace inferlens {

enum class CpuKernels {
    Portable,  // plain C++, any CPU
    Avx2,      // AVX2 + FMA + F16C (x86-64 since 2013)
    Avx512,    // AVX-512 F/BW/VL + VNNI (integer dot products in one instruction)
    Amx,       // Avx512, plus AMX INT8 tiles for the prefill of the block types that have them
               // (amx_tiles.h); everything else runs the Avx512 kernels
};

// For Amx: the CPU has AMX-TILE and AMX-INT8, the operating system saves the tile state (XCR0),
// and the kernel granted this process the tile data — asked for here, once per process (on Linux
// the permission holds for every thread, those started before it too).
bool cpuSupports(CpuKernels kernels);
// Why cpuSupports(CpuKernels::Amx) says no ("the kernel refused the tile permission"), nullptr
// when it says yes.
const char* amxUnavailable();
// AVX512_BF16 (vdpbf16ps: two BF16 products per f32 lane and instruction), which the avx512 set
// uses for BF16 weights where the CPU has it (Zen 4, Cooper Lake, Sapphire Rapids and later);
// without it, and with the amx set, BF16 products run as f32 multiply-adds (kernels.h).
bool cpuHasAvx512Bf16();
// Whether the CPU runs 512-bit vector instructions as two 256-bit halves (AMD Zen 4), where a
// float tile's compute rather than its bytes bounds a prefill: reference_ops.cpp's F16 prefill
// measured the opposite way there than on Zen 5's full-width units.
bool cpuSplitsWideVectors();
// The set in use (the environment variable read once; a set the CPU lacks falls back, with a
// message on stderr).
CpuKernels cpuKernels();
const char* cpuKernelsName(CpuKernels kernels);
// The set in use and, when it is not Amx, why not: "avx512 (AMX: the kernel refused the tile
// permission)". What `inferlens-cli info` prints.
std::string cpuKernelsSummary();

}  // namespace inferlens
