#include "backend/cuda/device_memory.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <utility>

#include "backend/cuda/cuda_check.h"
#include "core/error.h"

namespace inferlens::cuda {

int64_t alignedBytes(int64_t bytes) {
    constexpr int64_t kAlignment = 256;
    return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

DeviceArena::DeviceArena(int64_t bytes) : size_(alignedBytes(bytes)) {
    void* base = nullptr;
    INFERLENS_CUDA_CHECK(cudaMalloc(&base, size_t(size_)));
    base_ = static_cast<std::byte*>(base);
}

DeviceArena::~DeviceArena() {
    if (base_ != nullptr)
        cudaFree(base_);  // nothing to report to from a destructor
}

DeviceArena::DeviceArena(DeviceArena&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      used_(std::exchange(other.used_, 0)) {}

DeviceArena& DeviceArena::operator=(DeviceArena&& other) noexcept {
    std::swap(base_, other.base_);
    std::swap(size_, other.size_);
    std::swap(used_, other.used_);
    return *this;
}

void* DeviceArena::take(int64_t bytes) {
    const int64_t piece = alignedBytes(bytes);
    if (piece > size_ - used_)
        throw Error("internal error: a GPU arena of " + std::to_string(size_) +
                    " bytes was sized too small for " + std::to_string(used_ + piece));
    void* result = base_ + used_;
    used_ += piece;
    return result;
}

PinnedBuffer::~PinnedBuffer() {
    if (data_ != nullptr)
        cudaFreeHost(data_);
}

void PinnedBuffer::reserve(int64_t bytes) {
    if (bytes <= size_)
        return;
    const int64_t previous = size_;
    if (data_ != nullptr) {
        // A copy into the old buffer may still be in flight.
        INFERLENS_CUDA_CHECK(cudaDeviceSynchronize());
        INFERLENS_CUDA_CHECK(cudaFreeHost(data_));
        data_ = nullptr;
        size_ = 0;
    }
    // Doubling: a decode step's probe rows grow by one key per step, and each growth waits for the
    // GPU.
    const int64_t grown = std::max(bytes, 2 * previous);
    INFERLENS_CUDA_CHECK(cudaMallocHost(&data_, size_t(grown)));
    size_ = grown;
}

}  // namespace inferlens::cuda
