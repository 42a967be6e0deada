#include "core/dtype_codec.h"

#include "core/quant_blocks.h"

namespace inferlens {

void decodeRow(DType dtype, const std::byte* row, std::span<float> out) {
    const auto count = int64_t(out.size());
    switch (dtype) {
        case DType::F32:
            for (int64_t i = 0; i < count; ++i)
                out[i] = loadF32(row, i);
            break;
        case DType::F16:
            for (int64_t i = 0; i < count; ++i)
                out[i] = loadF16(row, i);
            break;
        case DType::BF16:
            for (int64_t i = 0; i < count; ++i)
                out[i] = loadBf16(row, i);
            break;
        case DType::Q8_0:
            dequantizeQ8_0(row, out);
            break;
        case DType::Q4_0:
            dequantizeQ4_0(row, out);
            break;
    }
}

void encodeRow(DType dtype, std::span<const float> values, std::byte* row) {
    const auto storeU16 = [row](size_t i, uint16_t bits) { std::memcpy(row + 2 * i, &bits, 2); };
    switch (dtype) {
        case DType::F32:
            std::memcpy(row, values.data(), values.size() * 4);
            break;
        case DType::F16:
            for (size_t i = 0; i < values.size(); ++i)
                storeU16(i, floatToHalf(values[i]));
            break;
        case DType::BF16:
            for (size_t i = 0; i < values.size(); ++i)
                storeU16(i, floatToBf16(values[i]));
            break;
        case DType::Q8_0:
            quantizeQ8_0(values, row);
            break;
        case DType::Q4_0:
            quantizeQ4_0(values, row);
            break;
    }
}

}  // namespace inferlens
