#include "backend/cuda/device_weights.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/kernels.h"
#include "core/dtype_codec.h"
#include "core/error.h"
#include "core/half.h"

namespace inferlens::cuda {
namespace {

// One tensor of the decoder: where it goes on the GPU, where it comes from (a file's view, or
// nothing for random contents) and, for random contents, their range.
struct Slot {
    const TensorView* source = nullptr;
    DeviceMatrix* matrix = nullptr;  // a matrix …
    const float** vector = nullptr;  // … or a vector of `columns` values
    int64_t rows = 1, columns = 0;
    float center = 0.0f, amplitude = 0.0f;
};

// The decoder's tensors in a fixed order, their device types and shapes set in `w`. `source` is
// null for a synthetic model of `syntheticType`.
std::vector<Slot> layout(const ModelConfig& c, DeviceWeights& w, const DecoderWeights* source,
                         DType syntheticType) {
    std::vector<Slot> slots;
    const auto matrix = [&](DeviceMatrix& target, const TensorView* view, int64_t rows,
                            int64_t columns, float amplitude) {
        target.dtype = view != nullptr ? deviceDType(view->dtype) : syntheticType;
        target.rows = rows;
        target.columns = columns;
        slots.push_back({view, &target, nullptr, rows, columns, 0.0f, amplitude});
    };
    const auto vector = [&](const float*& target, const TensorView* view, int64_t size,
                            float center, float amplitude) {
        slots.push_back({view, nullptr, &target, 1, size, center, amplitude});
    };
    const auto viewOf = [&](const TensorView& view) { return source ? &view : nullptr; };
    const auto optionalView = [&](const std::optional<TensorView>& view) {
        return source && view ? &*view : nullptr;
    };
    const int64_t h = c.hiddenSize, q = c.queryWidth(), kv = c.kvWidth(), f = c.ffnSize;
    const auto amplitude = [](int64_t columns) { return float(1.0 / std::sqrt(double(columns))); };

    w.layers.resize(size_t(c.layerCount));
    matrix(w.tokenEmbedding, source ? &source->tokenEmbedding : nullptr, c.vocabSize, h, 1.0f);
    for (int64_t i = 0; i < c.layerCount; ++i) {
        DeviceLayer& layer = w.layers[size_t(i)];
        const LayerWeights* from = source ? &source->layers[size_t(i)] : nullptr;
        // A file's biases are bound one by one; a synthetic model has all three or none.
        const auto bias = [&](const float*& target, const std::optional<TensorView>* view,
                              int64_t size) {
            if (from ? view->has_value() : c.qkvBias)
                vector(target, from ? optionalView(*view) : nullptr, size, 0.0f, 0.02f);
        };
        vector(layer.attentionNorm, from ? viewOf(from->attentionNorm) : nullptr, h, 1.0f, 0.1f);
        matrix(layer.query, from ? &from->query : nullptr, q, h, amplitude(h));
        matrix(layer.key, from ? &from->key : nullptr, kv, h, amplitude(h));
        matrix(layer.value, from ? &from->value : nullptr, kv, h, amplitude(h));
        bias(layer.queryBias, from ? &from->queryBias : nullptr, q);
        bias(layer.keyBias, from ? &from->keyBias : nullptr, kv);
        bias(layer.valueBias, from ? &from->valueBias : nullptr, kv);
        // Optional norms as the configuration has them (Qwen3, Gemma 3).
        const auto norm = [&](const float*& target, const std::optional<TensorView>& view,
                              bool present, int64_t size) {
            if (present)
                vector(target, from ? optionalView(view) : nullptr, size, 1.0f, 0.1f);
        };
        const LayerWeights none;
        const LayerWeights& optional = from ? *from : none;
        norm(layer.queryNorm, optional.queryNorm, c.qkNorm, c.headDim);
        norm(layer.keyNorm, optional.keyNorm, c.qkNorm, c.headDim);
        matrix(layer.attentionOutput, from ? &from->attentionOutput : nullptr, h, q, amplitude(q));
        norm(layer.postAttentionNorm, optional.postAttentionNorm, c.postNorms, h);
        vector(layer.ffnNorm, from ? viewOf(from->ffnNorm) : nullptr, h, 1.0f, 0.1f);
        matrix(layer.ffnGate, from ? &from->ffnGate : nullptr, f, h, amplitude(h));
        matrix(layer.ffnUp, from ? &from->ffnUp : nullptr, f, h, amplitude(h));
        matrix(layer.ffnDown, from ? &from->ffnDown : nullptr, h, f, amplitude(f));
        norm(layer.postFfnNorm, optional.postFfnNorm, c.postNorms, h);
    }
    vector(w.outputNorm, source ? &source->outputNorm : nullptr, h, 1.0f, 0.1f);
    // A tied output layer is the embedding's upload, not a second copy.
    const bool tied = source ? source->output.data == source->tokenEmbedding.data : c.tiedOutput;
    if (!tied)
        matrix(w.output, source ? &source->output : nullptr, c.vocabSize, h, amplitude(h));
    return slots;
}

int64_t slotBytes(const Slot& slot) {
    if (slot.matrix == nullptr)
        return alignedBytes(slot.columns * int64_t(sizeof(float)));
    return alignedBytes(slot.matrix->valueBytes()) + alignedBytes(slot.matrix->scaleBytes());
}

int64_t totalBytes(const std::vector<Slot>& slots) {
    int64_t bytes = 0;
    for (const Slot& slot : slots)
        bytes += slotBytes(slot);
    return bytes;
}

void copyToDevice(void* target, const void* source, int64_t bytes) {
    INFERLENS_CUDA_CHECK(cudaMemcpy(target, source, size_t(bytes), cudaMemcpyHostToDevice));
}

// A Q8_0/Q4_0 matrix's blocks split into quants and scales (device_matrix.h).
void uploadSplitBlocks(const TensorView& view, const DeviceMatrix& m) {
    const int64_t blocks = m.rows * m.columns / kQuantBlock;
    const int64_t blockBytes = dtypeInfo(view.dtype).blockBytes;
    const int64_t quantBytes = blockBytes - 2;  // after the fp16 scale
    std::vector<uint16_t> scales(static_cast<size_t>(blocks));
    std::vector<std::byte> quants(size_t(blocks * quantBytes));
    for (int64_t b = 0; b < blocks; ++b) {
        const std::byte* block = view.data + b * blockBytes;
        std::memcpy(&scales[size_t(b)], block, 2);
        std::memcpy(quants.data() + b * quantBytes, block + 2, size_t(quantBytes));
    }
    copyToDevice(const_cast<void*>(m.values), quants.data(), m.valueBytes());
    copyToDevice(const_cast<uint16_t*>(m.scales), scales.data(), m.scaleBytes());
}

// Block types the kernels do not read (Q4_K, Q6_K, …): decoded on the host, uploaded as F16.
void uploadAsHalf(const TensorView& view, const DeviceMatrix& m) {
    std::vector<float> row(size_t(m.columns));
    std::vector<uint16_t> halves(size_t(m.rows * m.columns));
    for (int64_t r = 0; r < m.rows; ++r) {
        decodeRow(view.dtype, view.row(r), row);
        for (int64_t c = 0; c < m.columns; ++c)
            halves[size_t(r * m.columns + c)] = floatToHalf(row[size_t(c)]);
    }
    copyToDevice(const_cast<void*>(m.values), halves.data(), m.valueBytes());
}

void place(Slot& slot, DeviceArena& arena) {
    if (slot.matrix == nullptr) {
        *slot.vector = arena.take<float>(slot.columns);
        return;
    }
    slot.matrix->values = arena.take(slot.matrix->valueBytes());
    if (slot.matrix->scaleBytes() > 0)
        slot.matrix->scales = static_cast<uint16_t*>(arena.take(slot.matrix->scaleBytes()));
}

void upload(const Slot& slot) {
    const TensorView& view = *slot.source;
    if (slot.matrix == nullptr) {
        std::vector<float> values(size_t(slot.columns));
        decodeRow(view.dtype, view.data, values);
        copyToDevice(const_cast<float*>(*slot.vector), values.data(),
                     slot.columns * int64_t(sizeof(float)));
    } else if (view.dtype == DType::Q8_0 || view.dtype == DType::Q4_0) {
        uploadSplitBlocks(view, *slot.matrix);
    } else if (isDeviceDType(view.dtype)) {
        copyToDevice(const_cast<void*>(slot.matrix->values), view.data, slot.matrix->valueBytes());
    } else {
        uploadAsHalf(view, *slot.matrix);
    }
}

void fillRandom(const Slot& slot, uint64_t seed) {
    if (slot.matrix == nullptr)
        fillRandomFloats(const_cast<float*>(*slot.vector), slot.columns, slot.center,
                         slot.amplitude, seed, nullptr);
    else
        fillRandomMatrix(*slot.matrix, slot.amplitude, seed, nullptr);
}

void checkSyntheticType(DType dtype) {
    if (!isDeviceDType(dtype))
        throw Error("synthetic GPU weights can be f32, f16, bf16, q8_0 or q4_0, not " +
                    std::string(dtypeName(dtype)));
}

void tieOutput(DeviceWeights& w) {
    if (w.output.rows == 0)  // layout() left it out
        w.output = w.tokenEmbedding;
}

}  // namespace

std::vector<const DeviceMatrix*> DeviceWeights::productMatrices() const {
    std::vector<const DeviceMatrix*> matrices;
    for (const DeviceLayer& layer : layers)
        for (const DeviceMatrix* m :
             {&layer.query, &layer.key, &layer.value, &layer.attentionOutput, &layer.ffnGate,
              &layer.ffnUp, &layer.ffnDown})
            matrices.push_back(m);
    matrices.push_back(&output);
    return matrices;
}

int64_t DeviceWeights::largestBlockMatrix() const {
    int64_t largest = 0;
    for (const DeviceMatrix* m : productMatrices())
        if (m->dtype == DType::Q8_0 || m->dtype == DType::Q4_0)
            largest = std::max(largest, m->rows * m->columns);
    return largest;
}

bool DeviceWeights::anyReducedPrecision() const {
    for (const DeviceMatrix* m : productMatrices())
        if (m->dtype != DType::F32)
            return true;
    return false;
}

namespace {

Slot matrixSlot(const TensorView& view, DeviceMatrix& target) {
    target.dtype = deviceDType(view.dtype);
    target.rows = view.rows();
    target.columns = view.columns();
    return {&view, &target, nullptr, target.rows, target.columns, 0.0f, 0.0f};
}

}  // namespace

int64_t matrixBytes(const TensorView& view) {
    DeviceMatrix shape;
    return slotBytes(matrixSlot(view, shape));
}

DeviceMatrix uploadMatrix(const TensorView& view, DeviceArena& arena) {
    DeviceMatrix result;
    Slot slot = matrixSlot(view, result);
    place(slot, arena);
    upload(slot);
    return result;
}

WeightPlan planUpload(const ModelConfig& config, const DecoderWeights& weights) {
    DeviceWeights shapes;  // types and shapes only: nothing is allocated
    const int64_t bytes = totalBytes(layout(config, shapes, &weights, DType::F32));
    tieOutput(shapes);
    return {bytes, shapes.largestBlockMatrix(), shapes.anyReducedPrecision()};
}

WeightPlan planSynthetic(const ModelConfig& config, DType dtype) {
    checkSyntheticType(dtype);
    DeviceWeights shapes;
    const int64_t bytes = totalBytes(layout(config, shapes, nullptr, dtype));
    tieOutput(shapes);
    return {bytes, shapes.largestBlockMatrix(), shapes.anyReducedPrecision()};
}

DeviceWeights uploadWeights(const ModelConfig& config, const DecoderWeights& weights) {
    DeviceWeights result;
    std::vector<Slot> slots = layout(config, result, &weights, DType::F32);
    result.arena = DeviceArena(totalBytes(slots));
    for (Slot& slot : slots) {
        place(slot, result.arena);
        upload(slot);
    }
    tieOutput(result);
    return result;
}

DeviceWeights syntheticWeights(const ModelConfig& config, DType dtype, uint64_t seed) {
    checkSyntheticType(dtype);
    DeviceWeights result;
    std::vector<Slot> slots = layout(config, result, nullptr, dtype);
    result.arena = DeviceArena(totalBytes(slots));
    for (size_t i = 0; i < slots.size(); ++i) {
        place(slots[i], result.arena);
        fillRandom(slots[i], seed * 1000003u + i);
    }
    INFERLENS_CUDA_CHECK(cudaDeviceSynchronize());
    tieOutput(result);
    return result;
}

}  // namespace inferlens::cuda
