#pragma once
// Element types of weight tensors. Every type is described by a block: `blockElements` values
// stored in `blockBytes` bytes (1 and sizeof(element) for plain floats; 32 and 34 for Q8_0; 256 and
// 144 for Q4_K). Sizes,
// row strides and validation are computed from that one description, so adding a quantized type
// means adding a table row, its block codec (core/quant_blocks) and its kernels (backend/cpu), not
// changing the readers.

#include <cstdint>
#include <optional>
#include <string_view>

namespace inferlens {

// Q8_0 … Q6_K are llama.cpp's block formats, byte for byte (core/quant_blocks.h, k_quant_blocks.h).
enum class DType : uint8_t { F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K };

struct DTypeInfo {
    DType dtype;
    std::string_view name;             // "f32", as users type it on the command line
    uint32_t ggmlType;                 // the number GGUF stores
    std::string_view safetensorsName;  // "F32"; empty when safetensors has no such type
    int64_t blockElements;
    int64_t blockBytes;
};

const DTypeInfo& dtypeInfo(DType dtype);
std::string_view dtypeName(DType dtype);
std::optional<DType> dtypeFromName(std::string_view name);  // "f32", "f16", …, "q4_k", "q6_k"
std::optional<DType> dtypeFromGgmlType(uint32_t ggmlType);
std::optional<DType> dtypeFromSafetensorsName(std::string_view name);

// Whether values are stored in blocks sharing scales (Q8_0 … Q6_K): such tensors need rows that are
// whole blocks, and safetensors cannot hold them.
inline bool isBlockQuantized(DType dtype) {
    return dtypeInfo(dtype).blockElements > 1;
}

// For types that a file may carry but this engine cannot compute with: their name (e.g. "Q2_K"), so
// the error can say what it found. Empty when the number is not a known GGML type at all.
std::string_view knownUnsupportedGgmlTypeName(uint32_t ggmlType);

// Bytes of `elements` values; nullopt if `elements` is not a whole number of blocks or the size
// would overflow.
std::optional<int64_t> byteSize(DType dtype, int64_t elements);

}  // namespace inferlens
