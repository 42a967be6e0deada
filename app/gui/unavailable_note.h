#pragma once
// A note laid over a panel whose content the model in use cannot give — attention, the KV cache,
// the layers of a model on a server, which the API does not return: it covers the panel, says
// why, and follows the panel's size.

#include <QLabel>
#include <functional>

namespace inferlens::gui {

class UnavailableNote : public QLabel {
    Q_OBJECT

  public:
    // `text` is asked again on every language change (retranslate).
    UnavailableNote(QWidget* panel, std::function<QString()> text);
    void retranslate() { setText(text_()); }

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    std::function<QString()> text_;
};

}  // namespace inferlens::gui
