#pragma once
// Cancel and pause for a generation running on another thread. The engine checks between layers,
// so a request takes effect within one layer. Thread-safe: any thread may call cancel, pause and
// resume; only the engine's thread calls checkpoint.

#include <atomic>
#include <condition_variable>
#include <mutex>

namespace inferlens {

class GenerationControl {
  public:
    void cancel();
    void pause();
    void resume();
    bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }
    bool paused() const { return paused_.load(std::memory_order_relaxed); }

    // Waits while paused; returns false when the generation is cancelled (also while paused).
    bool checkpoint();

  private:
    std::atomic<bool> cancelled_{false};
    std::atomic<bool> paused_{false};
    std::mutex mutex_;
    std::condition_variable changed_;
};

}  // namespace inferlens
