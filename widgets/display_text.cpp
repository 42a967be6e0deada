#include "display_text.h"

#include <QCoreApplication>
#include <QStringDecoder>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <optional>

namespace inferlens::widgets {

namespace {

// The translation context of these strings (lupdate reads DisplayText::tr and the NOOP markers).
class DisplayText {
    Q_DECLARE_TR_FUNCTIONS(DisplayText)
};

QString decimalUnits(double value, const char* unit) {
    const char* prefixes[] = {"", "k", "M", "G", "T", "P"};
    int prefix = 0;
    while (value >= 1000 && prefix < 5) {
        value /= 1000;
        ++prefix;
    }
    return QStringLiteral("%1 %2%3")
        .arg(value, 0, 'f', value >= 100 || prefix == 0 ? 0 : 2)
        .arg(QString::fromLatin1(prefixes[prefix]), QString::fromLatin1(unit));
}

// GPT-2's byte alphabet read backwards: the byte a character spells, or -1. Printable Latin-1
// bytes spell themselves; the 68 others are U+0100 onwards in byte order (the engine's
// byte_level_alphabet.cpp writes the same table; widgets do not link the engine).
int byteLevelByte(char16_t c) {
    static const std::array<int, 0x144> table = [] {
        std::array<int, 0x144> bytes;
        bytes.fill(-1);
        int next = 0x100;
        for (int byte = 0; byte < 256; ++byte) {
            const bool printable = (byte >= '!' && byte <= '~') || (byte >= 0xA1 && byte <= 0xAC) ||
                                   (byte >= 0xAE && byte <= 0xFF);
            bytes[size_t(printable ? byte : next++)] = byte;
        }
        return bytes;
    }();
    return c < table.size() ? table[c] : -1;
}

// The bytes a byte-level piece spells, or nothing when the piece is not one (see pieceBytes).
std::optional<QByteArray> byteLevelBytes(const QString& piece) {
    QByteArray bytes;
    bool alphabetOnly = false;
    for (const QChar c : piece) {
        const int byte = byteLevelByte(c.unicode());
        if (byte < 0)
            return std::nullopt;
        alphabetOnly = alphabetOnly || c.unicode() >= 0x100;
        bytes += char(byte);
    }
    const bool multiByteText =
        decodeUtf8(bytes, nullptr) &&
        std::any_of(bytes.begin(), bytes.end(), [](char byte) { return uint8_t(byte) >= 0x80; });
    if (!alphabetOnly && !multiByteText)
        return std::nullopt;
    return bytes;
}

}  // namespace

QString visibleWhitespace(const QString& text) {
    QString out;
    out.reserve(text.size());
    for (const QChar c : text) {
        switch (c.unicode()) {
            case ' ':
                out += QChar(0x2423);  // ␣
                break;
            case '\n':
                out += QChar(0x21B5);  // ↵
                break;
            case '\t':
                out += QChar(0x2192);  // →
                break;
            case '\r':
                out += QChar(0x240D);  // ␍
                break;
            default:
                out += c;
        }
    }
    return out;
}

bool decodeUtf8(const QByteArray& bytes, QString* text) {
    QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    QString decoded = decoder.decode(bytes);
    if (decoder.hasError()) {
        return false;
    }
    if (text) {
        *text = std::move(decoded);
    }
    return true;
}

QByteArray pieceBytes(const QString& piece) {
    if (const std::optional<QByteArray> bytes = byteLevelBytes(piece))
        return *bytes;
    QString text = piece;
    text.replace(QChar(0x2581), QChar(' '));  // sentencepiece's "▁" is a space
    return text.toUtf8();
}

QString tokenDisplayText(const QString& piece, const QByteArray& bytes, bool special) {
    if (special) {
        return piece;
    }
    QString text;
    if (!bytes.isEmpty()) {
        if (decodeUtf8(bytes, &text)) {
            return visibleWhitespace(text);
        }
        if (piece.startsWith(QLatin1String("<0x"))) {
            return piece;  // sentencepiece's byte fallback names its byte
        }
        return QStringLiteral("<%1>").arg(hexBytes(bytes));  // a byte-level piece's part character
    }
    // No bytes given (a sampling candidate's label): what the piece spells.
    if (decodeUtf8(pieceBytes(piece), &text)) {
        return visibleWhitespace(text);
    }
    return QStringLiteral("<%1>").arg(hexBytes(pieceBytes(piece)));
}

QString hexBytes(const QByteArray& bytes) {
    return QString::fromLatin1(bytes.toHex(' ').toUpper());
}

QString formatBytes(qint64 bytes) {
    const double magnitude = std::abs(double(bytes));
    if (magnitude < 1024) {
        return DisplayText::tr("%1 B").arg(bytes);
    }
    const char* units[] = {
        QT_TRANSLATE_NOOP("DisplayText", "%1 KiB"), QT_TRANSLATE_NOOP("DisplayText", "%1 MiB"),
        QT_TRANSLATE_NOOP("DisplayText", "%1 GiB"), QT_TRANSLATE_NOOP("DisplayText", "%1 TiB")};
    double value = double(bytes) / 1024;
    int unit = 0;
    while (std::abs(value) >= 1024 && unit < 3) {
        value /= 1024;
        ++unit;
    }
    // Three significant digits: enough to see growth, few enough to read at a glance.
    const int decimals = std::abs(value) < 10 ? 2 : std::abs(value) < 100 ? 1 : 0;
    return DisplayText::tr(units[unit]).arg(value, 0, 'f', decimals);
}

QString formatFlops(double flops) {
    return decimalUnits(flops, "FLOP");
}

QString formatDecimalBytes(double bytes) {
    return decimalUnits(bytes, "B");
}

QString formatSeconds(double seconds) {
    const double magnitude = std::abs(seconds);
    auto digits = [](double v) { return v < 10 ? 2 : v < 100 ? 1 : 0; };
    if (magnitude < 1e-3) {
        return DisplayText::tr("%1 µs").arg(seconds * 1e6, 0, 'f', digits(magnitude * 1e6));
    }
    if (magnitude < 1) {
        return DisplayText::tr("%1 ms").arg(seconds * 1e3, 0, 'f', digits(magnitude * 1e3));
    }
    return DisplayText::tr("%1 s").arg(seconds, 0, 'f', digits(magnitude));
}

}  // namespace inferlens::widgets
