#pragma once
// Collects the attention weights that probes asked for while one layer runs over a step's tokens,
// and hands each (layer, head) block to the probes when the layer is done.

#include <cstdint>
#include <map>
#include <vector>

#include "models/model.h"
#include "probe.h"

namespace inferlens {

class AttentionCapture final : public AttentionRecorder {
  public:
    // `sinkTokens`, `windowTokens`: a sliding cache's (AttentionEvent). `model`: the model whose
    // local layers' windows the events report (layerWindowTokens), if any.
    AttentionCapture(const ProbeSet& probes, int64_t step, int64_t firstQuery, int64_t queryCount,
                     int64_t sinkTokens = 0, int64_t windowTokens = 0,
                     const ModelConfig* model = nullptr);

    bool wantsHead(int64_t layer, int64_t head) const override;
    void record(int64_t layer, int64_t head, int64_t position,
                std::span<const float> weights) override;
    // Delivers the blocks recorded for `layer` and forgets them.
    void deliver(int64_t layer);

  private:
    const ProbeSet& probes_;
    int64_t step_, firstQuery_, queryCount_, keyCount_, sinkTokens_, windowTokens_;
    const ModelConfig* model_;
    std::map<int64_t, std::vector<float>> blocks_;  // head → [queryCount, keyCount]
};

}  // namespace inferlens
