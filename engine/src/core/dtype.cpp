#include "core/dtype.h"

#include <array>
#include <limits>

namespace inferlens {
namespace {

// Indexed by DType: the rows are in the enum's order.
constexpr std::array<DTypeInfo, 11> kDTypes{{
    {DType::F32, "f32", 0, "F32", 1, 4},
    {DType::F16, "f16", 1, "F16", 1, 2},
    {DType::BF16, "bf16", 30, "BF16", 1, 2},
    {DType::Q8_0, "q8_0", 8, "", 32, 34},     // fp16 scale + 32 × int8
    {DType::Q4_0, "q4_0", 2, "", 32, 18},     // fp16 scale + 32 × 4 bits
    {DType::Q4_1, "q4_1", 3, "", 32, 20},     // fp16 scale and min + 32 × 4 bits
    {DType::Q5_0, "q5_0", 6, "", 32, 22},     // fp16 scale + 32 × 5 bits
    {DType::Q5_1, "q5_1", 7, "", 32, 24},     // fp16 scale and min + 32 × 5 bits
    {DType::Q4_K, "q4_k", 12, "", 256, 144},  // 2 fp16 + 8 × 6-bit scale, min + 256 × 4 bits
    {DType::Q5_K, "q5_k", 13, "", 256, 176},  // the same + 256 × 5 bits
    {DType::Q6_K, "q6_k", 14, "", 256, 210},  // 16 int8 scales + fp16 + 256 × 6 bits
}};
static_assert([] {
    for (size_t i = 0; i < kDTypes.size(); ++i)
        if (static_cast<size_t>(kDTypes[i].dtype) != i)
            return false;
    return true;
}());

struct NamedGgmlType {
    uint32_t number;
    std::string_view name;
};

// GGML types that exist in files in the wild but have no kernels here yet.
constexpr std::array<NamedGgmlType, 12> kUnsupportedGgmlTypes{{
    {9, "Q8_1"},
    {10, "Q2_K"},
    {11, "Q3_K"},
    {15, "Q8_K"},
    {16, "IQ2_XXS"},
    {17, "IQ2_XS"},
    {18, "IQ3_XXS"},
    {19, "IQ1_S"},
    {20, "IQ4_NL"},
    {24, "I8"},
    {26, "I32"},
    {28, "F64"},
}};

}  // namespace

const DTypeInfo& dtypeInfo(DType dtype) {
    return kDTypes[static_cast<size_t>(dtype)];
}

std::string_view dtypeName(DType dtype) {
    return dtypeInfo(dtype).name;
}

std::optional<DType> dtypeFromName(std::string_view name) {
    for (const auto& info : kDTypes)
        if (info.name == name)
            return info.dtype;
    return std::nullopt;
}

std::optional<DType> dtypeFromGgmlType(uint32_t ggmlType) {
    for (const auto& info : kDTypes)
        if (info.ggmlType == ggmlType)
            return info.dtype;
    return std::nullopt;
}

std::optional<DType> dtypeFromSafetensorsName(std::string_view name) {
    for (const auto& info : kDTypes)
        if (!info.safetensorsName.empty() && info.safetensorsName == name)
            return info.dtype;
    return std::nullopt;
}

std::string_view knownUnsupportedGgmlTypeName(uint32_t ggmlType) {
    for (const auto& type : kUnsupportedGgmlTypes)
        if (type.number == ggmlType)
            return type.name;
    return {};
}

std::optional<int64_t> byteSize(DType dtype, int64_t elements) {
    const auto& info = dtypeInfo(dtype);
    if (elements < 0 || elements % info.blockElements != 0)
        return std::nullopt;
    const int64_t blocks = elements / info.blockElements;
    if (blocks > std::numeric_limits<int64_t>::max() / info.blockBytes)
        return std::nullopt;
    return blocks * info.blockBytes;
}

}  // namespace inferlens
