#include "gui_probe.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attention_overview_widget.h"
#include "sampling/sampling_trace.h"

namespace inferlens::gui {

widgets::AttentionMatrix toAttentionMatrix(const AttentionEvent& event) {
    widgets::AttentionMatrix matrix;
    matrix.layer = int(event.layer);
    matrix.head = int(event.head);
    matrix.firstQuery = int(event.firstQuery);
    matrix.queryCount = int(event.queryCount);
    matrix.keyCount = int(event.keyCount);
    matrix.weights.assign(event.weights.begin(), event.weights.end());
    return matrix;
}

widgets::SamplingStep toSamplingStep(int64_t step, const SamplingTrace& trace,
                                     const Tokenizer& tokenizer) {
    widgets::SamplingStep snapshot;
    snapshot.step = int(step);
    for (const TraceCandidate& candidate : trace.candidates) {
        widgets::SamplingCandidate row;
        row.id = candidate.id;
        row.label = QString::fromStdString(tokenizer.piece(candidate.id));
        row.probability = {candidate.probability[size_t(SamplingStage::Raw)],
                           candidate.probability[size_t(SamplingStage::Penalties)],
                           candidate.probability[size_t(SamplingStage::Temperature)],
                           candidate.finalProbability()};
        row.kept = candidate.kept();
        snapshot.cutoffIndex += row.kept ? 1 : 0;
        snapshot.candidates.push_back(std::move(row));
    }
    snapshot.nucleusMass = trace.nucleusMass;
    snapshot.chosenIndex =
        trace.chosenRank < int64_t(trace.candidates.size()) ? int(trace.chosenRank) : -1;
    snapshot.entropy = trace.entropyAfter(kFinalSamplingStage);
    snapshot.chosenProbability = trace.chosenProbability;
    return snapshot;
}

GuiProbe::GuiProbe(const Tokenizer& tokenizer, int layers, int heads, ProbeSinks sinks)
    : tokenizer_(tokenizer),
      layers_(layers),
      heads_(heads),
      sinks_(std::move(sinks)),
      entropySum_(size_t(layers * heads), 0.0),
      rowsSeen_(size_t(layers * heads), 0) {}

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
    if (wideCaptureFits())
        interest.attention = [](int64_t, int64_t) { return true; };
    else
        interest.attention = [layer, head](int64_t l, int64_t h) {
            return l == layer && h == head;
        };
    return interest;
}

bool GuiProbe::wideCaptureFits() const {
    const int64_t keys = positions_ + nextStepRows_;
    return int64_t(heads_) * nextStepRows_ * keys * 4 <= budgetBytes_.load();
}

widgets::TokenChip GuiProbe::chipFor(int32_t id, bool generated) const {
    widgets::TokenChip chip;
    chip.id = id;
    chip.piece = QString::fromStdString(tokenizer_.piece(id));
    chip.special = tokenizer_.isSpecial(id);
    chip.byteFallback = tokenizer_.isByte(id);
    chip.generated = generated;
    if (const auto byte = tokenizer_.byteValue(id))
        chip.bytes = QByteArray(1, char(*byte));
    else if (!chip.special)
        chip.bytes = QByteArray::fromStdString(tokenizer_.piece(id)).replace("\xe2\x96\x81", " ");
    return chip;
}

void GuiProbe::onTokenized(const TokenizationInfo& info) {
    std::vector<widgets::TokenChip> chips;
    chips.reserve(info.tokens.size());
    for (const TokenInfo& token : info.tokens) {
        widgets::TokenChip chip;
        chip.id = token.id;
        chip.piece = QString::fromStdString(token.piece);
        chip.bytes = QByteArray::fromStdString(
            info.text.substr(size_t(token.begin), size_t(token.end - token.begin)));
        chip.special = token.special;
        chip.byteFallback = token.byteFallback;
        chips.push_back(std::move(chip));
    }
    // A new generation: its prompt runs next, and the overview starts over.
    positions_ = 0;
    nextStepRows_ = std::max<int64_t>(1, int64_t(chips.size()));
    std::fill(entropySum_.begin(), entropySum_.end(), 0.0);
    std::fill(rowsSeen_.begin(), rowsSeen_.end(), 0);
    promptSkipped_ = !wideCaptureFits();
    overviewChanged_ = true;
    sinks_.tokenized(std::move(chips));
}

void GuiProbe::onStepBegin(const StepEvent& event) {
    timing_ = {};
    timing_.step = int(event.index);
    timing_.prefill = event.phase == StepPhase::Prefill;
    timing_.tokenCount = int(event.tokenCount);
}

void GuiProbe::onLayerEnd(const LayerEvent& event) {
    if (timing_.layerSeconds.size() <= size_t(event.layer))
        timing_.layerSeconds.resize(size_t(event.layer) + 1);
    timing_.layerSeconds[size_t(event.layer)] = event.seconds;
}

void GuiProbe::onAttention(const AttentionEvent& event) {
    if (event.layer < layers_ && event.head < heads_) {
        const size_t cell = size_t(event.layer * heads_ + event.head);
        for (int64_t row = 0; row < event.queryCount; ++row)
            entropySum_[cell] += widgets::AttentionOverviewWidget::rowEntropy(
                event.weights.subspan(size_t(row * event.keyCount), size_t(event.keyCount)));
        rowsSeen_[cell] += event.queryCount;
        overviewChanged_ = true;
    }
    if (event.layer == selectedLayer_.load())
        sinks_.attention(toAttentionMatrix(event));
}

void GuiProbe::onKvCache(int64_t, const KvCacheStats& stats) {
    widgets::KvCachePoint point;
    point.tokens = stats.tokens;
    point.bytesUsed = stats.bytesUsed;
    point.bytesAllocated = stats.bytesAllocated;
    point.bytesFullMultiHead = stats.bytesUsedFullMultiHead;
    point.bytesPerLayer.assign(stats.bytesUsedPerLayer.begin(), stats.bytesUsedPerLayer.end());
    sinks_.kvCache(std::move(point));
}

void GuiProbe::onSampling(int64_t step, const SamplingTrace& trace) {
    sinks_.sampling(toSamplingStep(step, trace, tokenizer_));
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
