#include "gui_probe.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attention_overview_widget.h"
#include "panel_conversion.h"

namespace inferlens::gui {

GuiProbe::GuiProbe(const Tokenizer& tokenizer, int layers, int heads, ProbeSinks sinks)
    : tokenizer_(tokenizer),
      layers_(layers),
      heads_(heads),
      sinks_(std::move(sinks)),
      entropySum_(size_t(layers * heads), 0.0),
      rowsSeen_(size_t(layers * heads), 0),
      stepEntropySum_(size_t(layers), 0.0),
      stepRows_(size_t(layers), 0) {}

void GuiProbe::selectHead(int layer, int head) {
    selectedLayer_.store(layer);
    selectedHead_.store(head);
}

ProbeInterest GuiProbe::interest() const {
    ProbeInterest interest;
    interest.tokenization = true;
    interest.steps = true;
    interest.layers = true;
    interest.kvCache = true;
    interest.sampling = true;
    const int layer = selectedLayer_.load();
    const int head = selectedHead_.load();
    if (captureFits(heads_))
        interest.attention = [](int64_t, int64_t) { return true; };
    else if (captureFits(1))
        interest.attention = [layer, head](int64_t l, int64_t h) {
            return l == layer && h == head;
        };
    // Else (a prompt of over 8,192 tokens) not even the selected head: its rows arrive from the
    // first generated token on.
    return interest;
}

bool GuiProbe::captureFits(int heads) const {
    const int64_t keys = positions_ + nextStepRows_;
    return int64_t(heads) * nextStepRows_ * keys * 4 <= kAttentionBudgetBytes;
}

widgets::TokenChip GuiProbe::chipFor(int32_t id, bool generated) const {
    return tokenChip(id, tokenizer_.piece(id), tokenizer_.isSpecial(id), tokenizer_.byteValue(id),
                     generated);
}

void GuiProbe::onTokenized(const TokenizationInfo& info) {
    std::vector<widgets::TokenChip> chips = promptChips(info);
    for (size_t i = generatedFrom_; i < chips.size(); ++i)
        chips[i].generated = true;
    // A new generation: its prompt runs next, and the overview starts over.
    positions_ = 0;
    nextStepRows_ = std::max<int64_t>(1, int64_t(chips.size()));
    std::fill(entropySum_.begin(), entropySum_.end(), 0.0);
    std::fill(rowsSeen_.begin(), rowsSeen_.end(), 0);
    promptSkipped_ = !captureFits(heads_);
    overviewChanged_ = true;
    sinks_.tokenized(std::move(chips));
}

void GuiProbe::onStepBegin(const StepEvent& event) {
    timing_ = {};
    timing_.step = int(event.index);
    timing_.prefill = event.phase == StepPhase::Prefill;
    timing_.tokenCount = int(event.tokenCount);
    std::fill(stepEntropySum_.begin(), stepEntropySum_.end(), 0.0);
    std::fill(stepRows_.begin(), stepRows_.end(), 0);
}

double GuiProbe::stepAttentionEntropy(int layer) const {
    if (layer < 0 || layer >= layers_ || stepRows_[size_t(layer)] == 0)
        return std::numeric_limits<double>::quiet_NaN();
    return stepEntropySum_[size_t(layer)] / double(stepRows_[size_t(layer)]);
}

void GuiProbe::onLayerEnd(const LayerEvent& event) {
    if (timing_.layerSeconds.size() <= size_t(event.layer))
        timing_.layerSeconds.resize(size_t(event.layer) + 1);
    timing_.layerSeconds[size_t(event.layer)] = event.seconds;
}

void GuiProbe::onAttention(const AttentionEvent& event) {
    if (event.layer < layers_ && event.head < heads_) {
        const size_t cell = size_t(event.layer * heads_ + event.head);
        double sum = 0;
        for (int64_t row = 0; row < event.queryCount; ++row)
            sum += widgets::AttentionOverviewWidget::rowEntropy(
                event.weights.subspan(size_t(row * event.keyCount), size_t(event.keyCount)));
        entropySum_[cell] += sum;
        rowsSeen_[cell] += event.queryCount;
        stepEntropySum_[size_t(event.layer)] += sum;
        stepRows_[size_t(event.layer)] += event.queryCount;
        overviewChanged_ = true;
    }
    if (event.layer == selectedLayer_.load())
        sinks_.attention(attentionMatrix(event));
}

void GuiProbe::onKvCache(int64_t, const KvCacheStats& stats) {
    sinks_.kvCache(kvCachePoint(stats));
}

void GuiProbe::onSampling(int64_t step, const SamplingTrace& trace) {
    sinks_.sampling(samplingStep(step, trace, candidatePieces(trace, tokenizer_)));
}

void GuiProbe::onStepEnd(const StepEvent& event) {
    timing_.stepSeconds = event.seconds;
    sinks_.loopTiming(timing_);
    positions_ += event.tokenCount;
    nextStepRows_ = 1;
    if (!overviewChanged_)
        return;
    overviewChanged_ = false;
    AttentionOverview overview{layers_, heads_, {}, promptSkipped_};
    overview.meanEntropy.resize(entropySum_.size(), std::numeric_limits<float>::quiet_NaN());
    for (size_t cell = 0; cell < entropySum_.size(); ++cell)
        if (rowsSeen_[cell] > 0)
            overview.meanEntropy[cell] = float(entropySum_[cell] / double(rowsSeen_[cell]));
    sinks_.overview(std::move(overview));
}

}  // namespace inferlens::gui
