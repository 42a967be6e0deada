// The 32-value block formats (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1; core/quant_blocks.h) as block_tile.h
// formats: how each one's bytes become 32 multiples and a scale. Q8_0 is signed and goes through
// the tile's sign trick; the nibble formats stay unsigned (n, or n + 16 h) and put what llama.cpp
// subtracts from every multiple (8 or 16 steps) or adds (the min m) into the offset, which the
// tile applies once per sub-block through the activations' sum.

#include <cstring>

#include "backend/cpu/block_tile.h"

namespace inferlens {
namespace {

#if defined(__x86_64__)
// Elements 0..15 (low nibbles) in the low 16 bytes, 16..31 (high nibbles) in the high 16.
INFERLENS_AVX2 inline __m256i nibbles(const std::byte* bytes) {
    const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes));
    return _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(packed, 4), packed),
                            _mm256_set1_epi8(0x0f));
}

// 16 in byte j where bit j of the little-endian 32-bit mask is set, else 0: byte j takes byte
// j / 8 of the mask, then keeps bit j % 8 of it.
INFERLENS_AVX2 inline __m256i fifthBits(const std::byte* qh) {
    uint32_t mask;
    std::memcpy(&mask, qh, 4);
    const __m256i spread = _mm256_shuffle_epi8(
        _mm256_set1_epi32(int(mask)), _mm256_set_epi64x(0x0303030303030303, 0x0202020202020202,
                                                        0x0101010101010101, 0x0000000000000000));
    const __m256i bit = _mm256_set1_epi64x(int64_t(0x8040201008040201));
    return _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(spread, bit), bit),
                            _mm256_set1_epi8(16));
}
#endif

// What every 32-value format shares in block_tile.h's description.
template <int64_t blockBytes, bool isSigned, bool hasOffset,
          void (*decoder)(const std::byte*, int, SubBlock&)>
struct LegacyFormat {
    static constexpr int64_t kBlockBytes = blockBytes, kSubBlocks = 1;
    static constexpr bool kSigned = isSigned, kHalfScales = false, kOffset = hasOffset;
    static constexpr auto decode = decoder;
};

struct Q8_0 : LegacyFormat<kQ8_0BlockBytes, true, false, decodeQ8_0> {
#if defined(__x86_64__)
    INFERLENS_AVX2 static void scales(const std::byte* block, BlockScales& out) {
        out.scale[0] = simd::halfScale(block);
    }
    INFERLENS_AVX2 static __m256i multiples(const std::byte* block, int) {
        return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 2));
    }
#endif
};

struct Q4_0 : LegacyFormat<kQ4_0BlockBytes, false, true, decodeQ4_0> {
#if defined(__x86_64__)
    INFERLENS_AVX2 static void scales(const std::byte* block, BlockScales& out) {
        out.scale[0] = simd::halfScale(block);
        out.offset[0] = -8.0f * out.scale[0];
    }
    INFERLENS_AVX2 static __m256i multiples(const std::byte* block, int) {
        return nibbles(block + 2);
    }
#endif
};

struct Q4_1 : LegacyFormat<kQ4_1BlockBytes, false, true, decodeQ4_1> {
#if defined(__x86_64__)
    INFERLENS_AVX2 static void scales(const std::byte* block, BlockScales& out) {
        out.scale[0] = simd::halfScale(block);
        out.offset[0] = simd::halfScale(block + 2);
    }
    INFERLENS_AVX2 static __m256i multiples(const std::byte* block, int) {
        return nibbles(block + 4);
    }
#endif
};

struct Q5_0 : LegacyFormat<kQ5_0BlockBytes, false, true, decodeQ5_0> {
#if defined(__x86_64__)
    INFERLENS_AVX2 static void scales(const std::byte* block, BlockScales& out) {
        out.scale[0] = simd::halfScale(block);
        out.offset[0] = -16.0f * out.scale[0];
    }
    INFERLENS_AVX2 static __m256i multiples(const std::byte* block, int) {
        return _mm256_or_si256(nibbles(block + 6), fifthBits(block + 2));
    }
#endif
};

struct Q5_1 : LegacyFormat<kQ5_1BlockBytes, false, true, decodeQ5_1> {
#if defined(__x86_64__)
    INFERLENS_AVX2 static void scales(const std::byte* block, BlockScales& out) {
        out.scale[0] = simd::halfScale(block);
        out.offset[0] = simd::halfScale(block + 2);
    }
    INFERLENS_AVX2 static __m256i multiples(const std::byte* block, int) {
        return _mm256_or_si256(nibbles(block + 8), fifthBits(block + 4));
    }
#endif
};

}  // namespace

BlockTile legacyQuantTile(DType dtype, CpuKernels kernels) {
    switch (dtype) {
        case DType::Q8_0:
            return blockTileFor<Q8_0>(kernels);
        case DType::Q4_0:
            return blockTileFor<Q4_0>(kernels);
        case DType::Q4_1:
            return blockTileFor<Q4_1>(kernels);
        case DType::Q5_0:
            return blockTileFor<Q5_0>(kernels);
        case DType::Q5_1:
            return blockTileFor<Q5_1>(kernels);
        default:
            return nullptr;
    }
}

}  // namespace inferlens
