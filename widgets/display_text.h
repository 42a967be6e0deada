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

// The bytes a vocabulary piece spells: byte-level BPE pieces, spelt in GPT-2's byte alphabet,
// decoded ("Ġworld" → " world", "Ċ" → "\n", "å¥½" → "好"); otherwise the piece's own UTF-8 with
// sentencepiece's "▁" as a space. A piece counts as byte-level when every character is in the
// alphabet and it uses a character only the alphabet uses (U+0100–U+0143: Ġ, Ċ, ĉ, ...) or decodes
// to multi-byte UTF-8 (so a sentencepiece "é" stays "é").
QByteArray pieceBytes(const QString& piece);

// What a token stands for, as shown on a chip or an axis, whitespace made visible: its bytes when
// they are whole UTF-8 text; part of a character shows its sentencepiece byte piece ("<0xE4>") or,
// from byte-level BPE, its bytes in hex ("<E4 BD>"). With no bytes given (a sampling candidate's
// label), what the piece spells (pieceBytes). Special tokens show their piece ("<|im_start|>").
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
