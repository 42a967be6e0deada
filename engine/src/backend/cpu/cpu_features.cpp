#include "backend/cpu/cpu_features.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#if defined(__x86_64__) && defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace inferlens {
namespace {

#if defined(__x86_64__) || defined(__i386__)
// CPUID leaf 1, ECX bit 29. Asked directly: clang's __builtin_cpu_supports does not know "f16c".
bool hasF16c() {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_F16C) != 0;
}
#endif

// Why this process cannot use AMX tiles (nullptr when it can). Checked once: the permission
// request is a system call that must come before any thread executes a tile instruction, and the
// answer does not change.
const char* checkAmx() {
#if defined(__x86_64__) && defined(__linux__)
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    constexpr unsigned kAmxTile = 1u << 24, kAmxInt8 = 1u << 25;  // CPUID leaf 7, EDX
    if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0 ||
        (edx & (kAmxTile | kAmxInt8)) != (kAmxTile | kAmxInt8))
        return "this CPU has no AMX-INT8";
    if (!cpuSupports(CpuKernels::Avx512))
        return "this CPU has no AVX-512 VNNI beside it";
    // XCR0 bits 17 (XTILECFG) and 18 (XTILEDATA): the operating system saves the tile state.
    if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0 || (ecx & bit_OSXSAVE) == 0)
        return "the operating system does not enable the tile state";
    unsigned low = 0, high = 0;
    __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
    constexpr unsigned kTileState = (1u << 17) | (1u << 18);
    if ((low & kTileState) != kTileState)
        return "the operating system does not enable the tile state";
    // Linux hands the tile data (8 KiB of state per thread) only to processes that ask for it;
    // a tile instruction without the permission kills the process with SIGILL.
    constexpr long kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
    if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) != 0)
        return "the kernel refused the tile permission";
    return nullptr;
#else
    return "not an x86-64 Linux build";
#endif
}

}  // namespace

bool cpuHasAvx512Bf16() {
#if defined(__x86_64__) || defined(__i386__)
    // CPUID leaf 7 subleaf 1, EAX bit 5. Asked directly, as F16C is: not every compiler's
    // __builtin_cpu_supports knows it. Asked once: every BF16 product asks, and under a
    // hypervisor each CPUID is a trap of a microsecond or more.
    static const bool has = [] {
        unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
        constexpr unsigned kAvx512Bf16 = 1u << 5;
        return cpuSupports(CpuKernels::Avx512) &&
               __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) != 0 && (eax & kAvx512Bf16) != 0;
    }();
    return has;
#else
    return false;
#endif
}

bool cpuSplitsWideVectors() {
#if defined(__x86_64__) || defined(__i386__)
    // AMD, family 19h (Zen 3 and Zen 4: only Zen 4 has AVX-512), asked once, as above.
    static const bool splits = [] {
        unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
        if (__get_cpuid(0, &eax, &ebx, &ecx, &edx) == 0 || ebx != signature_AMD_ebx ||
            edx != signature_AMD_edx || ecx != signature_AMD_ecx ||
            __get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0)
            return false;
        const unsigned family = ((eax >> 8) & 0xf) + ((eax >> 20) & 0xff);
        return family == 0x19 && cpuSupports(CpuKernels::Avx512);
    }();
    return splits;
#else
    return false;
#endif
}

const char* amxUnavailable() {
    static const char* const reason = checkAmx();
    return reason;
}

bool cpuSupports(CpuKernels kernels) {
    switch (kernels) {
        case CpuKernels::Portable:
            return true;
#if defined(__x86_64__) || defined(__i386__)
        case CpuKernels::Avx2:
            return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && hasF16c();
        case CpuKernels::Avx512:
            return cpuSupports(CpuKernels::Avx2) && __builtin_cpu_supports("avx512f") &&
                   __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
                   __builtin_cpu_supports("avx512vnni");
#endif
        case CpuKernels::Amx:
            return amxUnavailable() == nullptr;
        default:
            return false;
    }
}

const char* cpuKernelsName(CpuKernels kernels) {
    switch (kernels) {
        case CpuKernels::Portable:
            return "portable";
        case CpuKernels::Avx2:
            return "avx2";
        case CpuKernels::Avx512:
            return "avx512";
        case CpuKernels::Amx:
            return "amx";
    }
    return "?";
}

namespace {

constexpr CpuKernels kAllKernels[] = {CpuKernels::Portable, CpuKernels::Avx2, CpuKernels::Avx512,
                                      CpuKernels::Amx};

CpuKernels chooseKernels() {
    CpuKernels best = CpuKernels::Portable;
    for (const CpuKernels candidate : kAllKernels)
        if (cpuSupports(candidate))
            best = candidate;
    const char* asked = std::getenv("INFERLENS_CPU_KERNELS");
    if (asked == nullptr || *asked == '\0')
        return best;
    for (const CpuKernels candidate : kAllKernels) {
        if (std::string_view(asked) != cpuKernelsName(candidate))
            continue;
        if (cpuSupports(candidate))
            return candidate;
        std::fprintf(stderr, "inferlens: INFERLENS_CPU_KERNELS=%s: this CPU lacks it; using %s\n",
                     asked, cpuKernelsName(best));
        return best;
    }
    std::fprintf(
        stderr,
        "inferlens: INFERLENS_CPU_KERNELS=%s is not portable, avx2, avx512 or amx; using %s\n",
        asked, cpuKernelsName(best));
    return best;
}

}  // namespace

CpuKernels cpuKernels() {
    static const CpuKernels chosen = chooseKernels();
    return chosen;
}

std::string cpuKernelsSummary() {
    const CpuKernels kernels = cpuKernels();
    std::string summary = cpuKernelsName(kernels);
    if (kernels == CpuKernels::Amx)
        return summary;
    const char* reason = amxUnavailable();
    return summary +
           " (AMX: " + (reason != nullptr ? reason : "set aside by INFERLENS_CPU_KERNELS") + ")";
}

}  // namespace inferlens
