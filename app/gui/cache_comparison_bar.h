#pragma once
// Under the sampling chart: what the KV cache in use (f16, int8, a sliding window) does to the
// current step's next-token distribution. On demand, since it costs a shadow prefill of the whole
// sequence with an exact cache (EngineWorker::compareWithExactCache).

#include <QWidget>

class QLabel;
class QPushButton;

namespace inferlens::gui {

class EngineWorker;
struct CacheComparisonSummary;

class CacheComparisonBar : public QWidget {
    Q_OBJECT
  public:
    explicit CacheComparisonBar(EngineWorker* worker, QWidget* parent = nullptr);
    QString resultText() const;

  protected:
    void changeEvent(QEvent* event) override;

  private:
    void retranslate();
    void showResult(const CacheComparisonSummary& summary);

    EngineWorker* worker_;
    QPushButton* compare_;
    QLabel* result_;
};

}  // namespace inferlens::gui
