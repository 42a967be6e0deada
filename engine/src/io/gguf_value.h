#pragma once
// GGUF metadata values: the thirteen value types of the format, arrays included (nested arrays are
// legal GGUF). Scalar arrays keep their little-endian bytes as read, so a metadata array costs no
// more memory than it occupied in the file.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace inferlens {

enum class GgufType : uint32_t {
    U8 = 0,
    I8 = 1,
    U16 = 2,
    I16 = 3,
    U32 = 4,
    I32 = 5,
    F32 = 6,
    Bool = 7,
    String = 8,
    Array = 9,
    U64 = 10,
    I64 = 11,
    F64 = 12,
};

std::string_view ggufTypeName(GgufType type);
// Bytes of one scalar of this type; 0 for String and Array.
size_t ggufScalarSize(GgufType type);

struct GgufArray {
    GgufType elementType = GgufType::U8;
    std::vector<std::byte> scalarBytes;  // elementType is a scalar type
    std::vector<std::string> strings;    // elementType == String
    std::vector<GgufArray> arrays;       // elementType == Array

    uint64_t size() const;
    // Element i of a numeric array converted to double/int64; nullopt for other element types.
    std::optional<double> numberAt(uint64_t index) const;
    std::optional<int64_t> integerAt(uint64_t index) const;

    static GgufArray ofStrings(std::vector<std::string> values);
    static GgufArray ofFloats(const std::vector<float>& values);
    static GgufArray ofInt32(const std::vector<int32_t>& values);

    bool operator==(const GgufArray&) const = default;
};

// The variant's alternatives are in GgufType order, so index() is the type number.
using GgufVariant = std::variant<uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, float, bool,
                                 std::string, GgufArray, uint64_t, int64_t, double>;

struct GgufValue {
    GgufVariant value;

    GgufType type() const { return static_cast<GgufType>(value.index()); }
    std::optional<int64_t> asInteger() const;  // any integer type (u64 above INT64_MAX: nullopt)
    std::optional<double> asNumber() const;    // any integer or float type
    const std::string* asString() const;
    const GgufArray* asArray() const;

    bool operator==(const GgufValue&) const = default;
};

struct GgufKeyValue {
    std::string key;
    GgufValue value;
};

}  // namespace inferlens
