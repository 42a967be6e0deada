#include "backend/cpu/reference_ops.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "backend/cpu/kernels.h"
#include "backend/cpu/thread_pool.h"
#include "core/dtype_codec.h"

namespace inferlens {

namespace {

// Splits [0, rows) across the pool's threads when the product is large enough to gain from it.
void forRows(int64_t rows, int64_t work, ThreadPool* pool,
             const std::function<void(int64_t, int64_t)>& body) {
    // Below this many weights a product is faster on one thread than the hand-off costs.
    constexpr int64_t kParallelThreshold = int64_t(1) << 15;
    if (pool != nullptr && pool->size() > 1 && work >= kParallelThreshold)
        pool->parallelFor(rows, body);
    else
        body(0, rows);
}

BlockDot blockDot(DType dtype, CpuKernels kernels) {
    return dtype == DType::Q8_0 ? q8_0BlockDot(kernels) : q4_0BlockDot(kernels);
}

}  // namespace

void matVec(const TensorView& weight, std::span<const float> x, std::span<float> y,
            ThreadPool* pool) {
    const int64_t columns = weight.columns();
    const CpuKernels kernels = cpuKernels();
    std::function<void(int64_t, int64_t)> rows;
    // Block-quantized weights meet 8-bit activations, quantized once here for every row (reused
    // per thread: no allocation per product).
    thread_local QuantizedActivations perThread;
    // A name for this thread's copy: inside the lambda, run by the pool's threads, `perThread`
    // would be each worker's own (empty) one.
    QuantizedActivations& quantized = perThread;
    if (isBlockType(weight.dtype)) {
        quantized.quantize(x.data(), columns);
        rows = [&, dot = blockDot(weight.dtype, kernels)](int64_t begin, int64_t end) {
            for (int64_t r = begin; r < end; ++r)
                y[r] = dot(weight.row(r), quantized);
        };
    } else {
        rows = [&, tile = floatTile(weight.dtype, kernels)](int64_t begin, int64_t end) {
            const float* xs[] = {x.data()};
            for (int64_t r = begin; r < end; r += kTileRows) {
                const int count = int(std::min<int64_t>(kTileRows, end - r));
                const std::byte* rowPointers[kTileRows];
                for (int k = 0; k < count; ++k)
                    rowPointers[k] = weight.row(r + k);
                tile(rowPointers, count, xs, 1, columns, y.data() + r);
            }
        };
    }
    forRows(weight.rows(), weight.rows() * columns, pool, rows);
}

void matMat(const TensorView& weight, std::span<const float> x, int64_t tokens, std::span<float> y,
            ThreadPool* pool) {
    const int64_t columns = weight.columns();
    const int64_t outputs = weight.rows();
    const CpuKernels kernels = cpuKernels();
    // Tokens per block: their activations (64 × 4 KiB-wide rows at most a few hundred KiB) stay in
    // the core's cache while the thread's weight rows stream past them.
    constexpr int64_t kTokenBlock = 64;
    std::function<void(int64_t, int64_t)> rows;
    thread_local std::vector<QuantizedActivations> perThread;
    std::vector<QuantizedActivations>& quantized = perThread;  // as in matVec
    if (isBlockType(weight.dtype)) {
        quantized.resize(size_t(tokens));
        for (int64_t t = 0; t < tokens; ++t)
            quantized[size_t(t)].quantize(x.data() + t * columns, columns);
        rows = [&, dot = blockDot(weight.dtype, kernels)](int64_t begin, int64_t end) {
            for (int64_t first = 0; first < tokens; first += kTokenBlock)
                for (int64_t r = begin; r < end; ++r)
                    for (int64_t t = first; t < std::min(tokens, first + kTokenBlock); ++t)
                        y[t * outputs + r] = dot(weight.row(r), quantized[size_t(t)]);
        };
    } else {
        rows = [&, tile = floatTile(weight.dtype, kernels)](int64_t begin, int64_t end) {
            for (int64_t first = 0; first < tokens; first += kTokenBlock) {
                const int64_t last = std::min(tokens, first + kTokenBlock);
                for (int64_t r = begin; r < end; r += kTileRows) {
                    const int rowCount = int(std::min<int64_t>(kTileRows, end - r));
                    const std::byte* rowPointers[kTileRows];
                    for (int k = 0; k < rowCount; ++k)
                        rowPointers[k] = weight.row(r + k);
                    for (int64_t t = first; t < last; t += kTileTokens) {
                        const int tokenCount = int(std::min<int64_t>(kTileTokens, last - t));
                        const float* xs[kTileTokens];
                        for (int k = 0; k < tokenCount; ++k)
                            xs[k] = x.data() + (t + k) * columns;
                        float out[kTileRows * kTileTokens];
                        tile(rowPointers, rowCount, xs, tokenCount, columns, out);
                        for (int i = 0; i < rowCount; ++i)
                            for (int k = 0; k < tokenCount; ++k)
                                y[(t + k) * outputs + r + i] = out[i * tokenCount + k];
                    }
                }
            }
        };
    }
    forRows(outputs, outputs * columns * tokens, pool, rows);
}

void addBias(const TensorView& bias, std::span<float> y) {
    std::vector<float> values(y.size());
    decodeRow(bias.dtype, bias.data, values);
    for (size_t i = 0; i < y.size(); ++i)
        y[i] += values[i];
}

void rmsNorm(std::span<const float> x, const TensorView& weight, double eps, std::span<float> out) {
    double sumOfSquares = 0.0;
    for (float value : x)
        sumOfSquares += double(value) * value;
    const float scale = float(1.0 / std::sqrt(sumOfSquares / double(x.size()) + eps));
    decodeRow(weight.dtype, weight.data, out);
    for (size_t i = 0; i < x.size(); ++i)
        out[i] *= x[i] * scale;
}

void applyRope(std::span<float> head, int64_t position, int64_t ropeDims, double base,
               RopePairing pairing) {
    const int64_t pairs = ropeDims / 2;
    for (int64_t i = 0; i < pairs; ++i) {
        const double angle = double(position) * std::pow(base, -2.0 * double(i) / double(ropeDims));
        const float cosine = float(std::cos(angle)), sine = float(std::sin(angle));
        // Adjacent: (x[2i], x[2i+1]); rotate-half: (x[i], x[i + ropeDims/2]).
        float& a = pairing == RopePairing::Adjacent ? head[2 * i] : head[i];
        float& b = pairing == RopePairing::Adjacent ? head[2 * i + 1] : head[i + pairs];
        const float first = a, second = b;
        a = first * cosine - second * sine;
        b = first * sine + second * cosine;
    }
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
    for (size_t i = 0; i < gate.size(); ++i)
        gate[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
}

}  // namespace inferlens
