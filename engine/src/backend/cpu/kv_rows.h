#pragma once
// How the KV cache stores one position's keys (or values), kv_heads × head_dim numbers, and read
// access to consecutive rows for the attention kernels.
//
// f32 is exact. f16 halves the bytes at the cost of rounding every number to an 11-bit
// significand. int8 quarters them: each head's numbers in a row are rounded to multiples of
// max|x| / 127, with that step stored as one f32 in front of the row's numbers, so a number is
// off by at most half a step. The scale is per head and per token because keys differ in
// magnitude between heads and between tokens: one outlier coarsens only its own head of its own
// token.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace inferlens {

enum class KvType { F32, F16, Int8 };

// "f32", "f16" or "int8" (Error otherwise), and back.
KvType parseKvType(const std::string& name);
const char* kvTypeName(KvType type);

// Bytes of one row of `heads` heads of `headDim` numbers stored as `type`.
int64_t kvRowBytes(KvType type, int64_t heads, int64_t headDim);

// Stores `row` (heads × headDim numbers) as `type` at `out` (kvRowBytes bytes).
void encodeKvRow(KvType type, std::span<const float> row, int64_t headDim, std::byte* out);

// Read-only view of consecutive rows of one layer's K or V.
struct KvRows {
    KvType type = KvType::F32;
    const std::byte* data = nullptr;  // row r starts at data + r × rowBytes
    int64_t heads = 0;
    int64_t headDim = 0;
    int64_t rowBytes = 0;

    // f32 rows `rowWidth` floats apart (rowWidth ≥ heads × headDim).
    static KvRows floats(const float* rows, int64_t heads, int64_t headDim, int64_t rowWidth);
    // The numbers themselves when stored as f32 (row r at r × rowBytes / 4), else nullptr.
    const float* floatData() const;
    // Head `head` of the `count` rows from `first` as f32, out[i × headDim + d].
    void decodeHead(int64_t first, int64_t count, int64_t head, float* out) const;
    // The `count` rows from `first` as f32, out[i × heads × headDim + …].
    void decodeRows(int64_t first, int64_t count, float* out) const;
};

}  // namespace inferlens
