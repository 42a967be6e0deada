#include "backend/cpu/cpu_forward.h"

namespace inferlens {

CpuForward::CpuForward(const Model& model, int64_t contextSize, int threads)
    : model_(model),
      cache_(model.config().layerCount, model.config().kvHeadCount, model.config().headCount,
             model.config().headDim, contextSize),
      pool_(threads),
      scratch_(model.config()) {
    scratch_.pool = &pool_;
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
    cache_.reserve(int64_t(tokens.size()));
    firstPosition_ = firstPosition;
}

void CpuForward::runLayer(int64_t layer, AttentionRecorder* recorder) {
    model_.forwardLayer(layer, firstPosition_, residual_, cache_, scratch_, recorder);
}

std::span<const float> CpuForward::lastHidden() {
    const auto hidden = size_t(config().hiddenSize);
    return std::span<const float>(residual_).subspan(residual_.size() - hidden, hidden);
}

void CpuForward::finishStep(std::span<float> logits, int64_t rows) {
    const auto hidden = size_t(config().hiddenSize);
    const auto vocab = size_t(config().vocabSize);
    const auto count = int64_t(residual_.size() / hidden);
    cache_.commit(count);
    for (int64_t row = 0; row < rows; ++row) {
        const auto token = size_t(count - rows + row);
        model_.computeLogits(std::span(residual_).subspan(token * hidden, hidden),
                             logits.subspan(size_t(row) * vocab, vocab), scratch_);
    }
}

}  // namespace inferlens
