#pragma once
// Random block-type weights for the kernel tests (test_cpu_kernels, test_amx_kernels).

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "core/half.h"
#include "core/tensor.h"

namespace inferlens::test {

// `blocks` blocks of uniformly random bytes, so that every bit of every field is exercised, but
// for the fp16 scales (at these offsets in a block), which are set to finite values of either
// sign up to 1.
inline std::vector<std::byte> randomBlocks(DType dtype, int64_t blocks, uint32_t seed) {
    const auto scaleOffsets = [dtype]() -> std::vector<int64_t> {
        switch (dtype) {
            case DType::Q4_1:
            case DType::Q5_1:
            case DType::Q4_K:
            case DType::Q5_K:
                return {0, 2};
            case DType::Q6_K:
                return {208};
            default:
                return {0};
        }
    }();
    std::mt19937 generator(seed);
    std::uniform_int_distribution<int> byte(0, 255);
    std::uniform_real_distribution<float> scale(-1.0f, 1.0f);
    const int64_t blockBytes = dtypeInfo(dtype).blockBytes;
    std::vector<std::byte> bytes(size_t(blocks * blockBytes));
    for (auto& b : bytes)
        b = std::byte(uint8_t(byte(generator)));
    for (int64_t block = 0; block < blocks; ++block)
        for (const int64_t offset : scaleOffsets) {
            const uint16_t bits = floatToHalf(scale(generator));
            std::memcpy(bytes.data() + block * blockBytes + offset, &bits, 2);
        }
    return bytes;
}

}  // namespace inferlens::test
