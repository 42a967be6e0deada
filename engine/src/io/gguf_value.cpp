#include "io/gguf_value.h"

#include <array>
#include <cstring>
#include <limits>

namespace inferlens {
namespace {

constexpr std::array<std::string_view, 13> kTypeNames{
    "u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string", "array", "u64", "i64", "f64"};
constexpr std::array<size_t, 13> kScalarSizes{1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};

template <typename T>
T loadScalar(const std::byte* bytes) {
    T value;
    std::memcpy(&value, bytes, sizeof(T));
    return value;
}

template <typename T>
GgufArray scalarArray(GgufType type, const std::vector<T>& values) {
    GgufArray array;
    array.elementType = type;
    array.scalarBytes.resize(values.size() * sizeof(T));
    if (!values.empty())
        std::memcpy(array.scalarBytes.data(), values.data(), array.scalarBytes.size());
    return array;
}

}  // namespace

std::string_view ggufTypeName(GgufType type) {
    const auto index = static_cast<size_t>(type);
    return index < kTypeNames.size() ? kTypeNames[index] : "unknown";
}

size_t ggufScalarSize(GgufType type) {
    const auto index = static_cast<size_t>(type);
    return index < kScalarSizes.size() ? kScalarSizes[index] : 0;
}

uint64_t GgufArray::size() const {
    if (elementType == GgufType::String)
        return strings.size();
    if (elementType == GgufType::Array)
        return arrays.size();
    return scalarBytes.size() / ggufScalarSize(elementType);
}

std::optional<double> GgufArray::numberAt(uint64_t index) const {
    const size_t width = ggufScalarSize(elementType);
    if (width == 0 || elementType == GgufType::Bool || index >= size())
        return std::nullopt;
    const std::byte* p = scalarBytes.data() + index * width;
    switch (elementType) {
        case GgufType::U8:
            return loadScalar<uint8_t>(p);
        case GgufType::I8:
            return loadScalar<int8_t>(p);
        case GgufType::U16:
            return loadScalar<uint16_t>(p);
        case GgufType::I16:
            return loadScalar<int16_t>(p);
        case GgufType::U32:
            return loadScalar<uint32_t>(p);
        case GgufType::I32:
            return loadScalar<int32_t>(p);
        case GgufType::F32:
            return loadScalar<float>(p);
        case GgufType::U64:
            return static_cast<double>(loadScalar<uint64_t>(p));
        case GgufType::I64:
            return static_cast<double>(loadScalar<int64_t>(p));
        case GgufType::F64:
            return loadScalar<double>(p);
        default:
            return std::nullopt;
    }
}

std::optional<int64_t> GgufArray::integerAt(uint64_t index) const {
    if (elementType == GgufType::F32 || elementType == GgufType::F64)
        return std::nullopt;
    if (elementType == GgufType::U64) {
        if (index >= size())
            return std::nullopt;
        const auto value = loadScalar<uint64_t>(scalarBytes.data() + index * 8);
        if (value > uint64_t(std::numeric_limits<int64_t>::max()))
            return std::nullopt;
        return int64_t(value);
    }
    if (elementType == GgufType::I64) {
        if (index >= size())
            return std::nullopt;
        return loadScalar<int64_t>(scalarBytes.data() + index * 8);
    }
    const auto number = numberAt(index);
    if (!number)
        return std::nullopt;
    return static_cast<int64_t>(*number);
}

GgufArray GgufArray::ofStrings(std::vector<std::string> values) {
    GgufArray array;
    array.elementType = GgufType::String;
    array.strings = std::move(values);
    return array;
}

GgufArray GgufArray::ofFloats(const std::vector<float>& values) {
    return scalarArray(GgufType::F32, values);
}

GgufArray GgufArray::ofInt32(const std::vector<int32_t>& values) {
    return scalarArray(GgufType::I32, values);
}

std::optional<int64_t> GgufValue::asInteger() const {
    return std::visit(
        [](const auto& v) -> std::optional<int64_t> {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, uint64_t>) {
                if (v > uint64_t(std::numeric_limits<int64_t>::max()))
                    return std::nullopt;
                return int64_t(v);
            } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
                return int64_t(v);
            } else {
                return std::nullopt;
            }
        },
        value);
}

std::optional<double> GgufValue::asNumber() const {
    return std::visit(
        [](const auto& v) -> std::optional<double> {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
                return static_cast<double>(v);
            else
                return std::nullopt;
        },
        value);
}

const std::string* GgufValue::asString() const {
    return std::get_if<std::string>(&value);
}

const GgufArray* GgufValue::asArray() const {
    return std::get_if<GgufArray>(&value);
}

}  // namespace inferlens
