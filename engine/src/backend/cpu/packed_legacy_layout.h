#pragma once
// Where the 32-value block types (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1) keep their fields, in a file's
// block and in the packed block of 8 rows (packed_rows.h): what the packing, the AVX-512 / AVX2
// tiles (packed_legacy_quants.cpp) and the AMX tiles (amx_legacy_quants.cpp) all read.

#include <cstdint>

#include "backend/cpu/packed_rows.h"
#include "core/quant_blocks.h"

namespace inferlens {

// A file block's fields (0: it has none), and what its packed values carry.
struct LegacyLayout {
    int64_t fileBytes;
    int64_t minAt;     // fp16 m (Q4_1, Q5_1)
    int64_t highAt;    // 32-bit qh, the fifth bits (Q5_0, Q5_1)
    int64_t valuesAt;  // the int8 values (Q8_0) or the nibbles
    bool bytes;        // Q8_0: a byte per value, stored plus 128 (unsigned, for the instructions)
    int bias;          // what a stored value is beyond the format's q (packed_rows.h)

    // The packed block (packed_rows.h): the scales d, the mins, the fifth-bit words, the chunks.
    constexpr int64_t packedMinAt() const { return 2 * kPackedRows; }
    constexpr int64_t packedHighAt() const {
        return packedMinAt() + (minAt != 0 ? 2 * kPackedRows : 0);
    }
    constexpr int64_t packedValuesAt() const { return packedHighAt() + (highAt != 0 ? 32 : 0); }
    constexpr int chunks() const { return bytes ? 8 : 4; }
    constexpr int64_t packedBytes() const { return packedValuesAt() + 32 * chunks(); }
};

constexpr LegacyLayout kQ8_0Layout{kQ8_0BlockBytes, 0, 0, 2, true, 128};
constexpr LegacyLayout kQ4_0Layout{kQ4_0BlockBytes, 0, 0, 2, false, 8};
constexpr LegacyLayout kQ4_1Layout{kQ4_1BlockBytes, 2, 0, 4, false, 0};
constexpr LegacyLayout kQ5_0Layout{kQ5_0BlockBytes, 0, 2, 6, false, 16};
constexpr LegacyLayout kQ5_1Layout{kQ5_1BlockBytes, 2, 4, 8, false, 0};

}  // namespace inferlens
