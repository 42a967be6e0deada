#include "core/block_formats.h"

#include "core/k_quant_blocks.h"

namespace inferlens {

const BlockFormat* blockFormat(DType dtype) {
    static const BlockFormat q8_0{1, decodeQ8_0, quantizeQ8_0};
    static const BlockFormat q4_0{1, decodeQ4_0, quantizeQ4_0};
    static const BlockFormat q4_1{1, decodeQ4_1, quantizeQ4_1};
    static const BlockFormat q5_0{1, decodeQ5_0, quantizeQ5_0};
    static const BlockFormat q5_1{1, decodeQ5_1, quantizeQ5_1};
    static const BlockFormat q4_k{kSubBlocksPerSuperBlock, decodeQ4_K, quantizeQ4_K};
    static const BlockFormat q5_k{kSubBlocksPerSuperBlock, decodeQ5_K, quantizeQ5_K};
    static const BlockFormat q6_k{kSubBlocksPerSuperBlock, decodeQ6_K, quantizeQ6_K};
    switch (dtype) {
        case DType::F32:
        case DType::F16:
        case DType::BF16:
            return nullptr;
        case DType::Q8_0:
            return &q8_0;
        case DType::Q4_0:
            return &q4_0;
        case DType::Q4_1:
            return &q4_1;
        case DType::Q5_0:
            return &q5_0;
        case DType::Q5_1:
            return &q5_1;
        case DType::Q4_K:
            return &q4_k;
        case DType::Q5_K:
            return &q5_k;
        case DType::Q6_K:
            return &q6_k;
    }
    return nullptr;
}

void dequantize(DType dtype, const std::byte* blocks, std::span<float> out) {
    const BlockFormat& format = *blockFormat(dtype);
    const DTypeInfo& info = dtypeInfo(dtype);
    checkWholeBlocks(out.size(), info.blockElements, info.name.data());
    SubBlock sub;
    for (size_t first = 0; first < out.size(); first += size_t(info.blockElements)) {
        const std::byte* block = blocks + int64_t(first) / info.blockElements * info.blockBytes;
        for (int s = 0; s < format.subBlocks; ++s) {
            format.decode(block, s, sub);
            float* values = out.data() + first + size_t(s) * kQuantBlockElements;
            for (int j = 0; j < kQuantBlockElements; ++j)
                values[j] = sub.scale[j / 16] * float(sub.q[j]) + sub.offset;
        }
    }
}

}  // namespace inferlens
