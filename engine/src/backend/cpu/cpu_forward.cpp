#include "backend/cpu/cpu_forward.h"

#include <algorithm>

#include "core/error.h"

namespace inferlens {

CpuForward::CpuForward(const Model& model, int64_t contextSize, int threads,
                       AttentionKernel attention, KvCacheOptions cacheOptions)
    : model_(model),
      caches_{KvCache(model.config().layerCount, model.config().kvHeadCount,
                      model.config().headCount, model.config().headDim, contextSize, cacheOptions)},
      pool_(threads),
      scratch_(model.config()) {
    scratch_.pool = &pool_;
    scratch_.attention = attention;
}

std::string CpuForward::deviceName() const {
    const int threads = pool_.size();
    return "CPU (" + std::to_string(threads) + (threads == 1 ? " thread)" : " threads)");
}

void CpuForward::beginStep(std::span<const int32_t> tokens, int64_t firstPosition) {
    const auto hidden = size_t(config().hiddenSize);
    residual_.resize(tokens.size() * hidden);
    for (size_t i = 0; i < tokens.size(); ++i)
        model_.embed(tokens[i], std::span(residual_).subspan(i * hidden, hidden));
    cache().reserve(int64_t(tokens.size()));
    firstPosition_ = firstPosition;
}

void CpuForward::runLayer(int64_t layer, AttentionRecorder* recorder) {
    model_.forwardLayer(layer, firstPosition_, residual_, cache(), scratch_, recorder);
}

std::span<const float> CpuForward::lastHidden() {
    const auto hidden = size_t(config().hiddenSize);
    return std::span<const float>(residual_).subspan(residual_.size() - hidden, hidden);
}

void CpuForward::finishStep(std::span<float> logits, int64_t rows) {
    const auto hidden = size_t(config().hiddenSize);
    const auto vocab = size_t(config().vocabSize);
    const auto count = int64_t(residual_.size() / hidden);
    cache().commit(count);
    for (int64_t row = 0; row < rows; ++row) {
        const auto token = size_t(count - rows + row);
        model_.computeLogits(std::span(residual_).subspan(token * hidden, hidden),
                             logits.subspan(size_t(row) * vocab, vocab), scratch_);
    }
}

void CpuForward::checkSlot(int slot) const {
    if (slot < 0 || slot >= cacheSlots())
        throw Error("KV cache slot " + std::to_string(slot) + " does not exist (" +
                    std::to_string(cacheSlots()) + " kept)");
}

void CpuForward::setCacheSlots(int count) {
    if (count < 1)
        throw Error("at least one KV cache slot is needed");
    // New slots start empty, with no rows allocated until they are used.
    const KvCache empty(config().layerCount, config().kvHeadCount, config().headCount,
                        config().headDim, contextSize(), cache().options());
    caches_.resize(size_t(count), empty);
    slot_ = std::min(slot_, count - 1);
}

void CpuForward::useCacheSlot(int slot) {
    checkSlot(slot);
    slot_ = slot;
}

void CpuForward::copyCacheSlot(int from, int to) {
    checkSlot(from);
    checkSlot(to);
    if (from != to)
        caches_[size_t(to)] = caches_[size_t(from)];
}

int64_t CpuForward::otherSlotsBytes() const {
    int64_t bytes = 0;
    for (size_t slot = 0; slot < caches_.size(); ++slot)
        if (int(slot) != slot_)
            bytes += caches_[slot].stats().bytesAllocated;
    return bytes;
}

}  // namespace inferlens
