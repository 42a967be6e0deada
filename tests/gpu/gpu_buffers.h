#pragma once
// Host ↔ device helpers of the GPU tests: random inputs, weight matrices of any type built on the
// host (encoded by the engine's own quantizers) and uploaded as the backend uploads them.

#include <cuda_runtime.h>

#include <cstddef>
#include <random>
#include <vector>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/device_memory.h"
#include "backend/cuda/device_weights.h"
#include "core/dtype.h"
#include "core/dtype_codec.h"
#include "core/tensor.h"

namespace inferlens::gputest {

inline std::vector<float> randomValues(size_t count, uint32_t seed, float amplitude = 1.0f) {
    std::mt19937 generator(seed);
    std::uniform_real_distribution<float> uniform(-amplitude, amplitude);
    std::vector<float> values(count);
    for (float& value : values)
        value = uniform(generator);
    return values;
}

// A [rows, columns] matrix of random values stored in `dtype`, with its decoded values (what the
// kernels must compute with).
struct HostMatrix {
    std::vector<std::byte> bytes;
    TensorView view;
    std::vector<float> decoded;  // [rows, columns]

    HostMatrix(DType dtype, int64_t rows, int64_t columns, uint32_t seed) {
        const std::vector<float> values = randomValues(size_t(rows * columns), seed, 0.5f);
        const int64_t rowBytes = *byteSize(dtype, columns);
        bytes.resize(size_t(rows * rowBytes));
        decoded.resize(values.size());
        for (int64_t r = 0; r < rows; ++r) {
            const auto row = std::span(values).subspan(size_t(r * columns), size_t(columns));
            encodeRow(dtype, row, bytes.data() + r * rowBytes);
            decodeRow(dtype, bytes.data() + r * rowBytes,
                      std::span(decoded).subspan(size_t(r * columns), size_t(columns)));
        }
        view.name = "test";
        view.dtype = dtype;
        view.shape = {rows, columns};
        view.data = bytes.data();
        view.byteCount = int64_t(bytes.size());
    }
};

// An arena whose pieces the tests fill and read back.
class DeviceScratch {
  public:
    explicit DeviceScratch(int64_t bytes) : arena_(bytes) {}

    float* upload(const std::vector<float>& values) {
        float* device = arena_.take<float>(int64_t(values.size()));
        INFERLENS_CUDA_CHECK(cudaMemcpy(device, values.data(), values.size() * sizeof(float),
                                        cudaMemcpyHostToDevice));
        return device;
    }
    template <class T>
    T* zeros(int64_t count) {
        T* device = arena_.take<T>(count);
        INFERLENS_CUDA_CHECK(cudaMemset(device, 0, size_t(count) * sizeof(T)));
        return device;
    }
    int64_t* position(int64_t value) {
        auto* device = arena_.take<int64_t>(1);
        INFERLENS_CUDA_CHECK(cudaMemcpy(device, &value, sizeof value, cudaMemcpyHostToDevice));
        return device;
    }
    cuda::DeviceMatrix matrix(const HostMatrix& host) {
        return cuda::uploadMatrix(host.view, arena_);
    }
    cuda::DeviceArena& arena() { return arena_; }

  private:
    cuda::DeviceArena arena_;
};

inline std::vector<float> download(const float* device, size_t count) {
    INFERLENS_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> values(count);
    INFERLENS_CUDA_CHECK(
        cudaMemcpy(values.data(), device, count * sizeof(float), cudaMemcpyDeviceToHost));
    return values;
}

}  // namespace inferlens::gputest
