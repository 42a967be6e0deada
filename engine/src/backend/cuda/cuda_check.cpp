#include "backend/cuda/cuda_check.h"

#include <string>
#include <string_view>

#include "core/error.h"

namespace inferlens::cuda {
namespace {

// The path from engine/src/ on, which is what a bug report needs.
std::string_view sourcePath(std::string_view file) {
    const auto at = file.rfind("engine/src/");
    return at == std::string_view::npos ? file : file.substr(at);
}

[[noreturn]] void fail(const char* what, const char* call, const char* file, int line) {
    throw Error(std::string("CUDA error: ") + what + " (" + call + " at " +
                std::string(sourcePath(file)) + ":" + std::to_string(line) + ")");
}

}  // namespace

void check(cudaError_t status, const char* call, const char* file, int line) {
    if (status != cudaSuccess) {
        cudaGetLastError();  // clears a non-sticky error so that the next call starts clean
        fail(cudaGetErrorString(status), call, file, line);
    }
}

void check(cublasStatus_t status, const char* call, const char* file, int line) {
    if (status != CUBLAS_STATUS_SUCCESS)
        fail(cublasGetStatusString(status), call, file, line);
}

}  // namespace inferlens::cuda
