#include "core/dtype_codec.h"

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
    }
}

void encodeRow(DType dtype, std::span<const float> values, std::byte* row) {
    for (size_t i = 0; i < values.size(); ++i) {
        switch (dtype) {
            case DType::F32:
                std::memcpy(row + 4 * i, &values[i], 4);
                break;
            case DType::F16: {
                const uint16_t half = floatToHalf(values[i]);
                std::memcpy(row + 2 * i, &half, 2);
                break;
            }
            case DType::BF16: {
                const uint16_t half = floatToBf16(values[i]);
                std::memcpy(row + 2 * i, &half, 2);
                break;
            }
        }
    }
}

}  // namespace inferlens
