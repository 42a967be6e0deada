// Every CUDA operation against an independent reference on random inputs: products against a
// double-precision sum over the decoded weights, the per-token operations against the CPU's
// (backend/cpu/reference_ops.h), attention against a double-precision softmax. Compared by
// normalised error, per weight type.

#include <algorithm>
#include <cmath>

#include "backend/cpu/reference_ops.h"
#include "backend/cuda/device_products.h"
#include "backend/cuda/kernels.h"
#include "core/half.h"
#include "gpu_buffers.h"
#include "gpu_test.h"

using namespace inferlens;
using namespace inferlens::gputest;

namespace {

constexpr DType kDeviceTypes[] = {DType::F32, DType::F16, DType::BF16, DType::Q8_0, DType::Q4_0};

// Y [tokens, rows] = X · Wᵀ in double over the decoded weights.
std::vector<float> referenceProduct(const HostMatrix& w, const std::vector<float>& x,
                                    int64_t tokens) {
    const int64_t rows = w.view.rows(), columns = w.view.columns();
    std::vector<float> y(size_t(tokens * rows));
    for (int64_t t = 0; t < tokens; ++t)
        for (int64_t r = 0; r < rows; ++r) {
            double sum = 0.0;
            for (int64_t c = 0; c < columns; ++c)
                sum += double(w.decoded[size_t(r * columns + c)]) * x[size_t(t * columns + c)];
            y[size_t(t * rows + r)] = float(sum);
        }
    return y;
}

// How far a product may be from the exact one: f32 sums only for one token (the GEMV reads the
// weights exactly); cuBLAS rounds the activations to the weights' float type (F16 for blocks).
double productTolerance(DType dtype, int64_t tokens) {
    if (tokens == 1 || dtype == DType::F32)
        return 2e-6;
    return dtype == DType::BF16 ? 8e-3 : 1e-3;
}

std::string label(const char* what, DType dtype, int64_t rows, int64_t columns, int64_t tokens) {
    return std::string(what) + " " + std::string(dtypeName(dtype)) + " [" + std::to_string(rows) +
           "x" + std::to_string(columns) + "] x " + std::to_string(tokens) + " tokens";
}

void checkProducts(DType dtype, int64_t rows, int64_t columns, float amplitude = 1.0f) {
    const HostMatrix w(dtype, rows, columns, 7);
    for (const int64_t tokens : {int64_t(1), int64_t(3), int64_t(77)}) {
        const std::vector<float> x = randomValues(size_t(tokens * columns), 11, amplitude);
        DeviceScratch scratch(cuda::matrixBytes(w.view) + 4 * (tokens * (rows + columns)) +
                              (int64_t(1) << 16));
        const cuda::DeviceMatrix device = scratch.matrix(w);
        const float* xDevice = scratch.upload(x);
        float* y = scratch.zeros<float>(tokens * rows);
        const cuda::ProductLimits limits{
            tokens, columns, dtype == DType::Q8_0 || dtype == DType::Q4_0 ? rows * columns : 0,
            dtype != DType::F32};
        cuda::DeviceArena work(cuda::DeviceProducts::workBytes(limits) + 256);
        cuda::DeviceProducts products(nullptr, limits, work);
        products.multiply(device, xDevice, tokens, y);
        expectClose(label("product", dtype, rows, columns, tokens),
                    download(y, size_t(tokens * rows)), referenceProduct(w, x, tokens),
                    productTolerance(dtype, tokens));
    }
}

}  // namespace

GPU_TEST(productsOfEveryDeviceTypeMatchTheExactSum) {
    for (const DType dtype : kDeviceTypes) {
        checkProducts(dtype, 37, 256);    // rows not a multiple of the GEMV's warps
        checkProducts(dtype, 300, 4096);  // a real model's width
    }
    // Float rows whose width is not a multiple of 8 take the GEMV's one-value-at-a-time path.
    for (const DType dtype : {DType::F32, DType::F16, DType::BF16})
        checkProducts(dtype, 19, 44);
}

GPU_TEST(activationsBeyondTheHalfRangeDoNotOverflowThePrefillProducts) {
    // Values up to 2·10⁵ (F16 ends at 65504): the prefill's rows are scaled into range.
    for (const DType dtype : {DType::F16, DType::Q8_0, DType::Q4_0})
        checkProducts(dtype, 40, 512, 2e5f);
}

GPU_TEST(otherBlockTypesAreUploadedAsHalfAndStillMultiplyCorrectly) {
    // Q4_K's 256-value blocks have no GPU kernel: they are decoded at upload to F16.
    const HostMatrix w(DType::Q4_K, 16, 512, 5);
    DeviceScratch scratch(cuda::matrixBytes(w.view) + (int64_t(1) << 16));
    const cuda::DeviceMatrix device = scratch.matrix(w);
    expect(device.dtype == DType::F16, "a Q4_K matrix is stored as F16 on the device");
    const std::vector<float> x = randomValues(512, 3);
    const float* xDevice = scratch.upload(x);
    float* y = scratch.zeros<float>(16);
    cuda::gemv(device, xDevice, y, nullptr);
    // The F16 rounding of the decoded weights is the only difference from the exact sum.
    expectClose("gemv of a Q4_K matrix uploaded as F16", download(y, 16), referenceProduct(w, x, 1),
                2e-3);
}

GPU_TEST(dequantizedBlocksAndEmbeddingRowsEqualTheHostDecoding) {
    for (const DType dtype : kDeviceTypes) {
        const HostMatrix table(dtype, 50, 96, 13);
        DeviceScratch scratch(cuda::matrixBytes(table.view) + (int64_t(1) << 20));
        const cuda::DeviceMatrix device = scratch.matrix(table);
        const std::vector<int32_t> tokens{0, 49, 7, 7, 23};
        auto* ids = scratch.arena().take<int32_t>(int64_t(tokens.size()));
        INFERLENS_CUDA_CHECK(cudaMemcpy(ids, tokens.data(), tokens.size() * sizeof(int32_t),
                                        cudaMemcpyHostToDevice));
        float* rows = scratch.zeros<float>(int64_t(tokens.size()) * 96);
        cuda::embedRows(device, ids, int64_t(tokens.size()), rows, nullptr);
        std::vector<float> expected;
        for (const int32_t token : tokens)
            expected.insert(expected.end(), table.decoded.begin() + token * 96,
                            table.decoded.begin() + (token + 1) * 96);
        expectClose("embedding rows " + std::string(dtypeName(dtype)),
                    download(rows, expected.size()), expected, 1e-7);

        auto* halves = scratch.zeros<uint16_t>(50 * 96);
        cuda::dequantizeToHalf(device, halves, nullptr);
        INFERLENS_CUDA_CHECK(cudaDeviceSynchronize());
        std::vector<uint16_t> bits(50 * 96);
        INFERLENS_CUDA_CHECK(
            cudaMemcpy(bits.data(), halves, bits.size() * 2, cudaMemcpyDeviceToHost));
        std::vector<float> asFloats(bits.size());
        std::transform(bits.begin(), bits.end(), asFloats.begin(), halfToFloat);
        expectClose("dequantized to f16 " + std::string(dtypeName(dtype)), asFloats, table.decoded,
                    1e-3);
    }
}

GPU_TEST(perTokenOperationsMatchTheCpu) {
    constexpr int64_t tokens = 5, width = 320;
    DeviceScratch scratch(int64_t(1) << 22);
    const std::vector<float> x = randomValues(tokens * width, 1, 3.0f);
    std::vector<float> weight = randomValues(width, 2);
    for (float& w : weight)
        w += 1.0f;
    TensorView weightView{
        "w", DType::F32, {width}, reinterpret_cast<const std::byte*>(weight.data()), width * 4};

    // RMSNorm
    const float* xDevice = scratch.upload(x);
    const float* weightDevice = scratch.upload(weight);
    float* normed = scratch.zeros<float>(tokens * width);
    cuda::rmsNorm(xDevice, weightDevice, tokens, width, 1e-5, normed, nullptr);
    std::vector<float> expected(x.size());
    for (int64_t t = 0; t < tokens; ++t)
        rmsNorm(std::span(x).subspan(t * width, width), weightView, 1e-5,
                std::span(expected).subspan(t * width, width));
    expectClose("rmsNorm", download(normed, x.size()), expected, 1e-6);

    // Bias, residual addition, SwiGLU
    float* y = scratch.upload(x);
    cuda::addBias(weightDevice, tokens, width, y, nullptr);
    for (int64_t t = 0; t < tokens; ++t)
        for (int64_t i = 0; i < width; ++i)
            expected[t * width + i] = x[t * width + i] + weight[i];
    expectClose("addBias", download(y, x.size()), expected, 1e-7);
    cuda::addInPlace(y, xDevice, tokens * width, nullptr);
    for (size_t i = 0; i < x.size(); ++i)
        expected[i] += x[i];
    expectClose("addInPlace", download(y, x.size()), expected, 1e-7);
    const std::vector<float> up = randomValues(x.size(), 9);
    float* gate = scratch.upload(x);
    cuda::swiGlu(gate, scratch.upload(up), int64_t(x.size()), nullptr);
    expected = x;
    swiGlu(expected, up);
    expectClose("swiGlu", download(gate, x.size()), expected, 1e-6);
}

GPU_TEST(ropeRotatesBothPairingsAsTheCpuDoes) {
    constexpr int64_t tokens = 4, heads = 3, headDim = 64;
    for (const RopePairing pairing : {RopePairing::Adjacent, RopePairing::RotateHalf})
        for (const int64_t ropeDims : {headDim, headDim / 2}) {
            DeviceScratch scratch(int64_t(1) << 20);
            const std::vector<float> x = randomValues(tokens * heads * headDim, 4);
            float* rows = scratch.upload(x);
            const int64_t first = 1000, offset = 3;  // positions 1003 .. 1006
            cuda::rope(rows, tokens, {heads, headDim, ropeDims, 10000.0, pairing},
                       scratch.position(first), offset, nullptr);
            std::vector<float> expected = x;
            for (int64_t t = 0; t < tokens; ++t)
                for (int64_t h = 0; h < heads; ++h)
                    applyRope(std::span(expected).subspan((t * heads + h) * headDim, headDim),
                              first + offset + t, ropeDims, 10000.0, pairing);
            expectClose(std::string("rope ") +
                            (pairing == RopePairing::Adjacent ? "adjacent" : "rotate-half") +
                            " over " + std::to_string(ropeDims) + " dims",
                        download(rows, x.size()), expected, 1e-6);
        }
}

GPU_TEST(attentionMatchesADoublePrecisionSoftmaxForEveryHeadGrouping) {
    constexpr int64_t headDim = 64, capacity = 100, first = 20, tokens = 7;
    for (const int64_t kvHeads : {int64_t(8), int64_t(2), int64_t(1)}) {  // MHA, GQA, MQA
        constexpr int64_t heads = 8;
        const int64_t kvWidth = kvHeads * headDim;
        DeviceScratch scratch(int64_t(1) << 24);
        const std::vector<float> query = randomValues(tokens * heads * headDim, 21, 2.0f);
        const std::vector<float> key = randomValues(tokens * kvWidth, 22, 2.0f);
        const std::vector<float> value = randomValues(tokens * kvWidth, 23);
        std::vector<float> cacheKeys = randomValues(capacity * kvWidth, 24, 2.0f);
        std::vector<float> cacheValues = randomValues(capacity * kvWidth, 25);
        float* keysDevice = scratch.upload(cacheKeys);
        float* valuesDevice = scratch.upload(cacheValues);
        const int64_t* position = scratch.position(first);
        // The step's K/V go to positions 20 .. 26; what lies beyond stays random and must not be
        // attended.
        cuda::storeKv(scratch.upload(key), scratch.upload(value), tokens, kvWidth, keysDevice,
                      valuesDevice, position, 0, nullptr);
        std::copy(key.begin(), key.end(), cacheKeys.begin() + first * kvWidth);
        std::copy(value.begin(), value.end(), cacheValues.begin() + first * kvWidth);
        expectClose("storeKv keys", download(keysDevice, cacheKeys.size()), cacheKeys, 0.0);

        float* probabilities = scratch.zeros<float>(tokens * heads * capacity);
        float* out = scratch.zeros<float>(tokens * heads * headDim);
        const float* queries = scratch.upload(query);
        const cuda::AttentionShape shape{heads, kvHeads, headDim, capacity};
        // Two launches, as a chunked prefill makes them: tokens 0..2, then 3..6.
        cuda::attention(queries, keysDevice, valuesDevice, shape, 3, position, 0, probabilities,
                        out, nullptr);
        const std::vector<float> firstProbabilities =
            download(probabilities, size_t(3 * heads * capacity));
        cuda::attention(queries + 3 * heads * headDim, keysDevice, valuesDevice, shape, 4, position,
                        3, probabilities, out + 3 * heads * headDim, nullptr);
        const std::vector<float> laterProbabilities =
            download(probabilities, size_t(4 * heads * capacity));

        std::vector<float> expectedOut(query.size());
        std::vector<float> gotProbabilities, expectedProbabilities;
        for (int64_t t = 0; t < tokens; ++t)
            for (int64_t h = 0; h < heads; ++h) {
                const int64_t g = h / (heads / kvHeads), keysSeen = first + t + 1;
                std::vector<double> scores(static_cast<size_t>(keysSeen));
                for (int64_t k = 0; k < keysSeen; ++k) {
                    double dot = 0.0;
                    for (int64_t d = 0; d < headDim; ++d)
                        dot += double(query[(t * heads + h) * headDim + d]) *
                               cacheKeys[k * kvWidth + g * headDim + d];
                    scores[size_t(k)] = dot / std::sqrt(double(headDim));
                }
                const double largest = *std::max_element(scores.begin(), scores.end());
                double total = 0.0;
                for (double& s : scores)
                    total += (s = std::exp(s - largest));
                for (int64_t d = 0; d < headDim; ++d) {
                    double sum = 0.0;
                    for (int64_t k = 0; k < keysSeen; ++k)
                        sum +=
                            scores[size_t(k)] / total * cacheValues[k * kvWidth + g * headDim + d];
                    expectedOut[(t * heads + h) * headDim + d] = float(sum);
                }
                const std::vector<float>& launch = t < 3 ? firstProbabilities : laterProbabilities;
                const int64_t row = (t < 3 ? t : t - 3) * heads + h;
                for (int64_t k = 0; k < keysSeen; ++k) {
                    gotProbabilities.push_back(launch[size_t(row * capacity + k)]);
                    expectedProbabilities.push_back(float(scores[size_t(k)] / total));
                }
            }
        const std::string grouping =
            std::to_string(heads) + " heads over " + std::to_string(kvHeads) + " KV heads";
        expectClose("attention output, " + grouping, download(out, query.size()), expectedOut,
                    1e-5);
        expectClose("attention probabilities, " + grouping, gotProbabilities, expectedProbabilities,
                    1e-5);
    }
}

GPU_TEST_MAIN()
