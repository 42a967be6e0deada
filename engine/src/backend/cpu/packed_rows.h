#pragma once
// Block-type matrices (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K) repacked, once at load, so
// that a product reads them as one stream and works on 8 rows per instruction (16 in an AVX-512
// prompt's pair of groups: packed_lanes.h): llama.cpp does the
// same on x86 ("repack"), and it is what makes a decode step reach the memory bandwidth. In the
// file's layout a product either follows one row at a time — with each 32-value block's scale,
// horizontal sums and offsets handled per row, some 18 instructions per block — or 8 rows at once,
// 8 streams through memory that this machine's prefetchers follow poorly (measured: Q4_0 decode
// 19 → 11 tokens/s). A packed matrix replaces the file's, in as many bytes (Q4_K, Q5_K: 3% more).
//
// Packed layout: rows in groups of 8 (the last group padded with zero rows); a group is its
// blocks in column order, and block b of a group holds (the K types: packed_k_quants.cpp)
//   16 bytes   the 8 rows' fp16 scales d (row j at bytes 2j, 2j + 1)
//   Q4_1, Q5_1: 16 bytes, the 8 rows' fp16 mins m, likewise
//   Q5_0, Q5_1: 32 bytes, lane j = row j's fifth bits rearranged: bit 8i + c is the fifth bit of
//         byte i of row j's lane in chunk c below (c = 0…7, counting the high halves as 4…7)
//   Q8_0: 8 × 32 bytes, chunk k = 0…7: bytes 4j…4j + 3 are row j's values 4k…4k + 3 plus 128
//         (unsigned, for the byte-multiply instructions);
//   Q4_0, Q4_1, Q5_0, Q5_1: 4 × 32 bytes, chunk k = 0…3: bytes 4j + i are row j's nibbles 4k + i
//         (low half) and 16 + 4k + i (high half); a tile ORs in the fifth bits (as 16), so that
//         it multiplies the values 0…31 directly.
// So a 32-bit lane j of every chunk is row j, and a product multiplies a chunk by the token's 4
// activation bytes broadcast to every lane: after a block's 8 chunks, lane j holds row j's whole
// integer dot product, with no horizontal sum. Per (row, token) and block, in block order:
//   acc ← fma(d · xScale, float(Σ u a − bias · Σ a), acc)
//   (u the values as multiplied, bias what they carry beyond the format's: 128 for Q8_0, 8 for
//   Q4_0, 16 for Q5_0, 0 for Q4_1 and Q5_1), then for Q4_1 and Q5_1 acc ← fma(m, xScale · Σ a, acc)
// — the same whatever the number of tokens, so a prefill and token-by-token decoding agree
// exactly. The results differ from the file-layout tiles' (kernels.h) by f32 rounding only.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend/cpu/cpu_features.h"
#include "backend/cpu/quantized_activations.h"
#include "backend/cpu/thread_pool.h"
#include "core/tensor.h"

namespace inferlens {

constexpr int kPackedRows = 8;

// Whether `dtype` matrices are packed when `kernels` run them: the block types above with AVX2 or
// AVX-512.
bool packs(DType dtype, CpuKernels kernels);

// Memory for packed or copied matrices: 2 MiB-aligned and advised to use huge pages, since reading
// a model's worth of weights through 4 KiB pages costs TLB misses on every product, and page
// faults at load.
struct PackedBuffer {
    struct Free {
        void operator()(std::byte* bytes) const;
    };
    std::unique_ptr<std::byte[], Free> bytes;
    int64_t size = 0;
};

// The packed bytes of a 2-D block-type matrix (see above) into `out` (packedGroupBytes × groups),
// written by the pool's threads when given one; packRows allocates them.
void packRowsInto(const TensorView& matrix, std::byte* out, ThreadPool* pool = nullptr);
PackedBuffer packRows(const TensorView& matrix, ThreadPool* pool = nullptr);

// Products of one packed group (8 rows) with any number of tokens' activations over `blocks`
// blocks of the format: out[t · 8 + r], each token's rows side by side.
using PackedTile = void (*)(const std::byte* group, const QuantizedActivations* const* xs,
                            int tokenCount, int64_t blocks, float* out);
PackedTile packedTile(DType dtype, CpuKernels kernels);
// The same for two adjacent groups (16 rows, the second `groupBytes` after the first) at once:
// out[t · 16 + r]. The AVX-512 tiles in 512-bit registers (packed_lanes.h): the
// numbers of two one-group tiles, bit for bit, in half the instructions and loads per row, which
// is what bounds a prefill's one-group tile. nullptr where the kernel set has none (AVX2).
using PackedPairTile = void (*)(const std::byte* group, int64_t groupBytes,
                                const QuantizedActivations* const* xs, int tokenCount,
                                int64_t blocks, float* out);
PackedPairTile packedPairTile(DType dtype, CpuKernels kernels);
// Products of the rows [0, rowCount) of the packed groups from `firstGroup` on (the last group may
// be padded) with any number of tokens' activations: y[t · yStride + r], rows past rowCount left
// alone. The AMX tiles (amx_tiles.h), the same numbers as the tiles above: a prefill's, for a row
// range at once, since they lay the tokens' activations out once for all its groups. nullptr
// where the kernel set or the type has none (the tiles above run a prefill then); the amx set's
// packedTile and packedPairTile are the AVX-512 ones (decoding, and the few tokens of a prefill).
using PackedRowsTile = void (*)(const std::byte* firstGroup, int64_t groupBytes, int64_t rowCount,
                                const QuantizedActivations* const* xs, int tokenCount,
                                int64_t blocks, float* y, int64_t yStride);
PackedRowsTile packedRowsTile(DType dtype, CpuKernels kernels);
// Bytes of one packed group of `matrix` (its blocks per row × the packed block size).
int64_t packedGroupBytes(const TensorView& matrix);

// The packed (or copied) matrices of a model, shared by the model's copies: one reservation for
// all of them (placedBytes summed), so that no matrix wastes the rest of a huge page.
class PackedStore {
  public:
    void reserve(int64_t bytes);
    // `bytes` from the reservation, or from a buffer of their own past it.
    std::byte* take(int64_t bytes, const std::string& what);

  private:
    std::vector<PackedBuffer> buffers_;
    std::byte* next_ = nullptr;
    int64_t left_ = 0;
};

// The bytes placeForProducts will take for `view` (0 if it leaves it in the file).
int64_t placedBytes(const TensorView& view);

// Whether an F16 or BF16 matrix is placed in row groups (view.packed; kernels.h, groupedIndex)
// when `kernels` run it: with the 16-lane tiles, whose decode step takes four rows at a time
// (one row's one chain of multiply-adds waits on its latency), if its rows are whole chunks. Four
// rows in the file's layout are four streams through memory, which an AMD Zen 5 core follows
// poorly: TinyLlama F16 decode on one core 13.9 tokens/s with one row, 11.5 with four; grouped,
// the four rows are one stream again (15.6–16.5). The avx512 set only: the amx set (the Intel
// kind) keeps the file's layout and its four-row decode until grouping is measured there.
bool groupsFloatRows(const TensorView& view, CpuKernels kernels);
// The grouped copy of such a matrix into `out` (its rows rounded up to a whole group, the padding
// rows zeros).
void groupFloatRowsInto(const TensorView& matrix, std::byte* out, ThreadPool* pool = nullptr);
int64_t groupedFloatBytes(const TensorView& matrix);
// Where row `row` of `matrix` starts in its grouped copy, in bytes from the copy's start: in its
// group's first chunk, the tiles reading value i at groupedIndex(i) from there (kernels.h).
int64_t groupedRowOffset(const TensorView& matrix, int64_t row);

// Puts a matrix where the products read it fastest, in memory of `store`: packed (view.packed)
// when packs(view.dtype, cpuKernels()), in row groups (view.packed) when
// groupsFloatRows(view, cpuKernels()); other float matrices copied as they are (view.data), since
// reading a memory-mapped file through 4 KiB pages cost F16 decoding a fifth of its speed here
// (TinyLlama, one core: 8.4 tokens/s mapped, 10.8 from huge pages) and a parallel copy of 2.2 GB
// takes about 0.4 s; other block types stay in the file. Then lets the file's pages go
// (io/mapped_file.h), so that memory holds the weights once.
void placeForProducts(TensorView& view, PackedStore& store, ThreadPool* pool);

}  // namespace inferlens
