#pragma once
// The dot products of a weight row (in its file's type) with an activation vector, per kernel set
// (cpu_features.h): the one place where a weight type meets arithmetic. Each family has its own
// file — kernels_float.cpp (F32, F16, BF16), kernels_bf16_pairs.cpp (BF16 against BF16
// activations), kernels_legacy_quants.cpp (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1), kernels_k_quants.cpp
// (Q4_K, Q5_K, Q6_K) — with a portable version and SIMD ones compiled for their instruction sets by
// function attributes, so that one binary runs on any x86-64 and picks its kernels at run time.

#include <cstddef>
#include <cstdint>

#include "backend/cpu/cpu_features.h"
#include "backend/cpu/quantized_activations.h"
#include "core/dtype.h"

namespace inferlens {

// A tile of products for float-type rows (F32, F16, BF16): out[t · rowCount + r] = Σ_i
// rows[r][i] · xs[t][i] over `count` elements (each token's rows side by side, as the outputs of a
// product lie), for any number of rows and of activation vectors (a decode step's single token,
// or a block of a prefill's tokens), run in the kernel set's own register tiles of up to
// kTileRows rows. A register tile loads each weight once for all its tokens and
// each activation once for all its rows, which is what makes a prefill compute-bound; and every
// (row, token) pair is summed the same way whatever the tile's shape, so a token's numbers do not
// depend on whether it ran alone or in a batch. Callers that keep a fixed buffer pass at most
// kTileTokens tokens.
constexpr int kTileRows = 4;
constexpr int kTileTokens = 4;
using FloatTile = void (*)(const std::byte* const* rows, int rowCount, const float* const* xs,
                           int tokenCount, int64_t count, float* out);
// How many rows a decode step (one token) should give the float and 16-bit tiles at a time (any
// tile shape gives the same sums): one sum per row is one chain of dependent multiply-adds, and
// 8-lane AVX2 needs several chains in flight to keep up with memory (TinyLlama F16 decode on one
// Zen 3 core: 11 GB/s of weights with one row, see bench/RESULTS.md). So does the Intel kind
// with AMX (the amx set), whose one-row 16-lane chains, converting the F16 activations again for
// every row, kept TinyLlama's decode on one core at 4.1 tokens/s for F16 and 5.2 for BF16 (then
// on vdpbf16ps pairs); four rows: 6.0–6.4 and 6.8–6.9. The avx512 set keeps one row for F32
// and for F16 outside row groups: in the file's layout four rows are four streams, slower on the
// AMD Zen 5 kind (TinyLlama F16 on one core, 16-bit activations: 13.9 tokens/s with one row,
// 11.5 with four); grouped rows (below) decode four at a time. Its BF16 pair tile always decodes
// four rows (floatProduct says why).
int64_t floatDecodeRows(CpuKernels kernels);
// F16 and BF16 weights meet activations rounded to their own type (F16: where they fit in it,
// fitsHalf), on every kernel set: what the model computes when run in that type (PyTorch's
// f16/bf16 activations; llama.cpp does the same), and what lets the activations take 16 bits
// instead of 32. F16 weights' tokens are kept as F16 (roundToHalf) for halfActivationsTile, a
// decode step's and a prefill's alike, where they all fit: with f32 activations a long row (FFN
// down, 5,632 values: 22 KiB of them) and the weights streaming past overflow a 32 KiB L1 cache,
// and decoding such rows fell from 29 to 16 GB/s (Zen 4, one thread). Otherwise, and for BF16
// weights without a pair tile, they are rounded in f32 (roundToHalfPrecision,
// roundToBf16Precision) for floatTile. Exact conversions on loading: the same products and sums as
// floatTile on the rounded f32 values, bit for bit.
using SixteenBitTile = void (*)(const std::byte* const* rows, int rowCount,
                                const uint16_t* const* xs, int tokenCount, int64_t count,
                                float* out);
SixteenBitTile halfActivationsTile(CpuKernels kernels);  // F16 rows, F16 activations
// The same tile for a prefill's F16 activations laid out by interleaveHalfToken: tokens in groups
// of kInterleavedTokens (the tile's own; the last group the rest), each group's rows interleaved
// in chunks of kInterleavedChunk values (its vectors), so that the tile reads a group as one
// stream through memory and a block's groups one after another, where rows apart start three new
// streams per group — a fixed cost per tile call that weighs on short rows (the 4 × 3 F16 tile
// stand-alone on one AMD Zen 3 core, rows of 2,048 values: median 67 → 76 Gflop/s; see
// bench/RESULTS.md). The same sums as halfActivationsTile, bit for bit. nullptr but for the avx2
// set; rows whose length is a whole number of chunks.
constexpr int64_t kInterleavedTokens = 3;
constexpr int64_t kInterleavedChunk = 8;
SixteenBitTile interleavedHalfActivationsTile(CpuKernels kernels);
// Where token t starts in that layout (values from its start; the tile's xs[t]), and token t's
// `columns` values placed there, in a layout of `tokens` tokens.
int64_t interleavedOffset(int64_t t, int64_t columns);
void interleaveHalfToken(const uint16_t* values, int64_t t, int64_t tokens, int64_t columns,
                         uint16_t* layout);
// Whether every value of x rounds to a finite F16 (|x| < 65,520; NaN counts as fitting). A token
// whose activations do not keeps them in f32 for F16 weights, decoding and prefilling alike: some
// models (Gemma's) carry activations past F16's range, which rounding would turn into infinities.
bool fitsHalf(const float* x, int64_t count);
void roundToHalf(const float* x, int64_t count, uint16_t* out);
void roundToHalfPrecision(const float* x, int64_t count, float* out);
void roundToBf16Precision(const float* x, int64_t count, float* out);
// BF16 rows against BF16 activations (roundToBf16), two products per f32 lane and instruction
// (kernels_bf16_pairs.cpp): the tile BF16 weights take where it exists, with the float tile's
// shapes and guarantees; nullptr but for the avx512 set with AVX512_BF16 (cpuHasAvx512Bf16),
// where they take floatTile (the amx set too: faster on the Intel kind). The two sum
// differently, the same inputs.
// `grouped`: the tile for rows in row groups (groupsFloatRows, groupedIndex below), whose sums are
// the same.
SixteenBitTile bf16PairTile(CpuKernels kernels, bool grouped = false);
void roundToBf16(const float* x, int64_t count, uint16_t* out);
// The same for block-type rows against 8-bit activations, over `subBlocks` 32-value sub-blocks
// (the activations' blocks; a whole number of the format's blocks).
using BlockTile = void (*)(const std::byte* const* rows, int rowCount,
                           const QuantizedActivations* const* xs, int tokenCount, int64_t subBlocks,
                           float* out);

FloatTile floatTile(DType dtype, CpuKernels kernels);  // F32, F16 or BF16

// F16 and BF16 matrices in row groups (packed_rows.h, groupsFloatRows): kTileRows rows side by
// side in chunks of kGroupedChunk values, so that a tile's rows are one stream through memory.
// The tiles take a group's row r at group + r · kGroupedChunk values and read value i of it at
// groupedIndex(i); the same sums as floatTile and halfActivationsTile, bit for bit. nullptr but
// for the avx512 and amx sets (the 16-lane tiles).
constexpr int64_t kGroupedChunk = 32;
constexpr int64_t groupedIndex(int64_t i) {
    return (i & ~(kGroupedChunk - 1)) * kTileRows + (i & (kGroupedChunk - 1));
}
FloatTile groupedFloatTile(DType dtype, CpuKernels kernels);  // F16 or BF16, f32 activations
SixteenBitTile groupedHalfActivationsTile(CpuKernels kernels);
BlockTile legacyQuantTile(DType dtype, CpuKernels kernels);  // Q8_0, Q4_0, Q4_1, Q5_0, Q5_1
BlockTile kQuantTile(DType dtype, CpuKernels kernels);       // Q4_K, Q5_K, Q6_K

// out[v · outStride + d] = Σ_r weights[v · weightStride + r] · row_r[d] for v < count, d < n, rows
// `stride` floats apart from `first` (attention's weighted sums of the cached values, for the
// heads that share them; kernels_weighted_sum.cpp). A vector's sums are the same floats whatever
// `count`: taken together, vectors share the rows' loads and keep more sums in flight.
using WeightedSums = void (*)(const float* weights, int64_t weightStride, int count,
                              int64_t rowCount, const float* first, int64_t stride, int64_t n,
                              float* out, int64_t outStride);
WeightedSums weightedSums(CpuKernels kernels);

// The FFN's gated activations, gate[i] ← act(gate[i]) · up[i] (kernels_activation.cpp): SiLU
// (SwiGLU) and GELU's tanh approximation (Gemma's gelu_pytorch_tanh). The portable set uses the C
// library's exp and tanh; AVX-512 its own exp (within about 2 ulp), so the two sets may differ in
// the last bits. Element by element: a value's result does not depend on its neighbours.
using GatedActivation = void (*)(float* gate, const float* up, int64_t count);
GatedActivation siluGate(CpuKernels kernels);
GatedActivation geluTanhGate(CpuKernels kernels);

// One key block's step of attention's online softmax for one query vector (fused_attention.cpp;
// kernels_softmax.cpp). `scores` holds the block's `count` scores, −∞ where a window hides a key;
// `maximum` and `sum` are the vector's running maximum and sum of exponentials. Raises `maximum` to
// the block's largest score when that is larger (scaling `sum` down with it), replaces each score
// by e^(score − maximum) and adds them to `sum`. A vector's results depend only on its own scores,
// so a decode step and a prefill get the same floats; the kernel sets may differ in the last bits
// (AVX-512 evaluates its own exp).
struct SoftmaxStep {
    bool adds = false;  // false: every score was −∞, nothing changed
    float rescale = 1;  // the factor for the weighted sums so far (1 when the maximum held)
};
using OnlineSoftmaxStep = SoftmaxStep (*)(float* scores, int64_t count, float& maximum, float& sum);
OnlineSoftmaxStep onlineSoftmaxStep(CpuKernels kernels);

// Any block type's tile.
inline BlockTile blockTile(DType dtype, CpuKernels kernels) {
    const BlockTile legacy = legacyQuantTile(dtype, kernels);
    return legacy != nullptr ? legacy : kQuantTile(dtype, kernels);
}

}  // namespace inferlens
