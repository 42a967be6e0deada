#include "token_strip_widget.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <algorithm>

#include "display_text.h"
#include "panel_hints.h"

namespace inferlens::widgets {

namespace {

// Chip fills are light and fixed (the text on them is always dark), so that prompt, answer,
// special and byte-fallback tokens read the same in a light or a dark theme.
struct ChipStyle {
    QColor fill, border;
};
const ChipStyle kPrompt{QColor(0xE3, 0xEE, 0xF9), QColor(0x8F, 0xAE, 0xD1)};
const ChipStyle kGenerated{QColor(0xE2, 0xF3, 0xDE), QColor(0x7F, 0xB8, 0x77)};
const ChipStyle kSpecial{QColor(0xEC, 0xE0, 0xF6), QColor(0x8E, 0x5C, 0xB8)};
const ChipStyle kByteFallback{QColor(0xFC, 0xE8, 0xD0), QColor(0xD0, 0x86, 0x34)};
const QColor kChipText(0x20, 0x20, 0x20);
const QColor kGeneratedMark(0x3C, 0x9A, 0x3A);

const ChipStyle& styleFor(const TokenChip& token) {
    if (token.special) {
        return kSpecial;
    }
    if (token.byteFallback) {
        return kByteFallback;
    }
    return token.generated ? kGenerated : kPrompt;
}

}  // namespace

TokenStripWidget::TokenStripWidget(QWidget* parent) : QWidget(parent) {
    // A QScrollArea asks a widget with this policy for its height at the viewport's width.
    QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

TokenStripWidget::Metrics TokenStripWidget::metrics() const {
    const int text = fontMetrics().height();
    return {text + 6, 5, 3, 4, 16 * fontMetrics().averageCharWidth()};
}

void TokenStripWidget::measure(size_t index) {
    const TokenChip& token = tokens_[index];
    const Metrics m = metrics();
    const QFontMetrics fm = fontMetrics();
    QString text = tokenDisplayText(token.piece, token.bytes, token.special);
    text = fm.elidedText(text, Qt::ElideRight, m.maxChipWidth - 2 * m.padding);
    const int width = std::max(fm.horizontalAdvance(text) + 2 * m.padding, m.chipHeight / 2);
    if (index < texts_.size()) {
        texts_[index] = std::move(text);
        widths_[index] = width;
    } else {
        texts_.push_back(std::move(text));
        widths_.push_back(width);
    }
}

void TokenStripWidget::remeasureAll() {
    texts_.clear();
    widths_.clear();
    texts_.reserve(tokens_.size());
    widths_.reserve(tokens_.size());
    for (size_t i = 0; i < tokens_.size(); ++i) {
        measure(i);
    }
    layoutWidth_ = -1;
}

void TokenStripWidget::setTokens(std::vector<TokenChip> tokens) {
    tokens_ = std::move(tokens);
    if (selected_ >= tokenCount()) {
        selected_ = -1;
    }
    remeasureAll();
    contentsChanged();
    update();
}

void TokenStripWidget::appendToken(TokenChip token) {
    tokens_.push_back(std::move(token));
    measure(tokens_.size() - 1);
    // Only the new chip is placed and repainted; the rest of the layout stands.
    const QRect rect = chipRect(tokenCount() - 1);
    contentsChanged();
    update(rect.adjusted(-2, -2, 2, 2));
}

void TokenStripWidget::clear() {
    tokens_.clear();
    selected_ = -1;
    remeasureAll();
    contentsChanged();
    update();
}

void TokenStripWidget::setSelectedPosition(int position) {
    if (position < 0 || position >= tokenCount()) {
        position = -1;
    }
    if (position == selected_) {
        return;
    }
    const QRect previous = chipRect(selected_);
    selected_ = position;
    for (const QRect& rect : {previous, chipRect(selected_)}) {
        if (!rect.isNull()) {
            update(rect.adjusted(-3, -3, 3, 3));
        }
    }
}

void TokenStripWidget::ensureLayout() const {
    const Metrics m = metrics();
    const int width = std::max(this->width(), 1);
    if (width != layoutWidth_) {
        layoutWidth_ = width;
        rects_.clear();
        cursor_ = QPoint(m.margin, m.margin);
    }
    rects_.reserve(tokens_.size());
    for (size_t i = rects_.size(); i < tokens_.size(); ++i) {
        const int w = widths_[i];
        if (cursor_.x() > m.margin && cursor_.x() + w > width - m.margin) {
            cursor_ = QPoint(m.margin, cursor_.y() + m.chipHeight + m.spacing);
        }
        rects_.emplace_back(cursor_, QSize(w, m.chipHeight));
        cursor_.rx() += w + m.spacing;
    }
}

int TokenStripWidget::flowHeight(int width) const {
    const Metrics m = metrics();
    if (width == layoutWidth_ || width == this->width()) {
        ensureLayout();
        return rects_.empty() ? m.chipHeight + 2 * m.margin : rects_.back().bottom() + 1 + m.margin;
    }
    int x = m.margin, y = m.margin;
    for (const int w : widths_) {
        if (x > m.margin && x + w > width - m.margin) {
            x = m.margin;
            y += m.chipHeight + m.spacing;
        }
        x += w + m.spacing;
    }
    return y + m.chipHeight + m.margin;
}

int TokenStripWidget::heightForWidth(int width) const {
    return flowHeight(width);
}

QSize TokenStripWidget::sizeHint() const {
    const int width = this->width() > 1 ? this->width() : 480;
    return {width, flowHeight(width)};
}

QSize TokenStripWidget::minimumSizeHint() const {
    const Metrics m = metrics();
    return {m.chipHeight * 3, m.chipHeight + 2 * m.margin};
}

void TokenStripWidget::contentsChanged() {
    // Tell the layout or scroll area only when the height really changed: a token that lands on
    // the current row needs no relayout of the window.
    const int height = flowHeight(width());
    if (height != lastHeight_) {
        lastHeight_ = height;
        updateGeometry();
    }
}

QRect TokenStripWidget::chipRect(int position) const {
    if (position < 0 || position >= tokenCount()) {
        return {};
    }
    ensureLayout();
    return rects_[size_t(position)];
}

int TokenStripWidget::chipAt(QPoint point) const {
    ensureLayout();
    // Rows are in order, so the first chip whose bottom is at or below the point starts its row.
    auto it = std::lower_bound(rects_.begin(), rects_.end(), point.y(),
                               [](const QRect& r, int y) { return r.bottom() < y; });
    for (; it != rects_.end() && it->top() <= point.y(); ++it) {
        if (it->contains(point)) {
            return int(it - rects_.begin());
        }
    }
    return -1;
}

QString TokenStripWidget::chipText(int position) const {
    return position >= 0 && position < tokenCount() ? texts_[size_t(position)] : QString();
}

QString TokenStripWidget::chipToolTip(int position) const {
    if (position < 0 || position >= tokenCount()) {
        return {};
    }
    const TokenChip& token = tokens_[size_t(position)];
    QStringList lines;
    lines << tr("Position %1").arg(position) << tr("id %1").arg(token.id)
          << tr("piece \u201C%1\u201D").arg(token.piece)
          << tr("bytes %1").arg(token.bytes.isEmpty() ? tr("(none)") : hexBytes(token.bytes));
    if (token.special) {
        lines << tr("special token");
    }
    if (token.byteFallback) {
        lines << tr("byte fallback");
    }
    lines << (token.generated ? tr("generated") : tr("prompt"));
    return lines.join(QLatin1Char('\n'));
}

bool TokenStripWidget::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        const int position = chipAt(static_cast<QHelpEvent*>(event)->pos());
        return position < 0 ? answerToolTip(this, event, QString(), QRect())
                            : answerToolTip(this, event, chipToolTip(position), chipRect(position));
    }
    return QWidget::event(event);
}

void TokenStripWidget::paintEvent(QPaintEvent* event) {
    QPainter painter(this);
    const QRect clip = event->rect();
    painter.fillRect(clip, palette().base());
    if (tokens_.empty()) {
        paintPlaceholder(painter, *this, tr("No tokens yet"));
        return;
    }
    ensureLayout();
    painter.setRenderHint(QPainter::Antialiasing);
    const QColor highlight = palette().color(QPalette::Highlight);
    // Only the rows that intersect the exposed area: with thousands of chips most are off screen.
    auto it = std::lower_bound(rects_.begin(), rects_.end(), clip.top() - 3,
                               [](const QRect& r, int y) { return r.bottom() < y; });
    for (; it != rects_.end() && it->top() <= clip.bottom() + 3; ++it) {
        const size_t i = size_t(it - rects_.begin());
        const TokenChip& token = tokens_[i];
        const ChipStyle& style = styleFor(token);
        const QRectF chip = QRectF(*it).adjusted(0.5, 0.5, -0.5, -0.5);
        const bool selected = int(i) == selected_;
        painter.setPen(selected ? QPen(highlight, 2) : QPen(style.border, 1));
        painter.setBrush(style.fill);
        painter.drawRoundedRect(chip, 3, 3);
        if (token.generated) {
            // A bar under generated chips, so that a generated special token still reads as
            // generated.
            painter.fillRect(QRectF(chip.left() + 2, chip.bottom() - 2.5, chip.width() - 4, 2),
                             kGeneratedMark);
        }
        painter.setPen(kChipText);
        painter.drawText(*it, Qt::AlignCenter, texts_[i]);
    }
}

void TokenStripWidget::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) {
        QWidget::mousePressEvent(event);
        return;
    }
    const int position = chipAt(event->position().toPoint());
    if (position >= 0) {
        setSelectedPosition(position);
        emit positionSelected(position);
    }
}

void TokenStripWidget::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    contentsChanged();
}

void TokenStripWidget::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange) {
        remeasureAll();
        contentsChanged();
        update();
    }
}

}  // namespace inferlens::widgets
