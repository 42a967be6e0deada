#pragma once
// AMX INT8 tiles for the prefill of packed block-type matrices (packed_rows.h), reading the same
// packed layout as the AVX-512 tiles — no second copy of the weights. A packed block's chunks are
// already an AMX B matrix in VNNI order (K/4 = 8 rows of 8 lanes × 4 bytes, lane j = weight row j):
// for each 32-value unit (a Q8_0/Q4_0 block, a Q4_K/Q5_K sub-block) they are turned into bytes —
// signed q for Q8_0 (q + 128 flipped back) and Q4_0 (nibbles minus 8), the unsigned values
// themselves for the K types — and one TDPBSSD or TDPBSUD multiplies up to 16 tokens' activation
// bytes of the unit (A) by them into int32 dot products. Those are the AVX-512 tiles' exact
// integer dots; then, per (row, token) and unit, in order, the same float steps as those tiles
// (acc ← fma(d · xScale, float(dot), acc), and the K types' minimum term) — so a prefill on tiles
// equals token-by-token decoding (AVX-512 tile) bit for bit. They run whole row ranges
// (PackedRowsTile): the activations of a block of tokens are laid out once for all the groups
// rather than copied into A for every unit of every group, and the results land token by token
// (one core, 2048 × 2048, 64 tokens: Q8_0 490 → 470–580 Gop/s, Q4_0 490 → 580–645, Q4_K 412 →
// 510, Q5_K 403 → 477; the float step after each unit's tiles is what bounds them now). The
// pipeline: amx_pipeline.h.
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
PackedRowsTile amxLegacyRows(DType dtype);  // Q8_0, Q4_0 (amx_legacy_quants.cpp)
PackedRowsTile amxKRows(DType dtype);       // Q4_K, Q5_K (amx_k_quants.cpp)

}  // namespace inferlens
