#pragma once
// What every panel does the same way: a grey sentence in the middle while it has nothing to show,
// and a tooltip for the item under the pointer.

#include <QRect>
#include <QString>

class QEvent;
class QPainter;
class QWidget;

namespace inferlens::widgets {

// Draws `text` centred in `widget`, in the placeholder colour.
void paintPlaceholder(QPainter& painter, const QWidget& widget, const QString& text);

// Answers a QEvent::ToolTip: shows `text` while the pointer stays in `area`, or, with no text
// (nothing under the pointer), hides the tip and lets the event go on. Returns true (handled).
bool answerToolTip(QWidget* widget, QEvent* event, const QString& text, const QRect& area);

}  // namespace inferlens::widgets
