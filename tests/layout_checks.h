#pragma once
// What the layout tests ask of a panel's drawn texts (DrawnTexts): no two overlap, each lies inside
// the panel, no legend covers the data area. Each check answers with what went wrong, naming the
// texts and their rectangles, or an empty string.

#include <QRect>
#include <QString>
#include <QStringList>

#include "drawn_text.h"

namespace inferlens::widgets::testing {

inline QString describe(const DrawnText& t) {
    const QRectF& r = t.rect;
    return QStringLiteral("\"%1\" (%2,%3 %4×%5)")
        .arg(t.text)
        .arg(r.x())
        .arg(r.y())
        .arg(r.width())
        .arg(r.height());
}

inline QString layoutProblems(const DrawnTexts& texts, const QRect& bounds, const QRect& dataArea) {
    QStringList problems;
    for (size_t i = 0; i < texts.size(); ++i) {
        const DrawnText& a = texts[i];
        if (a.rect.isEmpty() && !a.text.isEmpty())
            problems << QStringLiteral("empty box for %1").arg(describe(a));
        if (!QRectF(bounds).contains(a.rect))
            problems << QStringLiteral("outside the panel: %1").arg(describe(a));
        if (a.kind == DrawnText::Kind::Legend && a.rect.intersects(QRectF(dataArea)))
            problems << QStringLiteral("legend on the data area: %1").arg(describe(a));
        for (size_t j = i + 1; j < texts.size(); ++j) {
            if (a.rect.intersects(texts[j].rect))
                problems
                    << QStringLiteral("overlap: %1 and %2").arg(describe(a), describe(texts[j]));
        }
    }
    return problems.join(QLatin1Char('\n'));
}

// The sizes a panel is checked at: from a cramped dock to a large screen.
inline QList<QSize> layoutSizes() {
    return {{250, 200}, {260, 220}, {330, 260},  {420, 320},
            {640, 480}, {900, 600}, {1200, 800}, {1400, 900}};
}

}  // namespace inferlens::widgets::testing
