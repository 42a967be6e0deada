#include "backend/cpu/reference_ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <vector>

#include "backend/cpu/cpu_features.h"
#include "backend/cpu/kernels.h"
#include "backend/cpu/packed_rows.h"
#include "backend/cpu/thread_pool.h"
#include "core/dtype_codec.h"
#include "core/quant_blocks.h"

namespace inferlens {

namespace {

// How many chunks a product's rows are handed out in as threads come free (ThreadPool::
// parallelFor). Chunks rather than equal shares, since with equal shares a core slowed by anything
// else on it (a neighbour on a shared machine) kept the others waiting at the end of every product.
int64_t chunksFor(const TensorView& weight, int64_t tokens, const ThreadPool* pool) {
    if (pool == nullptr)
        return 0;  // forRows runs the product inline
    const int64_t weights = weight.rows() * weight.columns();
    // A prefill's chunks by multiply-adds: tens of microseconds on a core, against the fraction of
    // a microsecond a hand-off takes. TinyLlama 128-token prompts on two AMD Zen 4 vCPUs: the
    // thread that finished first idled 4–16 % of the products' time in equal shares, 1–3 % (once
    // 7 %) in chunks; F16 prompts 4–5 % faster (alternating, medians of 6–8 rounds), Q5_K_M 0–1 %.
    constexpr int64_t kPrefillChunkWork = int64_t(1) << 22;
    if (tokens > 1)
        return pool->chunksOf(weights * tokens, kPrefillChunkWork);
    // A decode step's by the weights' bytes, since it streams them from memory. Same machine,
    // two threads, 64 tokens, per-round ratios to equal shares (medians of 8–20 rounds, the order
    // rotating): 1 MiB chunks F16 1.06–1.10, BF16 1.07, Q8_0 1.01–1.07, Q4_K_M and Q5_K_M 1.02,
    // Q4_0 1.00–1.02, Q4_1 1.02; 256 KiB chunks slowed Q4_0 (0.95–0.96), 4 MiB ones gained less.
    constexpr int64_t kDecodeChunkBytes = int64_t(1) << 20;
    return pool->chunksOf(weight.rows() * weight.rowBytes(), kDecodeChunkBytes);
}

// Splits [0, rows) across the pool's threads, in whole groups of `group` rows and in `chunks`
// (chunksFor), when the product (`work` multiply-adds) is large enough to gain from it.
void forRows(int64_t rows, int64_t group, int64_t work, int64_t chunks, ThreadPool* pool,
             const std::function<void(int64_t, int64_t)>& body) {
    // Below this many weights a product is faster on one thread than the hand-off costs.
    constexpr int64_t kParallelThreshold = int64_t(1) << 15;
    if (pool == nullptr || pool->size() == 1 || work < kParallelThreshold) {
        body(0, rows);
        return;
    }
    const int64_t parts = (rows + group - 1) / group;
    pool->parallelFor(
        parts,
        [&](int64_t begin, int64_t end) { body(begin * group, std::min(rows, end * group)); },
        chunks);
}

// Runs body(first, last) over a prefill's tokens [0, tokens) in equal shares (preparing their
// activations: even work per token), on one thread for a decode step's single token.
void forTokens(int64_t tokens, int64_t work, ThreadPool* pool,
               const std::function<void(int64_t, int64_t)>& body) {
    forRows(tokens, 1, tokens > 1 ? work : 0, 0, pool, body);
}

template <typename X>
using Tile = void (*)(const std::byte* const* rows, int rowCount, const X* const* xs,
                      int tokenCount, int64_t length, float* out);

// A prefill's tokens in blocks of this many (matMat), every thread on the same block: each
// block's activations stay in the cores' L2 while every weight row streams past them once. Each
// block reads the whole matrix from memory again: 128 rather than 64 tokens (one AMD Zen 5 core,
// TinyLlama 128-token prompt, alternating: F16 81 → 89 tokens/s, Q4_0 214 → 229, Q8_0 185 → 201,
// Q5_K_M 186 → 197; 512 tokens 2–6 % faster; 256 no faster than 128 for Q4_0, slower for Q5_K_M).
constexpr int64_t kPrefillTokens = 128;

// A cache line of a token's outputs: how many rows a prefill's tile calls take (productRows).
constexpr int64_t kLineRows = 64 / sizeof(float);

// How many rows productRows gives each tile call: a decode step's `decodeRows`, a prefill's
// kLineRows, whose outputs it copies out a whole line per token. Four rows at a time, each line of
// outputs was written four times, pushed out of the caches in between by the activations
// streaming through them (TinyLlama F16, 512-token prompt, two threads on AMD Zen 3: 3.3–3.7 % of
// the profile in placing the outputs; under 0.5 % since).
int64_t rowsPerCall(int64_t tokens, int64_t decodeRows) {
    return tokens == 1 ? decodeRows : kLineRows;
}

// How many rows threads take at a time (forRows' group). Whole tiles: a part ending inside one
// left its last rows to one-row tiles, a quarter of the accumulators to hide the FMAs' latency
// with (TinyLlama F16, 512-token prompt, two threads on AMD Zen 3: 12 % of the profile in them).
// A prefill's whole calls too, so that no two threads write to one line of outputs, unless that
// leaves too few parts to go round.
int64_t threadRowsOf(int64_t rows, int64_t tokens, int64_t decodeRows, const ThreadPool* pool) {
    if (tokens == 1)
        return decodeRows;
    const int threads = pool != nullptr ? pool->size() : 1;
    return rows >= 4 * kLineRows * threads ? kLineRows : kTileRows;
}

// Weight rows [begin, end) against every token of `xs` (at most kPrefillTokens; y[t · outputs +
// r]), rowsPerCall rows per tile call: each call takes the tokens at once and runs them in the
// tile's own register-tile shape.
template <typename X>
void productRows(const TensorView& weight, Tile<X> tile, const std::vector<const X*>& xs,
                 int64_t length, std::span<float> y, int64_t begin, int64_t end,
                 int64_t decodeRows) {
    const int64_t outputs = weight.rows();
    const auto tokens = int64_t(xs.size());
    const int64_t rowBytes = weight.rowBytes();
    const int64_t callRows = rowsPerCall(tokens, decodeRows);
    // Grouped float rows (packed_rows.h, groupsFloatRows): `begin` and `callRows` are then
    // multiples of the group.
    const auto rowAt = [&](int64_t row) {
        return weight.packed != nullptr ? weight.packed + groupedRowOffset(weight, row)
                                        : weight.data + row * rowBytes;
    };
    for (int64_t r = begin; r < end; r += callRows) {
        const int rowCount = int(std::min(callRows, end - r));
        const std::byte* rowPointers[kLineRows];
        for (int k = 0; k < rowCount; ++k)
            rowPointers[k] = rowAt(r + k);
        if (tokens == 1) {
            tile(rowPointers, rowCount, xs.data(), 1, length, y.data() + r);
            continue;
        }
        float out[kLineRows * kPrefillTokens];  // no allocation per product
        tile(rowPointers, rowCount, xs.data(), int(tokens), length, out);
        // Whole lines in a fixed-size copy (a library call per token otherwise).
        if (rowCount == kLineRows)
            for (int64_t k = 0; k < tokens; ++k)
                std::memcpy(y.data() + k * outputs + r, out + k * kLineRows,
                            sizeof(float) * kLineRows);
        else
            for (int64_t k = 0; k < tokens; ++k)
                std::copy_n(out + k * rowCount, rowCount, y.data() + k * outputs + r);
    }
}

// The same for a packed matrix (packed_rows.h): rows [begin, end) start on a group. Two groups at
// a time through `pairTile` where there is one, the last group alone if one is left.
void packedProductRows(const TensorView& weight, PackedTile tile, PackedPairTile pairTile,
                       const std::vector<const QuantizedActivations*>& xs, std::span<float> y,
                       int64_t begin, int64_t end) {
    const int64_t formatBlocks = weight.columns() / dtypeInfo(weight.dtype).blockElements;
    const int64_t outputs = weight.rows();
    const auto tokens = int64_t(xs.size());
    const int64_t groupBytes = packedGroupBytes(weight);
    float out[2 * kPackedRows * kPrefillTokens];  // no allocation per product
    for (int64_t r = begin; r < end;) {
        const std::byte* group = weight.packed + r / kPackedRows * groupBytes;
        const bool pair = pairTile != nullptr && r + kPackedRows < end;
        if (pair)
            pairTile(group, groupBytes, xs.data(), int(tokens), formatBlocks, out);
        else
            tile(group, xs.data(), int(tokens), formatBlocks, out);
        // Each token's rows side by side, as the tiles wrote them (padding rows left out).
        const int tileRows = (pair ? 2 : 1) * kPackedRows;
        const int64_t rowCount = std::min<int64_t>(tileRows, outputs - r);
        for (int64_t k = 0; k < tokens; ++k)
            std::copy_n(out + k * tileRows, rowCount, y.data() + k * outputs + r);
        r += tileRows;
    }
}

// The activations of F16 and BF16 weights rounded to the weights' type once for every row (kept
// per calling thread: no allocation per product), and the products of float-type weights.
void floatProduct(const TensorView& weight, std::span<const float> x, int64_t tokens,
                  std::span<float> y, ThreadPool* pool, CpuKernels kernels, int64_t work) {
    const int64_t columns = weight.columns();
    // Grouped rows (packed_rows.h, groupsFloatRows) are one stream four rows at a time: threads
    // take whole groups, and a decode step all four rows of one.
    const bool grouped = weight.packed != nullptr;
    const int64_t decodeRows = grouped ? kTileRows : floatDecodeRows(kernels);
    // `interleaved`: the tokens laid out for interleavedHalfActivationsTile.
    const auto sixteenBitProduct = [&](SixteenBitTile tile,
                                       void (*round)(const float*, int64_t, uint16_t*),
                                       int64_t tileRows, bool interleaved = false) {
        thread_local std::vector<uint16_t> perThread;
        std::vector<uint16_t>& rounded = perThread;
        rounded.resize(size_t(tokens * columns));
        std::vector<const uint16_t*> xs(static_cast<size_t>(tokens));
        for (int64_t t = 0; t < tokens; ++t)
            xs[size_t(t)] =
                rounded.data() + (interleaved ? interleavedOffset(t, columns) : t * columns);
        forTokens(tokens, work, pool, [&](int64_t begin, int64_t end) {
            if (!interleaved) {
                round(x.data() + begin * columns, (end - begin) * columns,
                      rounded.data() + begin * columns);
                return;
            }
            thread_local std::vector<uint16_t> token;  // this thread's, rounded before placing
            token.resize(size_t(columns));
            for (int64_t t = begin; t < end; ++t) {
                round(x.data() + t * columns, columns, token.data());
                interleaveHalfToken(token.data(), t, tokens, columns, rounded.data());
            }
        });
        forRows(weight.rows(), threadRowsOf(weight.rows(), tokens, tileRows, pool), work,
                chunksFor(weight, tokens, pool), pool, [&](int64_t begin, int64_t end) {
                    productRows(weight, tile, xs, columns, y, begin, end, tileRows);
                });
    };
    // The pair tile (the avx512 set's) decodes four rows at a time: one row is one chain of
    // dependent vdpbf16ps, which kept TinyLlama BF16's decode on one AMD Zen 5 core at 6.4 tokens/s
    // (14 GB/s of weights); four rows: 12.4 (two threads 11 → 18).
    if (weight.dtype == DType::BF16)
        if (const SixteenBitTile pairs = bf16PairTile(kernels, grouped); pairs != nullptr)
            return sixteenBitProduct(pairs, roundToBf16, kTileRows);
    // F16 weights meet F16 activations where every token's fit, prefilling as decoding: half the
    // bytes of f32 activations for the tiles to read (TinyLlama F16, 128-token prompt, one AMD Zen
    // 5 core: 75-78 → 82 tokens/s). A prompt with a token past F16's range takes the f32 path
    // below, each token rounded as its decode step rounds it: the same numbers either way. So
    // does every prefill on a CPU that splits its 512-bit vectors (cpuSplitsWideVectors, AMD Zen
    // 4): there the tile's conversions of F16 activations (six per 24 multiply-adds) cost more
    // than the bytes they save (TinyLlama F16 on one Zen 4 core, alternating: 128-token prompt
    // 44-46 → 48.5-49 tokens/s, 512 tokens 45 → 46.7, two threads 86-90 → 93-94). A decode step
    // keeps F16 activations everywhere: its one token's rows are memory's, not the pipes'.
    const bool halfPrefill = tokens == 1 || !cpuSplitsWideVectors();
    if (weight.dtype == DType::F16 && halfPrefill && fitsHalf(x.data(), tokens * columns)) {
        if (const SixteenBitTile interleavedTile = interleavedHalfActivationsTile(kernels);
            interleavedTile != nullptr && tokens > 1 && !grouped &&
            columns % kInterleavedChunk == 0)
            return sixteenBitProduct(interleavedTile, roundToHalf, decodeRows, true);
        return sixteenBitProduct(
            grouped ? groupedHalfActivationsTile(kernels) : halfActivationsTile(kernels),
            roundToHalf, decodeRows);
    }

    thread_local std::vector<float> perThread;
    std::vector<float>& rounded = perThread;
    const float* inputs = x.data();
    if (weight.dtype == DType::F16 || weight.dtype == DType::BF16) {
        rounded.resize(size_t(tokens * columns));
        // A token with a value past F16's range keeps its f32 values for F16 weights (fitsHalf).
        forTokens(tokens, work, pool, [&](int64_t begin, int64_t end) {
            for (int64_t t = begin; t < end; ++t) {
                const float* from = x.data() + t * columns;
                float* to = rounded.data() + t * columns;
                if (weight.dtype == DType::BF16)
                    roundToBf16Precision(from, columns, to);
                else if (fitsHalf(from, columns))
                    roundToHalfPrecision(from, columns, to);
                else
                    std::copy(from, from + columns, to);
            }
        });
        inputs = rounded.data();
    }
    std::vector<const float*> xs(static_cast<size_t>(tokens));
    for (int64_t t = 0; t < tokens; ++t)
        xs[size_t(t)] = inputs + t * columns;
    const Tile<float> tile =
        grouped ? groupedFloatTile(weight.dtype, kernels) : floatTile(weight.dtype, kernels);
    forRows(weight.rows(), threadRowsOf(weight.rows(), tokens, decodeRows, pool), work,
            chunksFor(weight, tokens, pool), pool, [&](int64_t begin, int64_t end) {
                productRows(weight, tile, xs, columns, y, begin, end, decodeRows);
            });
}

// Y = X · Wᵀ for `tokens` rows of X, threads splitting the weight rows.
void product(const TensorView& weight, std::span<const float> x, int64_t tokens, std::span<float> y,
             ThreadPool* pool) {
    const int64_t columns = weight.columns();
    const CpuKernels kernels = cpuKernels();
    const int64_t work = weight.rows() * columns * tokens;
    if (isBlockQuantized(weight.dtype)) {
        // Block-quantized weights meet 8-bit activations, quantized once here for every row
        // (kept per calling thread: no allocation per product). Named by reference, since inside
        // the lambda, run by the pool's threads, the thread_local would be each worker's own.
        thread_local std::vector<QuantizedActivations> perThread;
        std::vector<QuantizedActivations>& quantized = perThread;
        quantized.resize(size_t(tokens));
        std::vector<const QuantizedActivations*> xs(static_cast<size_t>(tokens));
        // A prefill's tokens are quantized by the pool's threads too (one token's is too small).
        forTokens(tokens, work, pool, [&](int64_t begin, int64_t end) {
            for (int64_t t = begin; t < end; ++t)
                quantized[size_t(t)].quantize(x.data() + t * columns, columns);
        });
        for (int64_t t = 0; t < tokens; ++t)
            xs[size_t(t)] = &quantized[size_t(t)];
        const int64_t blocks = columns / kQuantBlockElements;
        if (weight.packed != nullptr) {
            // Threads take whole pairs of groups where a pair tile runs them, unless that leaves
            // too few parts to go round (a small matrix on many threads): then single groups,
            // paired within each thread's range.
            const int threads = pool != nullptr ? pool->size() : 1;
            const auto rowsPerPart = [&](bool pairs) {
                return (pairs && weight.rows() >= int64_t(4) * kPackedRows * threads ? 2 : 1) *
                       kPackedRows;
            };
            const int64_t groupBytes = packedGroupBytes(weight);
            if (const PackedRowsTile rowsTile = packedRowsTile(weight.dtype, kernels);
                rowsTile != nullptr && tokens > 1) {
                // Equal shares: each call lays its tokens out for the tiles first
                // (amx_pipeline.h), a cost per call that chunks would repeat.
                forRows(weight.rows(), rowsPerPart(true), work, 0, pool,
                        [&](int64_t begin, int64_t end) {
                            rowsTile(weight.packed + begin / kPackedRows * groupBytes, groupBytes,
                                     end - begin, xs.data(), int(tokens),
                                     columns / dtypeInfo(weight.dtype).blockElements,
                                     y.data() + begin, weight.rows());
                        });
                return;
            }
            const PackedTile tile = packedTile(weight.dtype, kernels);
            // Decoding (one token) takes two groups at a time, two streams of weights, on the
            // Intel kind with AMX (TinyLlama, one thread, alternating: Q4_0 18 → 21–22 tokens/s,
            // Q8_0 11 → 13, Q4_1 15.5 → 16–20, Q4_K_M 15 → 16–17, Q5_K_M 12.5 → 14.5–15), but
            // stays on one group with the avx512 set: on the AMD Zen 4 kind the pair measured
            // no faster, slower for the Q5 types and Q6_K (bench_packed_products), one stream
            // being what its prefetchers follow best.
            const bool pairs = tokens > 1 || kernels == CpuKernels::Amx;
            const PackedPairTile pairTile = pairs ? packedPairTile(weight.dtype, kernels) : nullptr;
            forRows(weight.rows(), rowsPerPart(pairTile != nullptr), work,
                    chunksFor(weight, tokens, pool), pool, [&](int64_t begin, int64_t end) {
                        packedProductRows(weight, tile, pairTile, xs, y, begin, end);
                    });
            return;
        }
        const Tile<QuantizedActivations> tile = blockTile(weight.dtype, kernels);
        forRows(weight.rows(), threadRowsOf(weight.rows(), tokens, 1, pool), work,
                chunksFor(weight, tokens, pool), pool, [&](int64_t begin, int64_t end) {
                    productRows(weight, tile, xs, blocks, y, begin, end, 1);
                });
    } else {
        floatProduct(weight, x, tokens, y, pool, kernels, work);
    }
}

}  // namespace

void matVec(const TensorView& weight, std::span<const float> x, std::span<float> y,
            ThreadPool* pool) {
    product(weight, x, 1, y, pool);
}

void matMat(const TensorView& weight, std::span<const float> x, int64_t tokens, std::span<float> y,
            ThreadPool* pool) {
    const int64_t columns = weight.columns(), outputs = weight.rows();
    for (int64_t first = 0; first < tokens; first += kPrefillTokens) {
        const int64_t count = std::min(kPrefillTokens, tokens - first);
        product(weight, x.subspan(size_t(first * columns), size_t(count * columns)), count,
                y.subspan(size_t(first * outputs), size_t(count * outputs)), pool);
    }
}

void addBias(const TensorView& bias, std::span<float> y) {
    std::vector<float> values(y.size());
    decodeRow(bias.dtype, bias.data, values);
    for (size_t i = 0; i < y.size(); ++i)
        y[i] += values[i];
}

void rmsNorm(std::span<const float> x, const TensorView& weight, double eps, std::span<float> out,
             double weightOffset) {
    double sumOfSquares = 0.0;
    for (float value : x)
        sumOfSquares += double(value) * value;
    const float scale = float(1.0 / std::sqrt(sumOfSquares / double(x.size()) + eps));
    decodeRow(weight.dtype, weight.data, out);
    for (size_t i = 0; i < x.size(); ++i)
        out[i] = (float(weightOffset) + out[i]) * (x[i] * scale);
}

void applyRope(std::span<float> head, int64_t position, std::span<const double> frequencies,
               RopePairing pairing) {
    // Every head of every layer of a token turns by the same angles: computed once per position
    // and set of frequencies (a cos and a sin per pair — otherwise thousands per token) and kept
    // for the calls that follow on this thread. Keyed by the frequencies' values, not their
    // address, which a later model may reuse.
    struct Angles {
        int64_t position = -1;
        std::vector<double> frequencies;
        std::vector<float> cosine, sine;
    };
    thread_local Angles angles;
    const auto pairs = int64_t(frequencies.size());
    if (angles.position != position ||
        !std::equal(frequencies.begin(), frequencies.end(), angles.frequencies.begin(),
                    angles.frequencies.end())) {
        angles.cosine.resize(size_t(pairs));
        angles.sine.resize(size_t(pairs));
        for (int64_t i = 0; i < pairs; ++i) {
            const double angle = double(position) * frequencies[size_t(i)];
            angles.cosine[size_t(i)] = float(std::cos(angle));
            angles.sine[size_t(i)] = float(std::sin(angle));
        }
        angles.position = position;
        angles.frequencies.assign(frequencies.begin(), frequencies.end());
    }
    for (int64_t i = 0; i < pairs; ++i) {
        const float cosine = angles.cosine[size_t(i)], sine = angles.sine[size_t(i)];
        // Adjacent: (x[2i], x[2i+1]); rotate-half: (x[i], x[i + ropeDims/2]).
        float& a = pairing == RopePairing::Adjacent ? head[2 * i] : head[i];
        float& b = pairing == RopePairing::Adjacent ? head[2 * i + 1] : head[i + pairs];
        const float first = a, second = b;
        a = first * cosine - second * sine;
        b = first * sine + second * cosine;
    }
}

void applyRope(std::span<float> head, int64_t position, int64_t ropeDims, double base,
               RopePairing pairing) {
    std::vector<double> frequencies(size_t(ropeDims / 2));
    for (size_t i = 0; i < frequencies.size(); ++i)
        frequencies[i] = std::pow(base, -2.0 * double(i) / double(ropeDims));
    applyRope(head, position, frequencies, pairing);
}

void softmaxInPlace(std::span<float> values) {
    const float largest = *std::max_element(values.begin(), values.end());
    double sum = 0.0;
    for (float& value : values) {
        value = std::exp(value - largest);
        sum += value;
    }
    for (float& value : values)
        value = float(value / sum);
}

void swiGlu(std::span<float> gate, std::span<const float> up) {
    siluGate(cpuKernels())(gate.data(), up.data(), int64_t(gate.size()));
}

void geluTanhGlu(std::span<float> gate, std::span<const float> up) {
    geluTanhGate(cpuKernels())(gate.data(), up.data(), int64_t(gate.size()));
}

void gatedActivation(FfnActivation activation, std::span<float> gate, std::span<const float> up) {
    if (activation == FfnActivation::GeluTanh)
        geluTanhGlu(gate, up);
    else
        swiGlu(gate, up);
}

void softcap(std::span<float> values, double cap) {
    for (float& value : values)
        value = float(cap * std::tanh(double(value) / cap));
}

}  // namespace inferlens
