#pragma once
// How the panels write tokens, bytes, sizes and times: one place, so that a token looks the same in
// the strip, on the heat map's axes and under the sampling bars.

#include <QByteArray>
#include <QString>
#include <QtGlobal>

namespace inferlens::widgets {

// Whitespace made visible: space "␣", newline "↵", tab "→", carriage return "␍". A token that is
// one space would otherwise be an empty chip.
QString visibleWhitespace(const QString& text);

// What a token stands for, as shown on a chip or an axis: its bytes when they are whole UTF-8 text,
// else (half a character from byte fallback, or no bytes at all) its piece, whose sentencepiece
// "▁" is the space it encodes. Special tokens always show their piece ("[gMASK]").
QString tokenDisplayText(const QString& piece, const QByteArray& bytes, bool special);

// True when `bytes` is complete, valid UTF-8 (then *text receives it).
bool decodeUtf8(const QByteArray& bytes, QString* text);

// "E4 BD A0".
QString hexBytes(const QByteArray& bytes);

// Binary units, because cache sizes are powers of two: "512 B", "28.0 KiB", "1.50 MiB".
QString formatBytes(qint64 bytes);

// Decimal SI units, as arithmetic and bandwidth are counted: "2.41 GFLOP", "713 MB".
QString formatFlops(double flops);
QString formatDecimalBytes(double bytes);

// "850 µs", "12.3 ms", "1.20 s".
QString formatSeconds(double seconds);

}  // namespace inferlens::widgets
