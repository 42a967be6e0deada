// The 256-value K formats (Q4_K, Q5_K, Q6_K; core/k_quant_blocks.h) as block_tile.h formats. A
// super-block's eight sub-block scales (6-bit, or int8 per 16 values for Q6_K) are decoded once
// per row and super-block; each sub-block's multiples are then a shift and a mask of 32 bytes
// that it shares with its neighbours (Q4_K's sub-blocks 2k and 2k + 1 are the low and high
// nibbles of the same bytes). Q4_K and Q5_K subtract dmin · m per sub-block: the tile's offset.

#include <cstring>

#include "backend/cpu/block_tile.h"
#include "core/k_quant_blocks.h"

namespace inferlens {
namespace {

#if defined(__x86_64__)
INFERLENS_AVX2 inline __m256i load32(const std::byte* bytes) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bytes));
}

// Bits [shift, shift + width) of every byte, as that byte's value.
INFERLENS_AVX2 inline __m256i bitField(__m256i bytes, int shift, int mask) {
    return _mm256_and_si256(_mm256_srl_epi16(bytes, _mm_cvtsi32_si128(shift)),
                            _mm256_set1_epi8(char(mask)));
}

// Eight bytes (two words) as eight floats.
INFERLENS_AVX2 inline __m256 bytesAsFloats(uint32_t low, uint32_t high) {
    return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_set_epi32(0, 0, int(high), int(low))));
}

// Q4_K and Q5_K: sub-block s has scale d · sc_s and offset −dmin · m_s. The eight 6-bit pairs
// (kScaleAndMin's layout) come out of the 12 bytes as 32-bit words, four sub-blocks at a time:
// sub-blocks 0…3 are the low six bits of bytes 0…3 (scales) and 4…7 (mins); 4…7 take a nibble
// of bytes 8…11 and the top two bits of bytes 0…3 (scales) or 4…7 (mins).
INFERLENS_AVX2 inline void kScales(const std::byte* block, BlockScales& out) {
    uint32_t word[3];
    std::memcpy(word, block + 4, 12);
    constexpr uint32_t low6 = 0x3f3f3f3f, low4 = 0x0f0f0f0f, top2 = 0x03030303;
    const uint32_t scalesLow = word[0] & low6;
    const uint32_t scalesHigh = (word[2] & low4) | (word[0] >> 6 & top2) << 4;
    const uint32_t minsLow = word[1] & low6;
    const uint32_t minsHigh = (word[2] >> 4 & low4) | (word[1] >> 6 & top2) << 4;
    _mm256_storeu_ps(out.scale, _mm256_mul_ps(bytesAsFloats(scalesLow, scalesHigh),
                                              _mm256_set1_ps(simd::halfScale(block))));
    _mm256_storeu_ps(out.offset, _mm256_mul_ps(bytesAsFloats(minsLow, minsHigh),
                                               _mm256_set1_ps(-simd::halfScale(block + 2))));
}
#endif

struct Q4_K {
    static constexpr int64_t kBlockBytes = kQ4_KBlockBytes, kSubBlocks = kSubBlocksPerSuperBlock;
    static constexpr bool kSigned = false, kHalfScales = false, kOffset = true;
    static constexpr auto decode = decodeQ4_K;
#if defined(__x86_64__)
    INFERLENS_AVX2 static void scales(const std::byte* block, BlockScales& out) {
        kScales(block, out);
    }
    INFERLENS_AVX2 static __m256i multiples(const std::byte* block, int s) {
        return bitField(load32(block + 16 + 32 * (s / 2)), 4 * (s % 2), 0x0f);
    }
#endif
};

struct Q5_K {
    static constexpr int64_t kBlockBytes = kQ5_KBlockBytes, kSubBlocks = kSubBlocksPerSuperBlock;
    static constexpr bool kSigned = false, kHalfScales = false, kOffset = true;
    static constexpr auto decode = decodeQ5_K;
#if defined(__x86_64__)
    INFERLENS_AVX2 static void scales(const std::byte* block, BlockScales& out) {
        kScales(block, out);
    }
    INFERLENS_AVX2 static __m256i multiples(const std::byte* block, int s) {
        const __m256i low = bitField(load32(block + 48 + 32 * (s / 2)), 4 * (s % 2), 0x0f);
        const __m256i fifth = bitField(load32(block + 16), s, 1);
        return _mm256_or_si256(low, _mm256_slli_epi16(fifth, 4));
    }
#endif
};

struct Q6_K {
    static constexpr int64_t kBlockBytes = kQ6_KBlockBytes, kSubBlocks = kSubBlocksPerSuperBlock;
    static constexpr bool kSigned = true, kHalfScales = true, kOffset = false;
    static constexpr auto decode = decodeQ6_K;
#if defined(__x86_64__)
    INFERLENS_AVX2 static void scales(const std::byte* block, BlockScales& out) {
        const __m256 d = _mm256_set1_ps(simd::halfScale(block + 208));
        const __m128i scales = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 192));
        _mm256_storeu_ps(out.scale,
                         _mm256_mul_ps(d, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(scales))));
        _mm256_storeu_ps(
            out.scale + 8,
            _mm256_mul_ps(d, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(scales, 8)))));
    }
    // decodeQ6_K's layout: half s / 4, and k = s % 4 choosing the bytes and the bits.
    INFERLENS_AVX2 static __m256i multiples(const std::byte* block, int s) {
        const int half = s / 4, k = s % 4;
        const __m256i low = bitField(load32(block + 64 * half + 32 * (k % 2)), 4 * (k / 2), 0x0f);
        const __m256i high = bitField(load32(block + 128 + 32 * half), 2 * k, 3);
        return _mm256_sub_epi8(_mm256_or_si256(low, _mm256_slli_epi16(high, 4)),
                               _mm256_set1_epi8(32));
    }
#endif
};

}  // namespace

BlockTile kQuantTile(DType dtype, CpuKernels kernels) {
    switch (dtype) {
        case DType::Q4_K:
            return blockTileFor<Q4_K>(kernels);
        case DType::Q5_K:
            return blockTileFor<Q5_K>(kernels);
        case DType::Q6_K:
            return blockTileFor<Q6_K>(kernels);
        default:
            return nullptr;
    }
}

}  // namespace inferlens
