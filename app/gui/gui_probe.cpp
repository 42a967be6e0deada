#include "gui_probe.h"

#include "sampling/sampling_trace.h"

namespace inferlens::gui {

GuiProbe::GuiProbe(const Tokenizer& tokenizer, ProbeSinks sinks)
    : tokenizer_(tokenizer), sinks_(std::move(sinks)) {}

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
    interest.attention = [layer, head](int64_t l, int64_t h) { return l == layer && h == head; };
    return interest;
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
    widgets::AttentionMatrix matrix;
    matrix.layer = int(event.layer);
    matrix.head = int(event.head);
    matrix.firstQuery = int(event.firstQuery);
    matrix.queryCount = int(event.queryCount);
    matrix.keyCount = int(event.keyCount);
    matrix.weights.assign(event.weights.begin(), event.weights.end());
    sinks_.attention(std::move(matrix));
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
    widgets::SamplingStep snapshot;
    snapshot.step = int(step);
    for (const TraceCandidate& candidate : trace.candidates) {
        widgets::SamplingCandidate row;
        row.id = candidate.id;
        row.label = QString::fromStdString(tokenizer_.piece(candidate.id));
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
    sinks_.sampling(std::move(snapshot));
}

void GuiProbe::onStepEnd(const StepEvent& event) {
    timing_.stepSeconds = event.seconds;
    sinks_.loopTiming(timing_);
}

}  // namespace inferlens::gui
