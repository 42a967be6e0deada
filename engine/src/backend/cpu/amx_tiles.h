#pragma once
// AMX INT8 tiles for the prefill of packed block-type matrices (packed_rows.h), reading the same
// packed layout as the AVX-512 tiles — no second copy of the weights. A packed block's chunks are
// already an AMX B matrix in VNNI order (K/4 = 8 rows of 8 lanes × 4 bytes, lane j = weight row j);
// they are turned into signed bytes q (Q8_0's q + 128 flipped back, Q4_0's nibbles spread to bytes
// minus 8) in a 256-byte buffer per block, and one TDPBSSD multiplies up to 16 tokens' activation
// bytes of the block (A) by them into 16 × 8 int32 dot products Σ a q. That is the AVX-512 tile's
// exact integer Σ a (q + bias) − bias Σ a; then, per (row, token) and block, in block order, the
// same
//   acc ← fma(d · xScale, float(dot), acc)
// — so a prefill on tiles equals token-by-token decoding (AVX-512 tile) bit for bit.
//
// Only valid once cpuSupports(CpuKernels::Amx) has said yes (it asks the kernel for the tiles).

#include "backend/cpu/packed_rows.h"

namespace inferlens {

// LDTILECFG's 64 bytes (palette 1): each tile's rows and bytes per row.
struct alignas(64) TileConfig {
    uint8_t palette = 1;
    uint8_t startRow = 0;
    uint8_t reserved[14] = {};
    uint16_t bytesPerRow[16] = {};
    uint8_t rows[16] = {};
};

// A type's AMX tiles: one group, and two adjacent groups (16 rows) in one B tile of 16 lanes —
// twice the products per instruction, and each unit's activations copied once for both groups.
struct AmxTiles {
    PackedTile oneGroup;
    PackedPairTile twoGroups;
};
// nullptr for the types without AMX tiles (they run their AVX-512 tiles).
const AmxTiles* amxLegacyTiles(DType dtype);  // Q8_0, Q4_0 (amx_legacy_quants.cpp)
const AmxTiles* amxKTiles(DType dtype);       // Q4_K, Q5_K (amx_k_quants.cpp)

}  // namespace inferlens
