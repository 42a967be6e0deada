#include "stall_monitor.h"

#include <algorithm>

namespace inferlens::gui {

namespace {
constexpr int kIntervalMs = 5;
}

StallMonitor::StallMonitor(QObject* parent) : QObject(parent) {
    timer_.setInterval(kIntervalMs);
    timer_.setTimerType(Qt::PreciseTimer);
    connect(&timer_, &QTimer::timeout, this, &StallMonitor::tick);
}

void StallMonitor::start() {
    longestMs_ = 0;
    clock_.start();
    lastNs_ = 0;
    timer_.start();
}

void StallMonitor::stop() {
    tick();
    timer_.stop();
}

void StallMonitor::tick() {
    const qint64 now = clock_.nsecsElapsed();
    longestMs_ = std::max(longestMs_, double(now - lastNs_) / 1e6 - kIntervalMs);
    lastNs_ = now;
}

}  // namespace inferlens::gui
