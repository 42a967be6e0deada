#pragma once
// llama.cpp's block formats, byte for byte, so that GGUF files quantized by llama.cpp load here and
// files quantized here load there (ggml-common.h). The "legacy" formats hold 32 values per block:
//   Q8_0: 34 bytes = fp16 d, 32 × int8 q;                      value j = d · q_j
//   Q4_0: 18 bytes = fp16 d, 16 bytes of nibbles;               value j = d · (n_j − 8)
//   Q4_1: 20 bytes = fp16 d, fp16 m, 16 bytes of nibbles;       value j = d · n_j + m
//   Q5_0: 22 bytes = fp16 d, 32-bit qh, 16 bytes of nibbles;    value j = d · (n_j + 16 h_j − 16)
//   Q5_1: 24 bytes = fp16 d, fp16 m, 32-bit qh, 16 bytes;       value j = d · (n_j + 16 h_j) + m
// where nibble byte k holds element k in its low half and element k + 16 in its high half, and h_j
// is bit j of the little-endian qh. The K formats (256 values) are in core/k_quant_blocks.h.
//
// Every block format is presented to the rest of the engine the same way, as 32-value sub-blocks
// of small integers with a scale per 16 values and an offset (SubBlock): the dequantizer, the
// portable kernels and the tests use that one view; the SIMD kernels (backend/cpu) unpack the same
// bytes with vector instructions and are checked against it.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "core/half.h"

namespace inferlens {

constexpr int64_t kQuantBlockElements = 32;  // values per sub-block, and per legacy block
constexpr int64_t kQ8_0BlockBytes = 2 + 32;
constexpr int64_t kQ4_0BlockBytes = 2 + 16;
constexpr int64_t kQ4_1BlockBytes = 2 + 2 + 16;
constexpr int64_t kQ5_0BlockBytes = 2 + 4 + 16;
constexpr int64_t kQ5_1BlockBytes = 2 + 2 + 4 + 16;

// Value j of a sub-block is scale[j / 16] · q[j] + offset.
struct SubBlock {
    int8_t q[kQuantBlockElements];
    float scale[2];
    float offset;
};

inline float halfAt(const std::byte* bytes) {
    uint16_t bits;
    std::memcpy(&bits, bytes, 2);
    return halfToFloat(bits);
}

// 32 nibbles in llama.cpp's order (element k low, element k + 16 high), plus `high` (0 or 16 per
// element, from a 32-bit mask) minus `bias`.
inline void unpackNibbles(const std::byte* nibbles, uint32_t highBits, int bias, int8_t* q) {
    for (int k = 0; k < 16; ++k) {
        const auto byte = uint8_t(nibbles[k]);
        q[k] = int8_t((byte & 0x0f) + (highBits >> k & 1) * 16 - bias);
        q[k + 16] = int8_t((byte >> 4) + (highBits >> (k + 16) & 1) * 16 - bias);
    }
}

inline uint32_t loadU32(const std::byte* bytes) {
    uint32_t value;
    std::memcpy(&value, bytes, 4);
    return value;
}

inline void setScale(SubBlock& out, float scale, float offset) {
    out.scale[0] = out.scale[1] = scale;
    out.offset = offset;
}

// The legacy formats' decoders (`index` is always 0: their blocks are one sub-block).
inline void decodeQ8_0(const std::byte* block, int, SubBlock& out) {
    std::memcpy(out.q, block + 2, kQuantBlockElements);
    setScale(out, halfAt(block), 0.0f);
}
inline void decodeQ4_0(const std::byte* block, int, SubBlock& out) {
    unpackNibbles(block + 2, 0, 8, out.q);
    setScale(out, halfAt(block), 0.0f);
}
inline void decodeQ4_1(const std::byte* block, int, SubBlock& out) {
    unpackNibbles(block + 4, 0, 0, out.q);
    setScale(out, halfAt(block), halfAt(block + 2));
}
inline void decodeQ5_0(const std::byte* block, int, SubBlock& out) {
    unpackNibbles(block + 6, loadU32(block + 2), 16, out.q);
    setScale(out, halfAt(block), 0.0f);
}
inline void decodeQ5_1(const std::byte* block, int, SubBlock& out) {
    unpackNibbles(block + 8, loadU32(block + 4), 0, out.q);
    setScale(out, halfAt(block), halfAt(block + 2));
}

// llama.cpp's reference quantizers (quantize_row_*_ref), reproduced operation for operation so
// that the same f32 values give the same bytes. `values.size()` must be a whole number of blocks;
// non-finite values are refused (an Error), since no scale can hold them.
void quantizeQ8_0(std::span<const float> values, std::byte* blocks);
void quantizeQ4_0(std::span<const float> values, std::byte* blocks);
void quantizeQ4_1(std::span<const float> values, std::byte* blocks);
void quantizeQ5_0(std::span<const float> values, std::byte* blocks);
void quantizeQ5_1(std::span<const float> values, std::byte* blocks);

// Shared with the K formats' quantizers.
void checkWholeBlocks(size_t count, int64_t blockElements, const char* type);
void checkFinite(float value, const char* type);
void storeHalf(float value, std::byte* at);

// Calls quantizeBlock(x, block) for every `blockElements` values, after checking them.
template <typename QuantizeBlock>
void forEachBlock(std::span<const float> values, std::byte* blocks, int64_t blockElements,
                  int64_t blockBytes, const char* type, QuantizeBlock quantizeBlock) {
    checkWholeBlocks(values.size(), blockElements, type);
    for (size_t first = 0; first < values.size(); first += size_t(blockElements)) {
        const auto x = values.subspan(first, size_t(blockElements));
        for (float v : x)
            checkFinite(v, type);
        quantizeBlock(x, blocks + int64_t(first) / blockElements * blockBytes);
    }
}

}  // namespace inferlens
