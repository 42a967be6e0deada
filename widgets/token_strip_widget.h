#pragma once
// The prompt and the generated tokens as chips in a wrapping flow. Chips are painted, not child
// widgets, and their layout is cached and extended one chip at a time, so a conversation of
// thousands of tokens costs one rectangle per chip and a new token costs one more.

#include <QWidget>
#include <vector>

#include "panel_data.h"

namespace inferlens::widgets {

class TokenStripWidget : public QWidget {
    Q_OBJECT
  public:
    explicit TokenStripWidget(QWidget* parent = nullptr);

    void setTokens(std::vector<TokenChip> tokens);
    void appendToken(TokenChip token);
    void clear();

    int tokenCount() const { return int(tokens_.size()); }
    const TokenChip& token(int position) const { return tokens_[size_t(position)]; }

    // -1: nothing selected. Setting it does not emit positionSelected (only a click does), so that
    // panels can follow each other without echoing.
    void setSelectedPosition(int position);
    int selectedPosition() const { return selected_; }

    // Where a chip is drawn at the current width (empty for a position out of range); the chip
    // under a point (-1 if none); the text on a chip and its tooltip.
    QRect chipRect(int position) const;
    int chipAt(QPoint point) const;
    QString chipText(int position) const;
    QString chipToolTip(int position) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;

  signals:
    void positionSelected(int position);

  protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

  private:
    struct Metrics {
        int chipHeight, padding, spacing, margin, maxChipWidth;
    };
    Metrics metrics() const;
    // Measures the chip of tokens_[index] (its text and width), kept in texts_ / widths_.
    void measure(size_t index);
    void remeasureAll();
    // Places chips after the last one laid out, at the current width; restarts when the width
    // changed.
    void ensureLayout() const;
    // Height the flow needs at `width`, without touching the cached layout.
    int flowHeight(int width) const;
    void contentsChanged();

    std::vector<TokenChip> tokens_;
    std::vector<QString> texts_;  // what each chip shows, whitespace made visible, elided
    std::vector<int> widths_;     // each chip's width in pixels
    int selected_ = -1;

    mutable std::vector<QRect> rects_;  // chips laid out so far, in position order
    mutable int layoutWidth_ = -1;
    mutable QPoint cursor_;  // where the next chip would go
    mutable int lastHeight_ = -1;
};

}  // namespace inferlens::widgets
