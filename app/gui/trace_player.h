#pragma once
// Replays a recorded generation trace (trace_reader.h) into the panels without a model: it emits
// the same signals as the engine worker, one generated token (with the steps and attention before
// it) per tick, so that a saved run plays back the way it was generated.

#include <QObject>
#include <QTimer>

#include "trace_reader.h"

namespace inferlens::gui {

class TracePlayer : public QObject {
    Q_OBJECT

  public:
    explicit TracePlayer(QObject* parent = nullptr);

    // Starts over with `trace`, one token every `intervalMs` (0: as fast as the event loop goes).
    void play(RecordedTrace trace, int intervalMs = 30);
    void stop();
    bool playing() const { return timer_.isActive(); }

  signals:
    void tokenized(const std::vector<inferlens::widgets::TokenChip>& chips);
    void tokenGenerated(const inferlens::widgets::TokenChip& chip, const QString& text);
    void attention(const inferlens::widgets::AttentionMatrix& matrix);
    void kvCache(const inferlens::widgets::KvCachePoint& point);
    void sampling(const inferlens::widgets::SamplingStep& step);
    void loopTiming(const inferlens::widgets::LoopTiming& timing);
    // The whole trace was played; `reason` is how the recorded generation ended.
    void finished(const QString& reason);

  private:
    void tick();

    RecordedTrace trace_;
    size_t next_ = 0;
    QTimer timer_;
};

}  // namespace inferlens::gui
