#pragma once
// Saving a panel as a picture: PNG (pixels, as on screen), SVG or PDF (vector where the widget
// paints vectors; the QCustomPlot charts are asked for vector output directly). The format follows
// the file's extension.

#include <QString>
#include <QStringList>

class QWidget;

namespace inferlens::widgets {

// Writes `widget` to `path`. On failure returns false and, when `error` is given, a sentence saying
// why (an unknown extension, a file that could not be written). The file is replaced atomically:
// a failed export leaves an existing file as it was.
bool exportWidget(QWidget* widget, const QString& path, QString* error = nullptr);

// The extensions exportWidget understands, lower case, without the dot.
QStringList exportFormats();

}  // namespace inferlens::widgets
