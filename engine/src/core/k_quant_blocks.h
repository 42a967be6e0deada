#pragma once
// llama.cpp's "K" block formats, byte for byte (ggml-common.h: block_q4_K, block_q5_K,
// block_q6_K): super-blocks of 256 values in eight 32-value sub-blocks, whose own scales are
// small integers times the super-block's fp16 scales. Most downloaded GGUF files (Q4_K_M, Q5_K_M)
// are mixtures of these.
//   Q4_K: 144 bytes = fp16 d, fp16 dmin, 12 bytes of 6-bit (scale, min) pairs, 128 bytes of
//         nibbles. Sub-block s: value = d · sc_s · n − dmin · m_s, its nibbles in the low (s even)
//         or high (s odd) halves of bytes 32 · (s / 2) … + 31.
//   Q5_K: 176 bytes = Q4_K's header, 32 bytes qh, 128 bytes of nibbles; bit s of qh[l] is the
//         fifth bit of element l of sub-block s.
//   Q6_K: 210 bytes = 128 bytes of low nibbles, 64 bytes of 2-bit high parts, 16 int8 scales (one
//         per 16 values), fp16 d at the end; value = d · sc · (q − 32) with q of 6 bits.
// The decoders present them as core/quant_blocks.h's SubBlock.

#include <cstddef>
#include <cstdint>
#include <span>

#include "core/quant_blocks.h"

namespace inferlens {

constexpr int64_t kSuperBlockElements = 256;
constexpr int64_t kSubBlocksPerSuperBlock = kSuperBlockElements / kQuantBlockElements;
constexpr int64_t kQ4_KBlockBytes = 2 + 2 + 12 + 128;
constexpr int64_t kQ5_KBlockBytes = 2 + 2 + 12 + 32 + 128;
constexpr int64_t kQ6_KBlockBytes = 128 + 64 + 16 + 2;

// Sub-block s's 6-bit scale and min from the 12 packed bytes: s < 4 in the low six bits of bytes
// s and s + 4; s ≥ 4 in a nibble of byte s + 4 and the top two bits of bytes s − 4 and s.
inline void kScaleAndMin(const std::byte* packed, int s, int& scale, int& min) {
    const auto at = [packed](int i) { return int(uint8_t(packed[i])); };
    if (s < 4) {
        scale = at(s) & 63;
        min = at(s + 4) & 63;
    } else {
        scale = (at(s + 4) & 0x0f) | (at(s - 4) >> 6) << 4;
        min = (at(s + 4) >> 4) | (at(s) >> 6) << 4;
    }
}

inline void decodeKScales(const std::byte* block, int s, SubBlock& out) {
    int scale, min;
    kScaleAndMin(block + 4, s, scale, min);
    setScale(out, halfAt(block) * float(scale), -(halfAt(block + 2) * float(min)));
}

inline void decodeQ4_K(const std::byte* block, int s, SubBlock& out) {
    const std::byte* nibbles = block + 16 + 32 * (s / 2);
    const int shift = 4 * (s % 2);
    for (int l = 0; l < 32; ++l)
        out.q[l] = int8_t(uint8_t(nibbles[l]) >> shift & 0x0f);
    decodeKScales(block, s, out);
}

inline void decodeQ5_K(const std::byte* block, int s, SubBlock& out) {
    const std::byte* high = block + 16;
    const std::byte* nibbles = block + 48 + 32 * (s / 2);
    const int shift = 4 * (s % 2);
    for (int l = 0; l < 32; ++l)
        out.q[l] = int8_t((uint8_t(nibbles[l]) >> shift & 0x0f) | (uint8_t(high[l]) >> s & 1) << 4);
    decodeKScales(block, s, out);
}

// Sub-block s lies in 128-value half s / 4; within it, k = s % 4 picks the low nibbles of bytes
// 0…31 (k = 0) or 32…63 (k = 1), or their high nibbles (k = 2, 3), and bits 2k, 2k + 1 of qh.
inline void decodeQ6_K(const std::byte* block, int s, SubBlock& out) {
    const int half = s / 4, k = s % 4;
    const std::byte* low = block + 64 * half + 32 * (k % 2);
    const std::byte* high = block + 128 + 32 * half;
    const int lowShift = 4 * (k / 2);
    for (int l = 0; l < 32; ++l)
        out.q[l] = int8_t(
            ((uint8_t(low[l]) >> lowShift & 0x0f) | (uint8_t(high[l]) >> (2 * k) & 3) << 4) - 32);
    const float d = halfAt(block + 208);
    const auto* scales = reinterpret_cast<const int8_t*>(block + 192 + 8 * half + 2 * k);
    out.scale[0] = d * float(scales[0]);
    out.scale[1] = d * float(scales[1]);
    out.offset = 0.0f;
}

// Plain quantizers into these formats: each sub-block's (or 16-value group's) range, then the
// super-block scales from the largest of those. They are not llama.cpp's (which searches for the
// scales that minimise a weighted error, and so writes other bytes with less error); files
// quantized by llama.cpp load here unchanged, and these suffice for synthetic models and tests.
void quantizeQ4_K(std::span<const float> values, std::byte* blocks);
void quantizeQ5_K(std::span<const float> values, std::byte* blocks);
void quantizeQ6_K(std::span<const float> values, std::byte* blocks);

}  // namespace inferlens
