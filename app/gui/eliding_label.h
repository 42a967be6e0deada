#pragma once
// A one-line label that shortens its text with "…" to the width it is given instead of asking the
// window for the width of the whole text: the model bar's description must not push the run
// controls off a 1366-pixel screen. The whole text stays in text() and in the tooltip.

#include <QLabel>

namespace inferlens::gui {

class ElidingLabel : public QLabel {
    Q_OBJECT

  public:
    explicit ElidingLabel(QWidget* parent = nullptr);

    void setFullText(const QString& text);
    const QString& fullText() const { return fullText_; }
    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

  protected:
    void resizeEvent(QResizeEvent* event) override;

  private:
    void elide();

    QString fullText_;
};

}  // namespace inferlens::gui
