#include "trace_player.h"

namespace inferlens::gui {

TracePlayer::TracePlayer(QObject* parent) : QObject(parent) {
    connect(&timer_, &QTimer::timeout, this, &TracePlayer::tick);
}

void TracePlayer::play(RecordedTrace trace, int intervalMs) {
    trace_ = std::move(trace);
    next_ = 0;
    timer_.start(intervalMs);
}

void TracePlayer::stop() {
    timer_.stop();
}

void TracePlayer::tick() {
    // Everything up to and including the next generated token.
    while (next_ < trace_.events.size()) {
        const TraceEvent& event = trace_.events[next_++];
        if (const auto* chips = std::get_if<std::vector<widgets::TokenChip>>(&event)) {
            emit tokenized(*chips);
        } else if (const auto* token = std::get_if<GeneratedToken>(&event)) {
            emit tokenGenerated(token->chip, token->text);
            return;
        } else if (const auto* matrix = std::get_if<widgets::AttentionMatrix>(&event)) {
            emit attention(*matrix);
        } else if (const auto* point = std::get_if<widgets::KvCachePoint>(&event)) {
            emit kvCache(*point);
        } else if (const auto* step = std::get_if<widgets::SamplingStep>(&event)) {
            emit sampling(*step);
        } else if (const auto* timing = std::get_if<widgets::LoopTiming>(&event)) {
            emit loopTiming(*timing);
        }
    }
    timer_.stop();
    emit finished(trace_.finishReason);
}

}  // namespace inferlens::gui
