#pragma once
// GPU and pinned host memory with owners. Everything a model needs on the GPU is sized before the
// first allocation, so that one that does not fit is refused with the numbers (cuda_forward.cpp)
// instead of failing half-way through an upload; an arena then hands out aligned pieces of one
// allocation.

#include <cstddef>
#include <cstdint>

namespace inferlens::cuda {

// Bytes rounded up to the alignment every piece of an arena gets (enough for 16-byte vector
// loads and for cuBLAS).
int64_t alignedBytes(int64_t bytes);

class DeviceArena {
  public:
    DeviceArena() = default;
    explicit DeviceArena(int64_t bytes);  // throws Error (with CUDA's message) when it fails
    ~DeviceArena();
    DeviceArena(DeviceArena&& other) noexcept;
    DeviceArena& operator=(DeviceArena&& other) noexcept;
    DeviceArena(const DeviceArena&) = delete;
    DeviceArena& operator=(const DeviceArena&) = delete;

    // The next `bytes` (aligned); throws Error when the arena was sized too small (a bug).
    void* take(int64_t bytes);
    template <class T>
    T* take(int64_t count) {
        return static_cast<T*>(take(count * int64_t(sizeof(T))));
    }
    int64_t size() const { return size_; }

  private:
    std::byte* base_ = nullptr;
    int64_t size_ = 0, used_ = 0;
};

// Page-locked host memory: copies from the GPU into it run asynchronously and at full speed
// (probe data, logits). Grows on demand; growing waits for the GPU, so callers size it once.
class PinnedBuffer {
  public:
    PinnedBuffer() = default;
    ~PinnedBuffer();
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;

    void reserve(int64_t bytes);
    template <class T>
    T* as() {
        return static_cast<T*>(data_);
    }

  private:
    void* data_ = nullptr;
    int64_t size_ = 0;
};

}  // namespace inferlens::cuda
