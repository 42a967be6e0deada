#include "eliding_label.h"

#include <QFontMetrics>
#include <QResizeEvent>

namespace inferlens::gui {

ElidingLabel::ElidingLabel(QWidget* parent) : QLabel(parent) {
    setTextFormat(Qt::PlainText);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
}

void ElidingLabel::setFullText(const QString& text) {
    fullText_ = text;
    updateGeometry();
    elide();
}

QSize ElidingLabel::minimumSizeHint() const {
    // Room for a few characters and the ellipsis; the rest of the text is in the tooltip.
    return {fontMetrics().horizontalAdvance(QStringLiteral("MMMMMM…")),
            QLabel::minimumSizeHint().height()};
}

QSize ElidingLabel::sizeHint() const {
    return {fontMetrics().horizontalAdvance(fullText_) + 2 * margin() + 4,
            QLabel::sizeHint().height()};
}

void ElidingLabel::resizeEvent(QResizeEvent* event) {
    QLabel::resizeEvent(event);
    elide();
}

void ElidingLabel::elide() {
    QLabel::setText(fontMetrics().elidedText(fullText_, Qt::ElideRight, contentsRect().width()));
}

}  // namespace inferlens::gui
