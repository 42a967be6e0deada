#pragma once
// What a panel drew as text, in the panel's own coordinates. The layout tests ask each plot for
// these and check that no two of them overlap, that they stay inside the panel, and that no
// legend covers the plot's data area — measured from the widgets themselves, at real screen sizes.

#include <QRectF>
#include <QString>
#include <vector>

namespace inferlens::widgets {

struct DrawnText {
    enum class Kind { Title, TickLabel, AxisLabel, Annotation, Legend };
    QString text;  // what is drawn (a legend: its entries, joined)
    QRectF rect;   // its bounding box as drawn (rotated text: the rotated box's bounds)
    Kind kind = Kind::Annotation;
};

using DrawnTexts = std::vector<DrawnText>;

}  // namespace inferlens::widgets
