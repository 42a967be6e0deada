#pragma once
// IEEE binary16 and bfloat16 conversions, written out in integer arithmetic so that they behave the
// same on every compiler and CPU (no dependence on _Float16 or F16C being available).

#include <bit>
#include <cstdint>

namespace inferlens {

inline float bf16ToFloat(uint16_t h) {
    return std::bit_cast<float>(uint32_t(h) << 16);
}

// Round to nearest, ties to even; NaN stays NaN (a quiet NaN with the sign kept).
inline uint16_t floatToBf16(float f) {
    const uint32_t bits = std::bit_cast<uint32_t>(f);
    if ((bits & 0x7fffffffu) > 0x7f800000u)
        return uint16_t((bits >> 16) | 0x0040u);
    const uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
    return uint16_t((bits + rounding) >> 16);
}

inline float halfToFloat(uint16_t h) {
    const uint32_t sign = uint32_t(h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1fu;
    uint32_t mantissa = h & 0x3ffu;
    if (exponent == 0x1f)
        return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
    if (exponent != 0)
        return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
    if (mantissa == 0)
        return std::bit_cast<float>(sign);
    // Subnormal half: normalise the mantissa into a float exponent.
    int shift = 0;
    while ((mantissa & 0x400u) == 0) {
        mantissa <<= 1;
        ++shift;
    }
    mantissa &= 0x3ffu;
    return std::bit_cast<float>(sign | (uint32_t(113 - shift) << 23) | (mantissa << 13));
}

// Round to nearest, ties to even; overflow becomes infinity, NaN stays NaN.
inline uint16_t floatToHalf(float f) {
    const uint32_t bits = std::bit_cast<uint32_t>(f);
    const uint16_t sign = uint16_t((bits >> 16) & 0x8000u);
    const uint32_t absBits = bits & 0x7fffffffu;
    if (absBits > 0x7f800000u)
        return uint16_t(sign | 0x7e00u);
    if (absBits >= 0x477ff000u)
        return uint16_t(sign | 0x7c00u);  // rounds to >= 65520: inf
    if (absBits >= 0x38800000u) {         // normal half
        const uint32_t rounded = absBits + 0xfffu + ((absBits >> 13) & 1u);
        return uint16_t(sign | ((rounded - 0x38000000u) >> 13));
    }
    if (absBits < 0x33000001u)
        return sign;  // below half the smallest subnormal: zero
    // Subnormal half: shift the full mantissa (with its implicit bit) and round to even.
    const uint32_t exponent = absBits >> 23;
    const uint32_t mantissa = (absBits & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - exponent;  // 14..24
    const uint32_t halfway = 1u << (shift - 1);
    const uint32_t remainder = mantissa & ((1u << shift) - 1);
    uint32_t result = mantissa >> shift;
    if (remainder > halfway || (remainder == halfway && (result & 1u)))
        ++result;
    return uint16_t(sign | result);
}

}  // namespace inferlens
