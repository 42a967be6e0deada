#include "probe.h"

#include <algorithm>

namespace inferlens {

const char* finishReasonName(FinishReason reason) {
    switch (reason) {
        case FinishReason::EndOfSequence:
            return "eos";
        case FinishReason::MaxTokens:
            return "max_tokens";
        case FinishReason::ContextFull:
            return "context_full";
        case FinishReason::Cancelled:
            return "cancelled";
        case FinishReason::StopString:
            return "stop_string";
    }
    return "unknown";
}

void ProbeSet::add(Probe* probe) {
    probes_.push_back(probe);
    refresh();
}

void ProbeSet::remove(Probe* probe) {
    probes_.erase(std::remove(probes_.begin(), probes_.end(), probe), probes_.end());
    refresh();
}

void ProbeSet::refresh() {
    interests_.clear();
    wants_ = {};
    anyAttention_ = false;
    for (const Probe* probe : probes_) {
        interests_.push_back(probe->interest());
        const ProbeInterest& interest = interests_.back();
        wants_.tokenization |= interest.tokenization;
        wants_.steps |= interest.steps;
        wants_.layers |= interest.layers;
        wants_.kvCache |= interest.kvCache;
        wants_.sampling |= interest.sampling;
        wants_.finished |= interest.finished;
        wants_.hiddenStates |= interest.hiddenStates;
        anyAttention_ |= bool(interest.attention);
    }
}

void ProbeSet::attention(const AttentionEvent& event) const {
    for (size_t i = 0; i < probes_.size(); ++i)
        if (interests_[i].attention && interests_[i].attention(event.layer, event.head))
            probes_[i]->onAttention(event);
}

bool ProbeSet::wantsAttention(int64_t layer, int64_t head) const {
    return std::any_of(interests_.begin(), interests_.end(), [&](const ProbeInterest& interest) {
        return interest.attention && interest.attention(layer, head);
    });
}

}  // namespace inferlens
