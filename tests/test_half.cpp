// f16 and bf16 conversions against definitions computed independently with ldexp and exhaustive
// or nearest-neighbour checks.

#include <QTest>

#include <cmath>
#include <limits>

#include "core/half.h"

using namespace inferlens;

namespace {

// binary16 by definition: sign, 5-bit exponent (bias 15), 10-bit mantissa.
double halfDefinition(uint16_t bits) {
    const int sign = bits >> 15 ? -1 : 1;
    const int exponent = (bits >> 10) & 0x1f;
    const int mantissa = bits & 0x3ff;
    if (exponent == 0)
        return sign * std::ldexp(double(mantissa), -24);
    if (exponent == 31)
        return mantissa ? NAN : sign * INFINITY;
    return sign * std::ldexp(1.0 + mantissa / 1024.0, exponent - 15);
}

}  // namespace

class TestHalf : public QObject {
    Q_OBJECT
  private slots:
    void halfToFloatMatchesDefinitionForAllPatterns() {
        for (uint32_t bits = 0; bits < 65536; ++bits) {
            const double expected = halfDefinition(uint16_t(bits));
            const float actual = halfToFloat(uint16_t(bits));
            if (std::isnan(expected)) {
                QVERIFY(std::isnan(actual));
                continue;
            }
            QCOMPARE(double(actual), expected);
            QCOMPARE(std::signbit(actual), bool(bits & 0x8000));
        }
    }

    void floatToHalfRoundTripsEveryHalf() {
        for (uint32_t bits = 0; bits < 65536; ++bits) {
            if (std::isnan(halfDefinition(uint16_t(bits))))
                continue;
            QCOMPARE(floatToHalf(halfToFloat(uint16_t(bits))), uint16_t(bits));
        }
    }

    void floatToHalfRoundsToNearestEven() {
        // Between two adjacent finite halves: below, at and above the midpoint.
        for (uint32_t bits = 0; bits < 0x7bff; bits += 7) {
            const double low = halfDefinition(uint16_t(bits));
            const double high = halfDefinition(uint16_t(bits + 1));
            const double middle = (low + high) / 2;
            QCOMPARE(floatToHalf(float(low + (high - low) * 0.25)), uint16_t(bits));
            QCOMPARE(floatToHalf(float(low + (high - low) * 0.75)), uint16_t(bits + 1));
            const uint16_t even = (bits & 1) ? uint16_t(bits + 1) : uint16_t(bits);
            if (float(middle) == middle)
                QCOMPARE(floatToHalf(float(middle)), even);
        }
        QCOMPARE(floatToHalf(70000.0f), uint16_t(0x7c00));   // overflow → +inf
        QCOMPARE(floatToHalf(-70000.0f), uint16_t(0xfc00));  // → -inf
        QCOMPARE(floatToHalf(65519.0f), uint16_t(0x7bff));   // just below the rounding edge
        QCOMPARE(floatToHalf(1e-9f), uint16_t(0));           // underflow → +0
        QVERIFY(std::isnan(halfToFloat(floatToHalf(NAN))));
    }

    void bf16IsTheTopHalfOfFloatRoundedToEven() {
        for (uint32_t top = 0; top < 65536; top += 3) {
            const float value = std::bit_cast<float>(top << 16);
            if (std::isnan(value))
                continue;
            QCOMPARE(floatToBf16(value), uint16_t(top));
            QCOMPARE(std::bit_cast<uint32_t>(bf16ToFloat(uint16_t(top))), top << 16);
        }
        QCOMPARE(floatToBf16(std::bit_cast<float>(0x3f808000u)), uint16_t(0x3f80));  // tie → even
        QCOMPARE(floatToBf16(std::bit_cast<float>(0x3f818000u)), uint16_t(0x3f82));  // tie → even
        QCOMPARE(floatToBf16(std::bit_cast<float>(0x3f808001u)), uint16_t(0x3f81));  // above tie
        QVERIFY(std::isnan(bf16ToFloat(floatToBf16(NAN))));
    }
};

QTEST_APPLESS_MAIN(TestHalf)
#include "test_half.moc"
