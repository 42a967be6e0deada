#pragma once
// Pixels and cells of a grid drawn as a scaled image with nearest-neighbour sampling, which shows
// at each pixel the cell under the pixel's centre. Hit tests and cell rectangles use the same rule,
// so that a tooltip names the cell actually drawn there, also when cells are smaller than a pixel.

#include <QRect>
#include <algorithm>
#include <cmath>

namespace inferlens::widgets {

// The cell shown at `pixel` (a coordinate along one axis) for cells of `size` pixels from `origin`.
inline int cellIndexAt(int pixel, int origin, double size) {
    return int(std::floor((pixel - origin + 0.5) / size));
}

// The pixels [first, end) along one axis that show cell `index` (at least one pixel: a cell too
// thin to own a pixel gets the one it falls in).
inline std::pair<int, int> cellPixelSpan(int index, int origin, double size) {
    const int first = origin + int(std::ceil(index * size - 0.5));
    const int end = origin + int(std::ceil((index + 1) * size - 0.5));
    return {first, std::max(end, first + 1)};
}

inline QRect cellPixelRect(int column, int row, QPoint origin, double width, double height) {
    const auto [left, right] = cellPixelSpan(column, origin.x(), width);
    const auto [top, bottom] = cellPixelSpan(row, origin.y(), height);
    return QRect(left, top, right - left, bottom - top);
}

}  // namespace inferlens::widgets
