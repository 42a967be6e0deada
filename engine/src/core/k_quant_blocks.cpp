#include "core/k_quant_blocks.h"

#include <algorithm>
#include <cmath>

namespace inferlens {
namespace {

int nearest(float value, int low, int high) {
    return std::clamp(int(std::lrintf(value)), low, high);
}

// Q4_K and Q5_K: per sub-block, levels 0…top spanning [min(0, lowest), highest]; writes the
// header (d, dmin, packed 6-bit scales and mins) and returns the levels.
void quantizeAsymmetric(std::span<const float> x, int top, std::byte* block, uint8_t* levels) {
    float step[8], lift[8];  // lift: what the sub-block's lowest level stands for, negated (≥ 0)
    float largestStep = 0.0f, largestLift = 0.0f;
    for (int s = 0; s < 8; ++s) {
        const auto sub = x.subspan(size_t(32 * s), 32);
        const float low = std::min(0.0f, *std::min_element(sub.begin(), sub.end()));
        const float high = *std::max_element(sub.begin(), sub.end());
        step[s] = (high - low) / float(top);
        lift[s] = -low;
        largestStep = std::max(largestStep, step[s]);
        largestLift = std::max(largestLift, lift[s]);
    }
    storeHalf(largestStep / 63.0f, block);
    storeHalf(largestLift / 63.0f, block + 2);
    const float d = halfAt(block), dmin = halfAt(block + 2);
    int scale[8], min[8];
    for (int s = 0; s < 8; ++s) {
        scale[s] = d > 0.0f ? nearest(step[s] / d, 0, 63) : 0;
        min[s] = dmin > 0.0f ? nearest(lift[s] / dmin, 0, 63) : 0;
    }
    auto* packed = reinterpret_cast<uint8_t*>(block + 4);
    for (int j = 0; j < 4; ++j) {
        packed[j] = uint8_t(scale[j] | (scale[j + 4] >> 4) << 6);
        packed[j + 4] = uint8_t(min[j] | (min[j + 4] >> 4) << 6);
        packed[j + 8] = uint8_t((scale[j + 4] & 0x0f) | (min[j + 4] & 0x0f) << 4);
    }
    for (int s = 0; s < 8; ++s) {
        const float width = d * float(scale[s]), offset = dmin * float(min[s]);
        for (int l = 0; l < 32; ++l) {
            const float value = x[size_t(32 * s + l)];
            levels[32 * s + l] =
                uint8_t(width > 0.0f ? nearest((value + offset) / width, 0, top) : 0);
        }
    }
}

}  // namespace

void quantizeQ4_K(std::span<const float> values, std::byte* blocks) {
    forEachBlock(values, blocks, kSuperBlockElements, kQ4_KBlockBytes, "q4_k",
                 [](auto x, std::byte* block) {
                     uint8_t levels[256];
                     quantizeAsymmetric(x, 15, block, levels);
                     auto* nibbles = reinterpret_cast<uint8_t*>(block + 16);
                     for (int pair = 0; pair < 4; ++pair)
                         for (int l = 0; l < 32; ++l)
                             nibbles[32 * pair + l] =
                                 uint8_t(levels[64 * pair + l] | levels[64 * pair + 32 + l] << 4);
                 });
}

void quantizeQ5_K(std::span<const float> values, std::byte* blocks) {
    forEachBlock(
        values, blocks, kSuperBlockElements, kQ5_KBlockBytes, "q5_k", [](auto x, std::byte* block) {
            uint8_t levels[256];
            quantizeAsymmetric(x, 31, block, levels);
            auto* high = reinterpret_cast<uint8_t*>(block + 16);
            auto* nibbles = reinterpret_cast<uint8_t*>(block + 48);
            std::fill(high, high + 32, uint8_t(0));
            for (int s = 0; s < 8; ++s)
                for (int l = 0; l < 32; ++l)
                    high[l] |= uint8_t((levels[32 * s + l] >> 4) << s);
            for (int pair = 0; pair < 4; ++pair)
                for (int l = 0; l < 32; ++l)
                    nibbles[32 * pair + l] = uint8_t((levels[64 * pair + l] & 0x0f) |
                                                     (levels[64 * pair + 32 + l] & 0x0f) << 4);
        });
}

void quantizeQ6_K(std::span<const float> values, std::byte* blocks) {
    forEachBlock(
        values, blocks, kSuperBlockElements, kQ6_KBlockBytes, "q6_k", [](auto x, std::byte* block) {
            // Per 16 values, the signed value of largest magnitude becomes level −32 (as Q4_0 does
            // per block); the 16 group steps are then int8 multiples of one fp16 d.
            float step[16], largest = 0.0f;
            for (int g = 0; g < 16; ++g) {
                float amax = 0.0f, max = 0.0f;
                for (int l = 0; l < 16; ++l) {
                    const float v = x[size_t(16 * g + l)];
                    if (amax < std::fabs(v)) {
                        amax = std::fabs(v);
                        max = v;
                    }
                }
                step[g] = max / -32.0f;
                largest = std::max(largest, std::fabs(step[g]));
            }
            storeHalf(largest / 127.0f, block + 208);
            const float d = halfAt(block + 208);
            auto* scales = reinterpret_cast<int8_t*>(block + 192);
            uint8_t levels[256];
            for (int g = 0; g < 16; ++g) {
                scales[g] = int8_t(d > 0.0f ? nearest(step[g] / d, -127, 127) : 0);
                const float width = d * float(scales[g]);
                for (int l = 0; l < 16; ++l) {
                    const float v = x[size_t(16 * g + l)];
                    levels[16 * g + l] =
                        uint8_t(width != 0.0f ? nearest(v / width, -32, 31) + 32 : 32);
                }
            }
            // The inverse of decodeQ6_K's layout.
            auto* low = reinterpret_cast<uint8_t*>(block);
            auto* high = reinterpret_cast<uint8_t*>(block + 128);
            std::fill(low, low + 192, uint8_t(0));
            for (int s = 0; s < 8; ++s) {
                const int half = s / 4, k = s % 4;
                for (int l = 0; l < 32; ++l) {
                    const uint8_t level = levels[32 * s + l];
                    low[64 * half + 32 * (k % 2) + l] |= uint8_t((level & 0x0f) << (4 * (k / 2)));
                    high[32 * half + l] |= uint8_t((level >> 4) << (2 * k));
                }
            }
        });
}

}  // namespace inferlens
