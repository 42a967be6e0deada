#pragma once
// Measures how long the UI thread's event loop goes without running: a timer asks to fire every
// few milliseconds, and the longest gap between two firings (less the interval) is the longest
// time the UI could not respond — the figure behind "the UI thread never waits for the engine".

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

namespace inferlens::gui {

class StallMonitor : public QObject {
    Q_OBJECT

  public:
    explicit StallMonitor(QObject* parent = nullptr);
    void start();
    void stop();
    double longestStallMs() const { return longestMs_; }

  private:
    void tick();

    QTimer timer_;
    QElapsedTimer clock_;
    qint64 lastNs_ = 0;
    double longestMs_ = 0;
};

}  // namespace inferlens::gui
