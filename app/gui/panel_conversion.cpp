#include "panel_conversion.h"

#include <algorithm>
#include <limits>

#include <QCoreApplication>
#include <cmath>

#include "display_text.h"
#include "sampling/sampler.h"

namespace inferlens::gui {

std::vector<widgets::TokenChip> promptChips(const TokenizationInfo& info) {
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
    return chips;
}

widgets::TokenChip tokenChip(int32_t id, const std::string& piece, bool special,
                             std::optional<uint8_t> byte, bool generated) {
    widgets::TokenChip chip;
    chip.id = id;
    chip.piece = QString::fromStdString(piece);
    chip.special = special;
    chip.byteFallback = byte.has_value();
    chip.generated = generated;
    if (byte)
        chip.bytes = QByteArray(1, char(*byte));
    else if (!special)
        chip.bytes = widgets::pieceBytes(QString::fromStdString(piece));
    return chip;
}

std::vector<std::string> candidatePieces(const SamplingTrace& trace, const Tokenizer& tokenizer) {
    std::vector<std::string> pieces;
    pieces.reserve(trace.candidates.size() + trace.masked.size());
    for (const TraceCandidate& candidate : trace.candidates)
        pieces.push_back(tokenizer.piece(candidate.id));
    for (const MaskedCandidate& masked : trace.masked)
        pieces.push_back(tokenizer.piece(masked.id));
    return pieces;
}

namespace {

QString processorName(SamplingStage stage) {
    switch (stage) {
        case SamplingStage::LogitBias:
            return QCoreApplication::translate("SamplingStage", "logit bias");
        case SamplingStage::BannedText:
            return QCoreApplication::translate("SamplingStage", "banned text");
        case SamplingStage::MinNewTokens:
            return QCoreApplication::translate("SamplingStage", "min new tokens");
        default:
            return QString::fromUtf8(samplingStageName(stage));
    }
}

// The four stages the chart draws, from a trace candidate's.
std::array<float, widgets::kSamplingStageCount> stageProbabilities(
    const TraceCandidate& candidate) {
    return {candidate.probability[size_t(SamplingStage::Raw)],
            candidate.probability[size_t(SamplingStage::Penalties)],
            candidate.probability[size_t(SamplingStage::Temperature)],
            candidate.finalProbability()};
}

}  // namespace

widgets::SamplingStep samplingStep(int64_t step, const SamplingTrace& trace,
                                   std::span<const std::string> pieces) {
    widgets::SamplingStep snapshot;
    snapshot.step = int(step);
    for (size_t i = 0; i < trace.candidates.size(); ++i) {
        const TraceCandidate& candidate = trace.candidates[i];
        widgets::SamplingCandidate row;
        row.id = candidate.id;
        // What the piece spells (a byte-level "Ġthe" reads "␣the"), as the token strip shows it.
        row.label = widgets::tokenDisplayText(QString::fromStdString(pieces[i]), {}, false);
        row.probability = stageProbabilities(candidate);
        row.kept = candidate.kept();
        snapshot.cutoffIndex += row.kept ? 1 : 0;
        snapshot.candidates.push_back(std::move(row));
    }
    // Masked tokens' pieces follow the candidates' (candidatePieces); a trace read from a file
    // gives none.
    for (size_t i = 0; i < trace.masked.size() && trace.candidates.size() + i < pieces.size();
         ++i) {
        const MaskedCandidate& masked = trace.masked[i];
        snapshot.masked.push_back({QString::fromStdString(pieces[trace.candidates.size() + i]),
                                   float(std::exp(double(masked.rawLogit) - trace.rawLogSumExp)),
                                   processorName(masked.maskedBy)});
    }
    if (!trace.params.grammar.empty())
        snapshot.grammarAllowed = trace.keptAfter(SamplingStage::Grammar);
    snapshot.nucleusMass = trace.nucleusMass;
    snapshot.chosenIndex =
        trace.chosenRank < int64_t(trace.candidates.size()) ? int(trace.chosenRank) : -1;
    snapshot.entropy = trace.entropyAfter(kFinalSamplingStage);
    snapshot.chosenProbability = trace.chosenProbability;
    if (trace.server) {
        snapshot.fromServer = true;
        snapshot.unknownMass = std::max(0.0, 1.0 - trace.server->knownMass);
        snapshot.cutoffIndex = int(snapshot.candidates.size());
        snapshot.entropy = std::numeric_limits<double>::quiet_NaN();  // the tail's split is unknown
    }
    return snapshot;
}

widgets::SamplingStep reshapeServerStep(const widgets::SamplingStep& step,
                                        const SamplingParams& params) {
    std::vector<float> logits;  // log-probabilities: logits whose softmax is the top-N alone
    for (const widgets::SamplingCandidate& candidate : step.candidates)
        logits.push_back(std::log(std::max(candidate.probability[widgets::kStageRaw], 1e-30f)));
    widgets::SamplingStep reshaped = step;
    reshaped.reshapedTopN = true;
    reshaped.candidates.clear();
    if (logits.empty())
        return reshaped;
    SamplingParams local = params;
    local.grammar.clear();  // the processors need the vocabulary's texts: not here
    local.bannedTexts.clear();
    local.minNewTokens = 0;
    local.logitBias.clear();
    local.traceTopN = int(logits.size());
    const Sampler sampler(local, int64_t(logits.size()));
    const SamplingTrace trace = sampler.preview(local, logits, {}, 0.5);
    reshaped.cutoffIndex = 0;
    reshaped.chosenIndex = -1;
    for (const TraceCandidate& candidate : trace.candidates) {
        widgets::SamplingCandidate row = step.candidates[size_t(candidate.id)];
        row.probability = stageProbabilities(candidate);
        row.kept = candidate.kept();
        reshaped.cutoffIndex += row.kept ? 1 : 0;
        if (int(candidate.id) == step.chosenIndex)
            reshaped.chosenIndex = int(reshaped.candidates.size());
        reshaped.candidates.push_back(std::move(row));
    }
    reshaped.nucleusMass = trace.nucleusMass;
    reshaped.entropy = trace.entropyAfter(kFinalSamplingStage);
    return reshaped;
}

widgets::AttentionMatrix attentionMatrix(const AttentionEvent& event) {
    widgets::AttentionMatrix matrix;
    matrix.layer = int(event.layer);
    matrix.head = int(event.head);
    matrix.firstQuery = int(event.firstQuery);
    matrix.queryCount = int(event.queryCount);
    matrix.keyCount = int(event.keyCount);
    matrix.weights.assign(event.weights.begin(), event.weights.end());
    if (event.windowTokens > 0)
        for (int row = 0; row < matrix.queryCount; ++row) {
            // The keys between the sinks and the row's window.
            const int64_t position = event.firstQuery + row;
            const int64_t end =
                std::min<int64_t>(position - event.windowTokens + 1, event.keyCount);
            auto rowWeights = matrix.weights.begin() + ptrdiff_t(row) * matrix.keyCount;
            for (int64_t key = event.sinkTokens; key < end; ++key)
                rowWeights[key] = widgets::AttentionMatrix::kEvicted;
        }
    // A local layer's window hides the keys before it whatever the cache holds (on such a layer
    // it is the narrower window, models/model.cpp), so its label wins. The user's sinks are
    // hidden there too, by the layer, when they fall before the narrower window.
    if (event.layerWindowTokens > 0)
        for (int row = 0; row < matrix.queryCount; ++row) {
            const int64_t position = event.firstQuery + row;
            int64_t end = position - event.layerWindowTokens + 1;
            if (event.windowTokens > 0)
                end = std::max(end, std::min(event.sinkTokens, position - event.windowTokens + 1));
            end = std::min<int64_t>(end, event.keyCount);
            auto rowWeights = matrix.weights.begin() + ptrdiff_t(row) * matrix.keyCount;
            for (int64_t key = 0; key < end; ++key)
                rowWeights[key] = widgets::AttentionMatrix::kOutsideWindow;
        }
    return matrix;
}

widgets::KvCachePoint kvCachePoint(const KvCacheStats& stats) {
    widgets::KvCachePoint point;
    point.tokens = stats.tokens;
    point.position = stats.tokens + stats.evictedTokens;
    point.bytesUsed = stats.bytesUsed;
    point.bytesAllocated = stats.bytesAllocated;
    point.bytesFullMultiHead = stats.bytesUsedFullMultiHead;
    point.bytesPerLayer.assign(stats.bytesUsedPerLayer.begin(), stats.bytesUsedPerLayer.end());
    point.type = QString::fromLatin1(kvTypeName(stats.type));
    point.bytesAsF32 = stats.bytesUsedAsF32;
    point.slides = stats.slides;
    point.sinks = stats.sinkTokens;
    point.evicted = stats.evictedTokens;
    return point;
}

widgets::BeamTreeNode beamTreeNode(const BeamNode& node, const widgets::TokenChip& chip) {
    widgets::BeamTreeNode out;
    out.id = node.id;
    out.parent = node.parent;
    out.step = int(node.step);
    out.label =
        widgets::visibleWhitespace(widgets::tokenDisplayText(chip.piece, chip.bytes, chip.special));
    out.tokenLogProbability = node.tokenLogProbability;
    out.logProbability = node.logProbability;
    switch (node.fate) {
        case BeamNode::Fate::Kept:
            out.fate = widgets::BeamTreeNode::Fate::Kept;
            break;
        case BeamNode::Fate::Pruned:
            out.fate = widgets::BeamTreeNode::Fate::Pruned;
            break;
        case BeamNode::Fate::Finished:
            out.fate = widgets::BeamTreeNode::Fate::Finished;
            break;
    }
    return out;
}

}  // namespace inferlens::gui
