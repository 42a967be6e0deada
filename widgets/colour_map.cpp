#include "colour_map.h"

#include <QFontMetrics>
#include <QImage>
#include <QPainter>
#include <QPalette>

#include <algorithm>
#include <cmath>

namespace inferlens::widgets {

namespace {

struct Stop {
    int r, g, b;
};

// Nine evenly spaced samples of each matplotlib map; linear interpolation between them is within a
// few units of the full 256-entry tables, which is invisible on screen.
constexpr Stop kViridis[] = {{68, 1, 84},    {72, 40, 120},  {62, 73, 137},
                             {49, 104, 142}, {38, 130, 142}, {31, 158, 137},
                             {53, 183, 121}, {110, 206, 88}, {253, 231, 37}};
constexpr Stop kInferno[] = {{0, 0, 4},      {27, 12, 65},  {74, 12, 107},
                             {120, 28, 109}, {165, 44, 96}, {207, 68, 70},
                             {237, 105, 37}, {251, 155, 6}, {252, 255, 164}};

}  // namespace

ColourMap::ColourMap(Palette palette) {
    const Stop* stops = palette == Palette::Inferno ? kInferno : kViridis;
    constexpr int kStops = 9;
    for (int i = 0; i < kSize; ++i) {
        const double x = double(i) / (kSize - 1) * (kStops - 1);
        const int lower = std::min(int(x), kStops - 2);
        const double f = x - lower;
        const Stop& a = stops[lower];
        const Stop& b = stops[lower + 1];
        table_[size_t(i)] =
            qRgb(int(std::lround(a.r + (b.r - a.r) * f)), int(std::lround(a.g + (b.g - a.g) * f)),
                 int(std::lround(a.b + (b.b - a.b) * f)));
    }
}

void paintColourLegend(QPainter& painter, const QRect& bar, const ColourMap& map,
                       const std::vector<std::pair<double, QString>>& ticks,
                       const QPalette& palette) {
    if (bar.height() < 2) {
        return;
    }
    QImage strip(1, ColourMap::kSize, QImage::Format_RGB32);
    for (int i = 0; i < ColourMap::kSize; ++i) {
        strip.setPixel(0, ColourMap::kSize - 1 - i, map.rgbAt(double(i) / (ColourMap::kSize - 1)));
    }
    painter.save();
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    painter.drawImage(bar, strip);
    painter.setPen(palette.color(QPalette::WindowText));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(bar.adjusted(0, 0, -1, -1));
    const QFontMetrics metrics = painter.fontMetrics();
    for (const auto& [t, label] : ticks) {
        const int y = bar.bottom() - int(t * (bar.height() - 1) + 0.5);
        painter.drawLine(bar.right() + 1, y, bar.right() + 4, y);
        painter.drawText(QRect(bar.right() + 6, y - metrics.height() / 2, 1000, metrics.height()),
                         Qt::AlignLeft | Qt::AlignVCenter, label);
    }
    painter.restore();
}

int colourLegendLabelWidth(const QFontMetrics& metrics,
                           const std::vector<std::pair<double, QString>>& ticks) {
    int width = 0;
    for (const auto& tick : ticks) {
        width = std::max(width, metrics.horizontalAdvance(tick.second));
    }
    return width + 6;
}

}  // namespace inferlens::widgets
