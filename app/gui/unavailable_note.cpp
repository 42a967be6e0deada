#include "unavailable_note.h"

#include <QEvent>

namespace inferlens::gui {

UnavailableNote::UnavailableNote(QWidget* panel, std::function<QString()> text)
    : QLabel(panel), text_(std::move(text)) {
    setObjectName(QStringLiteral("unavailableNote"));
    setAlignment(Qt::AlignCenter);
    setWordWrap(true);
    setMargin(16);
    setAutoFillBackground(true);
    QPalette ground = palette();
    ground.setColor(QPalette::Window, ground.color(QPalette::Window).lighter(104));
    ground.setColor(QPalette::WindowText, ground.color(QPalette::PlaceholderText));
    setPalette(ground);
    retranslate();
    setGeometry(panel->rect());
    panel->installEventFilter(this);
    hide();
}

bool UnavailableNote::eventFilter(QObject* watched, QEvent* event) {
    if (watched == parent() && event->type() == QEvent::Resize)
        setGeometry(parentWidget()->rect());
    return QLabel::eventFilter(watched, event);
}

}  // namespace inferlens::gui
