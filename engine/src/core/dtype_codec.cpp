#include "core/dtype_codec.h"

#include "core/block_formats.h"

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
        default:
            dequantize(dtype, row, out);
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
        default:
            blockFormat(dtype)->quantize(values, row);
            break;
    }
}

}  // namespace inferlens
