#include "panel_export.h"

#include <qcustomplot.h>
#include <QCoreApplication>
#include <QFileInfo>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>

namespace inferlens::widgets {

namespace {

// The translation context of these strings (lupdate reads PanelExport::tr and the NOOP markers).
class PanelExport {
    Q_DECLARE_TR_FUNCTIONS(PanelExport)
};

bool fail(QString* error, const QString& message) {
    if (error) {
        *error = message;
    }
    return false;
}

// Paints the widget on a vector device. A QCustomPlot would paint its cached pixmap through
// render(), so it draws itself in vectorized mode instead.
bool paintWidget(QWidget* widget, QPaintDevice* device, const QSize& size) {
    if (auto* plot = qobject_cast<QCustomPlot*>(widget)) {
        QCPPainter painter;
        if (!painter.begin(device)) {
            return false;
        }
        painter.setMode(QCPPainter::pmVectorized);
        painter.setMode(QCPPainter::pmNoCaching);
        plot->toPainter(&painter, size.width(), size.height());
        return painter.end();
    }
    QPainter painter;
    if (!painter.begin(device)) {
        return false;
    }
    widget->render(&painter, QPoint(), QRegion(),
                   QWidget::DrawWindowBackground | QWidget::DrawChildren);
    return painter.end();
}

}  // namespace

QStringList exportFormats() {
    return {QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf")};
}

bool exportWidget(QWidget* widget, const QString& path, QString* error) {
    if (!widget) {
        return fail(error, PanelExport::tr("Nothing to export."));
    }
    const QString extension = QFileInfo(path).suffix().toLower();
    if (!exportFormats().contains(extension)) {
        return fail(
            error,
            PanelExport::tr("Cannot export to \u201C%1\u201D: unknown file type \u201C%2\u201D "
                            "(use .png, .svg or .pdf).")
                .arg(path, extension.isEmpty() ? PanelExport::tr("(none)") : extension));
    }
    // Layouts of a widget that was never shown have not run yet; sizes would be zero.
    widget->ensurePolished();
    const QSize size = widget->size().isEmpty() ? widget->sizeHint() : widget->size();
    if (size.isEmpty()) {
        return fail(
            error,
            PanelExport::tr("Cannot export \u201C%1\u201D: the panel has no size.").arg(path));
    }
    if (widget->size().isEmpty()) {
        widget->resize(size);
    }

    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        return fail(
            error,
            PanelExport::tr("Cannot write \u201C%1\u201D: %2").arg(path, file.errorString()));
    }
    bool painted = false;
    if (extension == QLatin1String("png")) {
        if (auto* plot = qobject_cast<QCustomPlot*>(widget)) {
            plot->replot(QCustomPlot::rpImmediateRefresh);  // a queued replot may be pending
        }
        painted = widget->grab().save(&file, "PNG");
    } else if (extension == QLatin1String("svg")) {
        QSvgGenerator generator;
        generator.setOutputDevice(&file);
        generator.setSize(size);
        generator.setViewBox(QRect(QPoint(), size));
        generator.setTitle(widget->windowTitle());
        generator.setDescription(PanelExport::tr("Exported from InferLens"));
        painted = paintWidget(widget, &generator, size);
    } else {
        QPdfWriter writer(&file);
        writer.setCreator(QStringLiteral("InferLens"));
        writer.setTitle(widget->windowTitle());
        // One page the size of the panel at 96 dpi, so that the PDF shows it 1:1.
        writer.setResolution(96);
        writer.setPageSize(QPageSize(QSizeF(size) * 72.0 / 96.0, QPageSize::Point));
        writer.setPageMargins(QMarginsF(0, 0, 0, 0));
        painted = paintWidget(widget, &writer, size);
    }
    if (!painted) {
        file.cancelWriting();
        return fail(
            error,
            PanelExport::tr("Cannot write \u201C%1\u201D: drawing the panel failed.").arg(path));
    }
    if (!file.commit()) {
        return fail(
            error,
            PanelExport::tr("Cannot write \u201C%1\u201D: %2").arg(path, file.errorString()));
    }
    return true;
}

}  // namespace inferlens::widgets
