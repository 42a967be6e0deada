#pragma once
// Where a QCustomPlot draws its texts, and the tools the chart widgets use to keep those texts
// from overprinting each other at any size. QCustomPlot does not report where it put a tick label,
// so tickLabelRect() mirrors QCPAxisPainterPrivate (placeTickLabel, getTickLabelData,
// getTickLabelDrawOffset of QCustomPlot 2.1); the widget tests check it against rendered pixels.

#include <QString>
#include <QStringList>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

#include <qcustomplot.h>

#include "drawn_text.h"

namespace inferlens::widgets {

// The box a tick label of `axis` at `pixel` (along the axis) takes, rotated labels included.
QRectF tickLabelRect(const QCPAxis* axis, double pixel, const QString& text);
// The tick labels and the label of a visible axis as they were drawn by the last replot; tick
// labels QCustomPlot skips because they would cross the viewport's border are left out.
void appendAxisTexts(const QCPAxis* axis, DrawnTexts& out);
// The visible axes of an axis rect.
void appendAxisRectTexts(const QCPAxisRect* rect, DrawnTexts& out);
// A title (its text's box inside the element), a legend (its outer rect, its entries' names) and
// a text item (the bounds of its possibly rotated box), each only when visible.
void appendTextElement(const QCPTextElement* element, DrawnText::Kind kind, DrawnTexts& out);
void appendLegend(const QCPLegend* legend, DrawnTexts& out);
void appendItemText(const QCPItemText* item, DrawnTexts& out);
// The bounds of a text item's box in pixels.
QRectF itemTextRect(const QCPItemText* item);

// `text` broken into lines no wider than `width` at spaces; a word wider than a line is elided.
// Past `mostLines` lines the text is cut, the last line ending in an ellipsis, and `cut` says so.
QString wrapText(const QString& text, const QFont& font, int width,
                 int mostLines = std::numeric_limits<int>::max(), bool* cut = nullptr);
// A title wrapped to the plot's width, in as many lines as leave the plot most of the height; the
// full text goes to the plot's tooltip when it had to be cut.
void fitTitle(QCPTextElement* title, const QString& text);
// The axis label elided to the axis' length (empty when not even a few letters fit).
void fitAxisLabel(QCPAxis* axis, const QString& label);
// Fewer ticks until neighbouring tick labels leave a gap between them (numeric tickers only: a
// QCPAxisTickerText's labels are the caller's).
void fitTickCount(QCPAxis* axis);
// As many legend columns (up to `most`) as fit in `width`.
void fitLegendColumns(QCPLegend* legend, int width, int most);
// Fits the tick counts and labels of `axes` (each with its full label), then runs `layOut` (the
// plot's own layout pass, which QCustomPlot keeps protected, with whatever else its caller fits
// first); twice, since the labels chosen change the margins, which change the lengths they were
// fitted to.
void fitAxesTwice(const std::vector<std::pair<QCPAxis*, QString>>& axes,
                  const std::function<void()>& layOut);
// Takes the legend out of the axis rect, where it would cover the data, into a row of its own
// inserted at `row` of the plot layout, as tall as the legend needs; shown, with no frame or fill.
void putLegendInRow(QCustomPlot& plot, QCPLegend* legend, int row);
// Room the vertical axes' outermost tick labels need above and below their axis rect (half a
// label), so that they stay out of the row above and the bottom axis' labels.
void reserveTickLabelOverhang(QCPAxisRect* rect);
// Moves a text item into `area` if it sticks out; hides it when it cannot fit. Returns whether it
// is shown.
bool keepItemInside(QCPItemText* item, const QRect& area);

}  // namespace inferlens::widgets
