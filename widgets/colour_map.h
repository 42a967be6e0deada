#pragma once
// Colour scales shared by the image-based panels. A scale is a 256-entry lookup table, so that the
// colour of a value is one multiplication and one load (the panels colour thousands of cells per
// frame), and so that a test can ask for the exact colour a cell was painted with.

#include <QColor>
#include <QRgb>
#include <QString>
#include <array>
#include <utility>
#include <vector>

class QPainter;
class QPalette;
class QRect;
class QFontMetrics;

namespace inferlens::widgets {

class ColourMap {
  public:
    // Perceptually uniform maps from matplotlib: viridis for probabilities, inferno for times (so
    // that the two kinds of panel cannot be mistaken for each other).
    enum class Palette { Viridis, Inferno };

    explicit ColourMap(Palette palette = Palette::Viridis);

    // `t` in [0, 1]; values outside are clamped, NaN counts as 0.
    QRgb rgbAt(double t) const {
        if (!(t > 0)) {
            return table_[0];
        }
        if (t >= 1) {
            return table_[kSize - 1];
        }
        return table_[int(t * (kSize - 1) + 0.5)];
    }
    QColor colourAt(double t) const { return QColor::fromRgb(rgbAt(t)); }

    static constexpr int kSize = 256;

  private:
    std::array<QRgb, kSize> table_{};
};

// A vertical colour bar (t = 0 at the bottom, 1 at the top) with tick marks and their labels to its
// right. Each tick is (t, label).
void paintColourLegend(QPainter& painter, const QRect& bar, const ColourMap& map,
                       const std::vector<std::pair<double, QString>>& ticks,
                       const QPalette& palette);

// Width the legend needs beside its bar for these labels.
int colourLegendLabelWidth(const QFontMetrics& metrics,
                           const std::vector<std::pair<double, QString>>& ticks);

}  // namespace inferlens::widgets
