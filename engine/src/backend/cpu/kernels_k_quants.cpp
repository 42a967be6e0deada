// The 256-value K formats (Q4_K, Q5_K, Q6_K; core/k_quant_blocks.h) as block_tile.h formats. A
// super-block's eight sub-block scales (6-bit, or int8 per 16 values for Q6_K) are decoded once
// per row and super-block; each sub-block's multiples are then a shift and a mask of 32 bytes
// that it shares with its neighbours (Q4_K's sub-blocks 2k and 2k + 1 are the low and high
// nibbles of the same bytes). Q4_K and Q5_K subtract dmin · m per sub-block: the tile's offset.

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

// Q4_K and Q5_K: sub-block s has scale d · sc_s and offset −dmin · m_s.
INFERLENS_AVX2 inline void kScales(const std::byte* block, BlockScales& out) {
    const float d = simd::halfScale(block), dmin = simd::halfScale(block + 2);
    for (int s = 0; s < 8; ++s) {
        int scale, min;
        kScaleAndMin(block + 4, s, scale, min);
        out.scale[s] = d * float(scale);
        out.offset[s] = -(dmin * float(min));
    }
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
        const float d = simd::halfScale(block + 208);
        const auto* scales = reinterpret_cast<const int8_t*>(block + 192);
        for (int g = 0; g < 16; ++g)
            out.scale[g] = d * float(scales[g]);
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
