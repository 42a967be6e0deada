// The token arrival histogram: the waits between a server's tokens binned from 0 ms, the time to
// the first token kept apart, median and 95th percentile against a plain computation, a new
// answer starting over, and texts that never overprint at any size.

#include <QTest>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "layout_checks.h"
#include "token_arrival_widget.h"

using namespace inferlens::widgets;

namespace {

// The value at `fraction` of the sorted waits, interpolating between neighbours.
double percentileOf(std::vector<double> values, double fraction) {
    std::sort(values.begin(), values.end());
    const double at = fraction * double(values.size() - 1);
    const double below = values[size_t(std::floor(at))];
    const double above = values[size_t(std::ceil(at))];
    return below + (at - std::floor(at)) * (above - below);
}

}  // namespace

class TestWidgetTokenArrival : public QObject {
    Q_OBJECT

  private slots:
    void binsAndPercentilesOfTheWaits() {
        TokenArrivalWidget chart;
        std::mt19937 random(3);
        std::gamma_distribution<double> waits(4.0, 5.0);  // about 20 ms, a right tail
        std::vector<double> expected;
        chart.addArrival(0, 0.450);
        for (int step = 1; step <= 200; ++step) {
            const double seconds = waits(random) / 1000;
            expected.push_back(seconds * 1000);
            chart.addArrival(step, seconds);
        }
        QCOMPARE(chart.firstTokenMs(), 450.0);
        QCOMPARE(chart.waitsMs().size(), size_t(200));
        QVERIFY(std::abs(chart.medianMs() - percentileOf(expected, 0.5)) < 1e-9);
        QVERIFY(std::abs(chart.percentileMs(0.95) - percentileOf(expected, 0.95)) < 1e-9);
        const std::vector<int> counts = chart.binCounts();
        QCOMPARE(std::accumulate(counts.begin(), counts.end(), 0), 200);
        for (size_t bin = 0; bin < counts.size(); ++bin) {
            const auto inBin = std::count_if(expected.begin(), expected.end(), [&](double wait) {
                return size_t(wait / chart.binWidthMs()) == bin;
            });
            QCOMPARE(counts[bin], int(inBin));
        }
        QVERIFY2(chart.titleText().contains("450.0 ms"), qPrintable(chart.titleText()));
        QVERIFY(chart.titleText().contains("201 tokens"));
    }

    void aNewAnswerStartsOver() {
        TokenArrivalWidget chart;
        chart.addArrival(0, 0.1);
        chart.addArrival(1, 0.02);
        chart.addArrival(0, 0.3);
        QCOMPARE(chart.firstTokenMs(), 300.0);
        QVERIFY(chart.waitsMs().empty());
        chart.clear();
        QCOMPARE(chart.firstTokenMs(), 0.0);
    }

    void textsNeverOverprintAtAnySize() {
        TokenArrivalWidget chart;
        chart.addArrival(0, 0.458);
        for (int step = 1; step < 40; ++step)
            chart.addArrival(step, 0.015 + 0.001 * (step % 7));
        const QStringList problems = layout_checks::problemsAtEverySize(
            chart, [&] { return std::vector<QRect>{chart.dataArea()}; });
        QVERIFY2(problems.isEmpty(), qPrintable(problems.mid(0, 10).join('\n')));
    }
};

QTEST_MAIN(TestWidgetTokenArrival)
#include "test_widget_token_arrival.moc"
