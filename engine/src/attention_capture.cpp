#include "attention_capture.h"

#include <algorithm>

namespace inferlens {

AttentionCapture::AttentionCapture(const ProbeSet& probes, int64_t step, int64_t firstQuery,
                                   int64_t queryCount, int64_t sinkTokens, int64_t windowTokens,
                                   const ModelConfig* model)
    : probes_(probes),
      step_(step),
      firstQuery_(firstQuery),
      queryCount_(queryCount),
      keyCount_(firstQuery + queryCount),
      sinkTokens_(sinkTokens),
      windowTokens_(windowTokens),
      model_(model) {}

bool AttentionCapture::wantsHead(int64_t layer, int64_t head) const {
    return probes_.wantsAttention(layer, head);
}

void AttentionCapture::record(int64_t /*layer*/, int64_t head, int64_t position,
                              std::span<const float> weights) {
    std::vector<float>& block = blocks_[head];
    block.resize(size_t(queryCount_ * keyCount_));  // zero-filled: the masked upper triangle
    std::copy(weights.begin(), weights.end(), block.begin() + (position - firstQuery_) * keyCount_);
}

void AttentionCapture::deliver(int64_t layer) {
    for (const auto& [head, block] : blocks_) {
        const AttentionEvent event{
            step_,         layer,
            head,          firstQuery_,
            queryCount_,   keyCount_,
            block,         sinkTokens_,
            windowTokens_, model_ != nullptr ? model_->layerWindow(layer) : 0};
        probes_.attention(event);
    }
    blocks_.clear();
}

}  // namespace inferlens
