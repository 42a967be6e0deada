#include "core/quant_blocks.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"

namespace inferlens {
namespace {

void storeScale(float d, std::byte* block) {
    const uint16_t bits = floatToHalf(d);
    std::memcpy(block, &bits, 2);
}

void checkBlocks(size_t count, const char* type) {
    if (count % kQuantBlockElements != 0)
        throw Error(std::string(type) + ": " + std::to_string(count) +
                    " values are not a whole number of 32-value blocks");
}

void checkFinite(float value, const char* type) {
    if (!std::isfinite(value))
        throw Error(std::string(type) + ": cannot quantize the non-finite weight " +
                    std::to_string(value));
}

}  // namespace

void quantizeQ8_0(std::span<const float> values, std::byte* blocks) {
    checkBlocks(values.size(), "q8_0");
    for (size_t first = 0; first < values.size(); first += kQuantBlockElements) {
        const auto x = values.subspan(first, kQuantBlockElements);
        std::byte* block = blocks + first / kQuantBlockElements * kQ8_0BlockBytes;
        float amax = 0.0f;
        for (float v : x) {
            checkFinite(v, "q8_0");
            amax = std::max(amax, std::fabs(v));
        }
        // As in llama.cpp, the integers come from the f32 scale, not from its fp16 rounding: that
        // makes the bytes identical, at the price of up to 127 · |d − fp16(d)| more error than d/2
        // on the largest values.
        const float d = amax / 127.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        storeScale(d, block);
        for (int64_t j = 0; j < kQuantBlockElements; ++j)
            block[2 + j] = std::byte(uint8_t(int8_t(std::round(x[j] * id))));
    }
}

void quantizeQ4_0(std::span<const float> values, std::byte* blocks) {
    checkBlocks(values.size(), "q4_0");
    for (size_t first = 0; first < values.size(); first += kQuantBlockElements) {
        const auto x = values.subspan(first, kQuantBlockElements);
        std::byte* block = blocks + first / kQuantBlockElements * kQ4_0BlockBytes;
        // The signed value of largest magnitude (the first one on ties) becomes −8 exactly, which
        // uses the one level that has no positive twin; the other sign then reaches at most +7,
        // with +8 clamped to 15 (an error of one step d).
        float amax = 0.0f, max = 0.0f;
        for (float v : x) {
            checkFinite(v, "q4_0");
            if (amax < std::fabs(v)) {
                amax = std::fabs(v);
                max = v;
            }
        }
        const float d = max / -8.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        storeScale(d, block);
        // x·id lies in [−8, 8], so x·id + 8.5 is positive and truncation rounds it half up. Two
        // statements, as in llama.cpp, so that compilers that contract only within an expression
        // (clang's default) do not fuse them into one FMA, which rounds once instead of twice.
        const auto level = [id](float v) {
            const float scaled = v * id;
            return std::min(15, int(int8_t(scaled + 8.5f)));
        };
        for (int64_t j = 0; j < kQuantBlockElements / 2; ++j)
            block[2 + j] = std::byte(uint8_t(level(x[j]) | level(x[j + 16]) << 4));
    }
}

namespace {

// Both types store d and then 32 integers q; value j of a block is d · q_j.
template <int (*multiple)(const std::byte*, int64_t), int64_t blockBytes>
void dequantizeBlocks(const std::byte* blocks, std::span<float> out, const char* type) {
    checkBlocks(out.size(), type);
    for (size_t first = 0; first < out.size(); first += kQuantBlockElements) {
        const std::byte* block = blocks + first / kQuantBlockElements * blockBytes;
        const float d = blockScale(block);
        for (int64_t j = 0; j < kQuantBlockElements; ++j)
            out[first + j] = float(multiple(block, j)) * d;
    }
}

}  // namespace

void dequantizeQ8_0(const std::byte* blocks, std::span<float> out) {
    dequantizeBlocks<q8_0Multiple, kQ8_0BlockBytes>(blocks, out, "q8_0");
}

void dequantizeQ4_0(const std::byte* blocks, std::span<float> out) {
    dequantizeBlocks<q4_0Multiple, kQ4_0BlockBytes>(blocks, out, "q4_0");
}

}  // namespace inferlens
