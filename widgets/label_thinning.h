#pragma once
// Text placement shared by the QPainter-drawn panels (heat map, overview, head grid, double loop,
// beam tree). Each panel lays its texts out once per geometry change as PlacedTexts, paints exactly
// those, and reports them as DrawnTexts: what the layout tests measure is what was drawn. Crowded
// axes keep every k-th label; long labels are elided; a colour bar keeps only the tick labels that
// fit apart.

#include <QFontMetrics>
#include <QRect>
#include <QString>
#include <utility>
#include <vector>

#include "colour_map.h"
#include "drawn_text.h"

class QPainter;
class QPalette;
class QWidget;

namespace inferlens::widgets {

struct PlacedText {
    DrawnText drawn;  // rect: the text's own box (advance × line height), rotated if vertical
    bool vertical = false;  // drawn rotated by −90° (reading upwards)
};
using PlacedTexts = std::vector<PlacedText>;

// A text whose box is `width` × metrics.height() with its left edge, right edge or centre at `x`
// (align: Qt::AlignLeft, AlignRight or AlignHCenter) and its vertical centre at `centreY`.
PlacedText placeText(const QFontMetrics& metrics, const QString& text, int x, int centreY,
                     Qt::Alignment align, DrawnText::Kind kind);
// Rotated −90°: its rotated box has the line height as width, centred on `centreX`, and its top
// (the end of the text) `top`.
PlacedText placeVerticalText(const QFontMetrics& metrics, const QString& text, int centreX, int top,
                             DrawnText::Kind kind);

// The sentence a panel shows while it has nothing to draw, centred and elided to the panel.
PlacedText placePlaceholder(const QWidget& panel, const QString& text);

// Labels every k-th of items `pitch` pixels apart so that labels `extent` pixels long along the
// axis stay `gap` pixels apart.
int labelStep(double pitch, int extent, int gap = 2);

// The ticks of a colour bar whose labels fit beside `bar` without touching each other: the two ends
// first, then the inner ones that have room. Labels are elided to `labelWidth`.
PlacedTexts colourLegendLabels(const QFontMetrics& metrics, const QRect& bar,
                               const std::vector<std::pair<double, QString>>& ticks,
                               int labelWidth);
// The bar, and a tick mark at the centre of each of `texts`' Legend labels (the labels themselves
// are painted with the panel's other texts).
void paintColourBar(QPainter& painter, const QRect& bar, const ColourMap& map,
                    const PlacedTexts& texts, const QPalette& palette);

// The part of `rect` (in `viewport`'s coordinates) that `viewport` shows, in `panel`'s coordinates:
// where an item view (table, list, text browser) draws an item's text, clipped to its cell.
QRectF shownIn(const QWidget& panel, const QWidget& viewport, const QRectF& rect);

// Draws a text in its box, in the painter's current pen and font.
void paintText(QPainter& painter, const PlacedText& text);
void paintTexts(QPainter& painter, const PlacedTexts& texts);
DrawnTexts drawnTextsOf(const PlacedTexts& texts);

// True when `rect` intersects none of `placed` (touching edges do not count).
bool fitsAmong(const QRectF& rect, const PlacedTexts& placed);
// Adds `text` to `placed` when it lies within `bounds` and touches none of them (a thinned label
// that would still collide, e.g. with the title or a selected label, is left out).
void placeIfFree(PlacedTexts& placed, PlacedText text, const QRect& bounds);

}  // namespace inferlens::widgets
