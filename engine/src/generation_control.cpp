#include "generation_control.h"

namespace inferlens {

void GenerationControl::cancel() {
    {
        std::lock_guard lock(mutex_);
        cancelled_ = true;
    }
    changed_.notify_all();
}

void GenerationControl::pause() {
    std::lock_guard lock(mutex_);
    paused_ = true;
}

void GenerationControl::resume() {
    {
        std::lock_guard lock(mutex_);
        paused_ = false;
    }
    changed_.notify_all();
}

void GenerationControl::stepLayer() {
    {
        std::lock_guard lock(mutex_);
        ++layerPasses_;
    }
    changed_.notify_all();
}

void GenerationControl::stepToken() {
    {
        std::lock_guard lock(mutex_);
        runToToken_ = true;
    }
    changed_.notify_all();
}

void GenerationControl::clearCancel() {
    std::lock_guard lock(mutex_);
    cancelled_ = false;
}

bool GenerationControl::checkpoint() {
    if (!paused_.load(std::memory_order_relaxed))
        return !cancelled_.load(std::memory_order_relaxed);
    std::unique_lock lock(mutex_);
    changed_.wait(lock,
                  [this] { return !paused_ || cancelled_ || layerPasses_ > 0 || runToToken_; });
    if (paused_ && !runToToken_ && layerPasses_ > 0)
        --layerPasses_;
    return !cancelled_;
}

void GenerationControl::tokenChosen() {
    if (!paused_.load(std::memory_order_relaxed))
        return;
    std::lock_guard lock(mutex_);
    runToToken_ = false;
}

}  // namespace inferlens
