#pragma once
// Every CUDA runtime and cuBLAS call is checked: a failure throws Error naming the call, what the
// driver said, and where in our source it happened (a user's report then points at the line).

#include <cublas_v2.h>
#include <cuda_runtime.h>

namespace inferlens::cuda {

void check(cudaError_t status, const char* call, const char* file, int line);
void check(cublasStatus_t status, const char* call, const char* file, int line);

}  // namespace inferlens::cuda

#define INFERLENS_CUDA_CHECK(call) ::inferlens::cuda::check((call), #call, __FILE__, __LINE__)
// After a kernel launch: reports a bad launch configuration at once (errors inside the kernel
// surface at the next synchronising call, which is checked too).
#define INFERLENS_CUDA_CHECK_LAUNCH() \
    ::inferlens::cuda::check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
