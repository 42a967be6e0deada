#include "backend/cpu/cpu_features.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
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

}  // namespace

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
#else
        default:
            return false;
#endif
    }
    return false;
}

const char* cpuKernelsName(CpuKernels kernels) {
    switch (kernels) {
        case CpuKernels::Portable:
            return "portable";
        case CpuKernels::Avx2:
            return "avx2";
        case CpuKernels::Avx512:
            return "avx512";
    }
    return "?";
}

namespace {

CpuKernels chooseKernels() {
    CpuKernels best = CpuKernels::Portable;
    for (const CpuKernels candidate : {CpuKernels::Avx2, CpuKernels::Avx512})
        if (cpuSupports(candidate))
            best = candidate;
    const char* asked = std::getenv("INFERLENS_CPU_KERNELS");
    if (asked == nullptr || *asked == '\0')
        return best;
    for (const CpuKernels candidate :
         {CpuKernels::Portable, CpuKernels::Avx2, CpuKernels::Avx512}) {
        if (std::string_view(asked) != cpuKernelsName(candidate))
            continue;
        if (cpuSupports(candidate))
            return candidate;
        std::fprintf(stderr, "inferlens: INFERLENS_CPU_KERNELS=%s: this CPU lacks it; using %s\n",
                     asked, cpuKernelsName(best));
        return best;
    }
    std::fprintf(stderr,
                 "inferlens: INFERLENS_CPU_KERNELS=%s is not portable, avx2 or avx512; using %s\n",
                 asked, cpuKernelsName(best));
    return best;
}

}  // namespace

CpuKernels cpuKernels() {
    static const CpuKernels chosen = chooseKernels();
    return chosen;
}

}  // namespace inferlens
