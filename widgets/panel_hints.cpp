#include "panel_hints.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <QWidget>

namespace inferlens::widgets {

void paintPlaceholder(QPainter& painter, const QWidget& widget, const QString& text) {
    painter.setPen(widget.palette().color(QPalette::PlaceholderText));
    painter.drawText(widget.rect(), Qt::AlignCenter, text);
}

bool answerToolTip(QWidget* widget, QEvent* event, const QString& text, const QRect& area) {
    if (text.isEmpty()) {
        QToolTip::hideText();
        event->ignore();
    } else {
        QToolTip::showText(static_cast<QHelpEvent*>(event)->globalPos(), text, widget, area);
    }
    return true;
}

}  // namespace inferlens::widgets
