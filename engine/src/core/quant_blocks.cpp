#include "core/quant_blocks.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>

#include "core/error.h"

namespace inferlens {

void checkWholeBlocks(size_t count, int64_t blockElements, const char* type) {
    if (count % size_t(blockElements) != 0)
        throw Error(std::string(type) + ": " + std::to_string(count) +
                    " values are not a whole number of " + std::to_string(blockElements) +
                    "-value blocks");
}

void checkFinite(float value, const char* type) {
    if (!std::isfinite(value))
        throw Error(std::string(type) + ": cannot quantize the non-finite weight " +
                    std::to_string(value));
}

void storeHalf(float value, std::byte* at) {
    const uint16_t bits = floatToHalf(value);
    std::memcpy(at, &bits, 2);
}

namespace {

// The signed value of largest magnitude (the first one on ties), which the symmetric formats map
// to their lowest level: that level has no positive twin, so using it gains one level.
float signedLargest(std::span<const float> x) {
    float amax = 0.0f, max = 0.0f;
    for (float v : x)
        if (amax < std::fabs(v)) {
            amax = std::fabs(v);
            max = v;
        }
    return max;
}

std::pair<float, float> range(std::span<const float> x) {
    float min = FLT_MAX, max = -FLT_MAX;
    for (float v : x) {
        min = std::min(min, v);
        max = std::max(max, v);
    }
    return {min, max};
}

// Packs 32 levels of up to 5 bits: low nibbles as llama.cpp orders them, fifth bits into `qh`.
void packLevels(const uint8_t* levels, std::byte* nibbles, std::byte* qh) {
    uint32_t high = 0;
    for (int k = 0; k < 16; ++k) {
        nibbles[k] = std::byte(uint8_t((levels[k] & 0x0f) | (levels[k + 16] & 0x0f) << 4));
        high |= uint32_t(levels[k] >> 4 & 1) << k;
        high |= uint32_t(levels[k + 16] >> 4 & 1) << (k + 16);
    }
    if (qh != nullptr)
        std::memcpy(qh, &high, 4);
}

}  // namespace

void quantizeQ8_0(std::span<const float> values, std::byte* blocks) {
    forEachBlock(values, blocks, kQuantBlockElements, kQ8_0BlockBytes, "q8_0",
                 [](auto x, std::byte* block) {
                     float amax = 0.0f;
                     for (float v : x)
                         amax = std::max(amax, std::fabs(v));
                     // As in llama.cpp, the integers come from the f32 scale, not from its fp16
                     // rounding: that makes the bytes identical, at the price of up to 127 · |d −
                     // fp16(d)| more error than d/2 on the largest values.
                     const float d = amax / 127.0f;
                     const float id = d != 0.0f ? 1.0f / d : 0.0f;
                     storeHalf(d, block);
                     for (int64_t j = 0; j < kQuantBlockElements; ++j)
                         block[2 + j] = std::byte(uint8_t(int8_t(std::round(x[j] * id))));
                 });
}

// In the 4- and 5-bit quantizers, x·id + 0.5 (or + 8.5, + 16.5) is non-negative and truncation
// rounds it half up. Two statements, as in llama.cpp, so that compilers that contract only within
// an expression (clang's default) do not fuse them into one FMA, which rounds once instead of
// twice.

namespace {

// Q4_0 and Q5_0: the largest magnitude becomes level 0, i.e. −bias steps (bias 8 or 16, the level
// that has no positive twin); the other sign then reaches at most bias − 1 steps, with +bias
// clamped (an error of one step d). Nibbles at `nibbles`, fifth bits (Q5_0) at `qh`.
void quantizeSymmetric(std::span<const float> values, std::byte* blocks, int64_t blockBytes,
                       const char* type, int bias, int64_t nibbles, int64_t qh) {
    forEachBlock(
        values, blocks, kQuantBlockElements, blockBytes, type, [=](auto x, std::byte* block) {
            const float d = signedLargest(x) / float(-bias);
            const float id = d != 0.0f ? 1.0f / d : 0.0f;
            storeHalf(d, block);
            uint8_t levels[kQuantBlockElements];
            for (int64_t j = 0; j < kQuantBlockElements; ++j) {
                const float scaled = x[j] * id;
                levels[j] =
                    uint8_t(std::min(2 * bias - 1, int(int8_t(scaled + (float(bias) + 0.5f)))));
            }
            packLevels(levels, block + nibbles, qh < 0 ? nullptr : block + qh);
        });
}

// Q4_1 and Q5_1: levels 0…top over the block's [min, max], d and min in the header; Q5_1, as in
// llama.cpp, without a clamp (its levels reach at most 31.5 before truncation).
void quantizeWithMinimum(std::span<const float> values, std::byte* blocks, int64_t blockBytes,
                         const char* type, int top, int64_t nibbles, int64_t qh) {
    forEachBlock(values, blocks, kQuantBlockElements, blockBytes, type,
                 [=](auto x, std::byte* block) {
                     const auto [min, max] = range(x);
                     const float d = (max - min) / float(top);
                     const float id = d != 0.0f ? 1.0f / d : 0.0f;
                     storeHalf(d, block);
                     storeHalf(min, block + 2);
                     uint8_t levels[kQuantBlockElements];
                     for (int64_t j = 0; j < kQuantBlockElements; ++j) {
                         const float scaled = (x[j] - min) * id;
                         levels[j] = top == 15 ? uint8_t(std::min(15, int(int8_t(scaled + 0.5f))))
                                               : uint8_t(scaled + 0.5f);
                     }
                     packLevels(levels, block + nibbles, qh < 0 ? nullptr : block + qh);
                 });
}

}  // namespace

void quantizeQ4_0(std::span<const float> values, std::byte* blocks) {
    quantizeSymmetric(values, blocks, kQ4_0BlockBytes, "q4_0", 8, 2, -1);
}

void quantizeQ4_1(std::span<const float> values, std::byte* blocks) {
    quantizeWithMinimum(values, blocks, kQ4_1BlockBytes, "q4_1", 15, 4, -1);
}

void quantizeQ5_0(std::span<const float> values, std::byte* blocks) {
    quantizeSymmetric(values, blocks, kQ5_0BlockBytes, "q5_0", 16, 6, 2);
}

void quantizeQ5_1(std::span<const float> values, std::byte* blocks) {
    quantizeWithMinimum(values, blocks, kQ5_1BlockBytes, "q5_1", 31, 8, 4);
}

}  // namespace inferlens
