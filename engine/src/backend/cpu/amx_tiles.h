#pragma once
// AMX INT8 tiles for the prefill of packed block-type matrices (packed_rows.h), reading the same
// packed layout as the AVX-512 tiles — no second copy of the weights. A packed block's chunks are
// already an AMX B matrix in VNNI order (K/4 rows of 8 lanes × 4 bytes, lane j = weight row j):
// for each unit of values with one scale (a block of the 32-value types, a Q4_K/Q5_K sub-block of
// 32, a Q6_K group of 16) they are turned into bytes — signed q for Q8_0 (q + 128 flipped back),
// Q4_0 (nibbles minus 8), Q5_0 (5-bit values minus 16) and Q6_K (q − 32), the unsigned values
// themselves for Q4_1/Q5_1/Q4_K/Q5_K — and one TDPBSSD or TDPBSUD multiplies up to 16 tokens'
// activation bytes of the unit (A) by them into int32 dot products. Those are the AVX-512 tiles'
// exact integer dots; then, per (row, token) and unit, in that tile's order, the same float steps
// (acc ← fma(d · xScale, float(dot), acc), and the minimum term of Q4_1/Q5_1/Q4_K/Q5_K) — so a
// prefill on tiles equals token-by-token decoding (AVX-512 tile) bit for bit. They run whole row
// ranges (PackedRowsTile): the activations of a block of tokens are laid out once for all the
// groups rather than copied into A for every unit of every group, and the results land token by
// token (one core, 2048 × 2048, 64 tokens: Q8_0 490 → 470–580 Gop/s, Q4_0 490 → 570–645, Q4_K
// 412 → 500, Q5_K 403 → 477; Q6_K 147 on AVX-512 → 298; Q4_1 480, Q5_0 594, Q5_1 495). What
// bounds them now is the float step after each unit's tiles: on this machine the tiles' products
// and the vector instructions do not overlap (a product alone 5.4 ns, the float step of a unit of
// 32 tokens × 16 rows 22 ns, both 33 ns). The pipeline: amx_pipeline.h.
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

// A type's AMX rows product: two adjacent groups (16 rows) at a time in one B tile of 16 lanes —
// twice the products per instruction of one group —, a last odd group alone. nullptr for the
// types without AMX tiles (they run their AVX-512 tiles).
PackedRowsTile amxLegacyRows(DType dtype);  // Q8_0, Q4_0, Q4_1, Q5_0, Q5_1 (amx_legacy_quants.cpp)
PackedRowsTile amxKRows(DType dtype);       // Q4_K, Q5_K, Q6_K (amx_k_quants.cpp)

}  // namespace inferlens
