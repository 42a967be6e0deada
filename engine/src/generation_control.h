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
    // While paused: let exactly one more layer run, or run until the next token is chosen; the
    // generation is paused again afterwards (the teaching views' "step" buttons).
    void stepLayer();
    void stepToken();
    // Clears a cancel left by the previous generation (call before starting one); a pause and
    // pending steps stay, so a generation started while paused can be stepped from its start.
    void clearCancel();
    bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }
    bool paused() const { return paused_.load(std::memory_order_relaxed); }
    // The cancel flag itself, for waits that poll it (a request to a server, remote/).
    const std::atomic<bool>& cancelFlag() const { return cancelled_; }

    // Waits while paused; returns false when the generation is cancelled (also while paused).
    bool checkpoint();
    // The engine chose a token: ends a stepToken().
    void tokenChosen();

  private:
    std::atomic<bool> cancelled_{false};
    std::atomic<bool> paused_{false};
    std::mutex mutex_;
    std::condition_variable changed_;
    int layerPasses_ = 0;      // checkpoints that may pass while paused (stepLayer)
    bool runToToken_ = false;  // checkpoints pass while paused until tokenChosen (stepToken)
};

}  // namespace inferlens
