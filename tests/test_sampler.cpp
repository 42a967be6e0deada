// The sampler chain, one stage at a time on hand-made distributions, then as a whole: the draw,
// padding, seeds, the trace's numbers against a hand computation, parameter checks, and the time
// of one step over a ChatGLM-sized vocabulary.

#include <QElapsedTimer>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <numeric>
#include <set>
#include <vector>

#include "core/error.h"
#include "sampling/candidate_set.h"
#include "sampling/random.h"
#include "sampling/sampler.h"
#include "sampling/sampler_stages.h"
#include "sampling/sampling_params.h"
#include "sampling/sampling_trace.h"
#include "support/test_models.h"

using namespace inferlens;

namespace {

constexpr float kMinusInfinity = -std::numeric_limits<float>::infinity();

// Logits whose softmax is exactly the given probabilities (they need not sum to 1).
std::vector<float> logitsOf(const QList<double>& probabilities) {
    std::vector<float> logits;
    for (double p : probabilities)
        logits.push_back(p > 0 ? float(std::log(p)) : kMinusInfinity);
    return logits;
}

std::vector<float> toFloats(const QList<double>& values) {
    return std::vector<float>(values.begin(), values.end());
}

QList<int> liveIds(const CandidateSet& candidates) {
    QList<int> ids;
    for (const Candidate& c : candidates.live())
        ids.push_back(c.id);
    std::sort(ids.begin(), ids.end());
    return ids;
}

double probabilityOf(const CandidateSet& candidates, int32_t id) {
    for (const Candidate& c : candidates.live())
        if (c.id == id)
            return candidates.softmax().probability(c.logit);
    return 0;
}

// Logits shaped like a language model's: mostly noise around 0, a few strong candidates.
std::vector<float> vocabularyLogits(size_t n, uint64_t seed) {
    Random random(seed);
    std::vector<float> logits(n);
    for (float& logit : logits) {
        // Box–Muller from two uniforms: a normal with standard deviation 2.5.
        const double u = 1 - random.nextDouble(), v = random.nextDouble();
        logit = float(2.5 * std::sqrt(-2 * std::log(u)) * std::cos(2 * std::numbers::pi * v));
    }
    for (size_t i = 0; i < 12; ++i)
        logits[(i * 7919) % n] = 14.0f - float(i);
    return logits;
}

}  // namespace

class TestSampler : public QObject {
    Q_OBJECT
  private slots:
    void randomIsXoshiro256StarStarSeededBySplitMix64() {
        // Reference values from a direct Python transcription of the authors' C code.
        Random zero(0);
        QCOMPARE(zero.next(), uint64_t(0x99ec5f36cb75f2b4u));
        QCOMPARE(zero.next(), uint64_t(0xbf6e1f784956452au));
        QCOMPARE(zero.next(), uint64_t(0x1a5f849d4933e6e0u));
        Random fortyTwo(42);
        QCOMPARE(fortyTwo.nextDouble(), 0.08386297105988216);  // 0x15780b2e0c2ec716 >> 11 · 2^-53
        QCOMPARE(fortyTwo.nextDouble(), 0.3789802506626686);
        fortyTwo.reseed(42);
        QCOMPARE(fortyTwo.next(), uint64_t(0x15780b2e0c2ec716u));
        Random many(7);
        for (int i = 0; i < 10000; ++i) {
            const double u = many.nextDouble();
            QVERIFY(u >= 0 && u < 1);
        }
    }

    void softmaxExpIsAccurate() {
        // The sampler's own exp (no libm: the same numbers on every platform) against libm's.
        QCOMPARE(expNonPositive(0.0f), 1.0f);
        QCOMPARE(expNonPositive(kMinusInfinity), 0.0f);
        QCOMPARE(expNonPositive(-100.0f), 0.0f);
        double worst = 0;
        for (int i = 0; i <= 1000000; ++i) {
            const float x = -87.0f * float(i) / 1e6f;
            const double exact = std::exp(double(x));
            worst = std::max(worst, std::abs(double(expNonPositive(x)) - exact) / exact);
        }
        QVERIFY2(worst < 2e-7, qPrintable(QString("relative error %1").arg(worst)));
    }

    void topKKeepsTheKBest_data() {
        QTest::addColumn<QList<double>>("logits");
        QTest::addColumn<int>("k");
        QTest::addColumn<QList<int>>("kept");
        QTest::newRow("two of four") << QList<double>{0.5, 3, -1, 2} << 2 << QList<int>{1, 3};
        QTest::newRow("one") << QList<double>{0.5, 3, -1, 2} << 1 << QList<int>{1};
        QTest::newRow("ties go to the lower id")
            << QList<double>{1, 0, 1, 1} << 2 << QList<int>{0, 2};
        QTest::newRow("k = size") << QList<double>{1, 2, 3} << 3 << QList<int>{0, 1, 2};
        QTest::newRow("k > size") << QList<double>{1, 2, 3} << 10 << QList<int>{0, 1, 2};
        QTest::newRow("off") << QList<double>{1, 2, 3} << 0 << QList<int>{0, 1, 2};
    }

    void topKKeepsTheKBest() {
        QFETCH(QList<double>, logits);
        QFETCH(int, k);
        QFETCH(QList<int>, kept);
        CandidateSet candidates(toFloats(logits));
        TopKStage(k).apply(candidates, {});
        QCOMPARE(liveIds(candidates), kept);
    }

    void topPKeepsTheSmallestSetReachingTheMass_data() {
        QTest::addColumn<QList<double>>("probabilities");
        QTest::addColumn<float>("p");
        QTest::addColumn<QList<int>>("kept");
        const QList<double> three{0.5, 0.3, 0.2};
        QTest::newRow("reached exactly at the boundary") << three << 0.8f << QList<int>{0, 1};
        QTest::newRow("just past the boundary") << three << 0.8001f << QList<int>{0, 1, 2};
        QTest::newRow("just before the boundary") << three << 0.7999f << QList<int>{0, 1};
        QTest::newRow("first alone reaches it") << three << 0.5f << QList<int>{0};
        QTest::newRow("tiny p keeps one") << three << 1e-6f << QList<int>{0};
        QTest::newRow("off") << three << 1.0f << QList<int>{0, 1, 2};
        QTest::newRow("order of ids does not matter")
            << QList<double>{0.2, 0.5, 0.3} << 0.8f << QList<int>{1, 2};
        const QList<double> ties{0.25, 0.25, 0.25, 0.25};
        QTest::newRow("ties: exactly half") << ties << 0.5f << QList<int>{0, 1};
        QTest::newRow("ties: past half") << ties << 0.51f << QList<int>{0, 1, 2};
        QTest::newRow("unnormalised weights") << QList<double>{5, 3, 2} << 0.8f << QList<int>{0, 1};
    }

    void topPKeepsTheSmallestSetReachingTheMass() {
        QFETCH(QList<double>, probabilities);
        QFETCH(float, p);
        QFETCH(QList<int>, kept);
        CandidateSet candidates(logitsOf(probabilities));
        TopPStage(p).apply(candidates, {});
        QCOMPARE(liveIds(candidates), kept);
        // Survivors are renormalised among themselves.
        const double keptMass = std::accumulate(
            kept.begin(), kept.end(), 0.0, [&](double s, int id) { return s + probabilities[id]; });
        for (int id : kept)
            QVERIFY(std::abs(probabilityOf(candidates, id) - probabilities[id] / keptMass) < 1e-6);
    }

    void topPSortsOnlyWhatItNeeds() {
        // 10,000 tokens with the mass in three of them: the nucleus is found without a full sort.
        std::vector<float> logits(10000, -20.0f);
        logits[5000] = 3;
        logits[17] = 2;
        logits[9999] = 1;
        CandidateSet candidates(logits);
        TopPStage(0.9f).apply(candidates, {});
        QCOMPARE(liveIds(candidates), (QList<int>{17, 5000}));
        QVERIFY(candidates.sortedSize() <= 64);
    }

    void minPKeepsWhatIsAtLeastAFractionOfTheBest_data() {
        QTest::addColumn<QList<double>>("probabilities");
        QTest::addColumn<float>("minP");
        QTest::addColumn<QList<int>>("kept");
        const QList<double> four{0.5, 0.25, 0.05, 0.2};
        QTest::newRow("threshold 0.05 keeps the 0.05 token")
            << four << 0.1f << QList<int>{0, 1, 2, 3};
        QTest::newRow("threshold 0.055") << four << 0.11f << QList<int>{0, 1, 3};
        QTest::newRow("threshold 0.25 is inclusive") << four << 0.5f << QList<int>{0, 1};
        QTest::newRow("threshold 0.1") << four << 0.2f << QList<int>{0, 1, 3};
        QTest::newRow("1 keeps the best") << four << 1.0f << QList<int>{0};
        QTest::newRow("1 keeps tied best")
            << QList<double>{0.4, 0.2, 0.4} << 1.0f << QList<int>{0, 2};
        QTest::newRow("off") << four << 0.0f << QList<int>{0, 1, 2, 3};
        // Relative to the best, not absolute: with a flat distribution nothing is below 0.9 × max.
        QList<double> flat(100, 0.01);
        QList<int> all(100);
        std::iota(all.begin(), all.end(), 0);
        QTest::newRow("flat distribution") << flat << 0.9f << all;
    }

    void minPKeepsWhatIsAtLeastAFractionOfTheBest() {
        QFETCH(QList<double>, probabilities);
        QFETCH(float, minP);
        QFETCH(QList<int>, kept);
        CandidateSet candidates(logitsOf(probabilities));
        MinPStage(minP).apply(candidates, {});
        QCOMPARE(liveIds(candidates), kept);
    }

    void temperatureScalesTheLogits_data() {
        QTest::addColumn<float>("temperature");
        QTest::addColumn<QList<double>>("expected");  // softmax(logits / T) for logits {2, 1, 0}
        const auto softmax = [](QList<double> z) {
            double sum = 0;
            for (double& v : z)
                sum += (v = std::exp(v));
            for (double& v : z)
                v /= sum;
            return z;
        };
        QTest::newRow("T = 1") << 1.0f << softmax({2, 1, 0});
        QTest::newRow("T = 0.5 sharpens") << 0.5f << softmax({4, 2, 0});
        QTest::newRow("T = 2 flattens") << 2.0f << softmax({1, 0.5, 0});
        QTest::newRow("T = 0 keeps the best") << 0.0f << QList<double>{1, 0, 0};
    }

    void temperatureScalesTheLogits() {
        QFETCH(float, temperature);
        QFETCH(QList<double>, expected);
        CandidateSet candidates(std::vector<float>{2, 1, 0});
        TemperatureStage(temperature).apply(candidates, {});
        for (int id = 0; id < 3; ++id)
            QVERIFY2(std::abs(probabilityOf(candidates, id) - expected[id]) < 1e-6,
                     qPrintable(QString("token %1").arg(id)));
    }

    void temperatureZeroIsArgmaxWhateverTheSeed() {
        // Nearly flat, with the best in the middle and a tie that must go to the lower id.
        const std::vector<float> logits{1.0f, 1.19f, 1.2f, 0.5f, 1.2f, -3.0f};
        SamplingParams params;
        params.temperature = 0;
        params.topK = 0;
        params.topP = 1;
        params.minP = 0;
        for (uint64_t seed = 0; seed < 50; ++seed) {
            params.seed = seed;
            Sampler sampler(params, int64_t(logits.size()));
            for (int step = 0; step < 5; ++step)
                QCOMPARE(sampler.sample(logits, {}), 2);
        }
        SamplingTrace trace;
        Sampler(params, int64_t(logits.size())).sample(logits, {}, &trace);
        QVERIFY(trace.greedy);
        QCOMPARE(trace.chosenProbability, 1.0f);
        QCOMPARE(trace.keptAfter(SamplingStage::Temperature), int64_t(1));
        QCOMPARE(trace.entropyAfter(kFinalSamplingStage), 0.0);
        QCOMPARE(trace.candidates[1].cutBy, std::optional(SamplingStage::Temperature));
        // Greedy still sees the penalties: token 2 repeated loses to token 1.
        params.presencePenalty = 0.5f;
        const int32_t history[] = {2};
        QCOMPARE(Sampler(params, int64_t(logits.size())).sample(logits, history), 4);
    }

    void penaltiesFollowTheirFormulas_data() {
        QTest::addColumn<QList<double>>("logits");
        QTest::addColumn<QList<int>>("history");
        QTest::addColumn<float>("repetition");
        QTest::addColumn<float>("frequency");
        QTest::addColumn<float>("presence");
        QTest::addColumn<int>("lastN");
        QTest::addColumn<QList<double>>("expected");
        const QList<double> logits{2, -2, 1, 0.5};
        // Repetition: positive logits divided, negative multiplied, once per distinct token.
        QTest::newRow("repetition") << logits << QList<int>{0, 1, 0, 0} << 2.0f << 0.0f << 0.0f
                                    << 64 << QList<double>{1, -4, 1, 0.5};
        QTest::newRow("repetition below 1 rewards") << logits << QList<int>{0, 1} << 0.5f << 0.0f
                                                    << 0.0f << 64 << QList<double>{4, -1, 1, 0.5};
        QTest::newRow("frequency: count × f") << logits << QList<int>{0, 0, 2, 0} << 1.0f << 0.5f
                                              << 0.0f << 64 << QList<double>{0.5, -2, 0.5, 0.5};
        QTest::newRow("presence: once per token")
            << logits << QList<int>{0, 0, 2, 0} << 1.0f << 0.0f << 0.7f << 64
            << QList<double>{1.3, -2, 0.3, 0.5};
        QTest::newRow("all three: repetition first")
            << logits << QList<int>{0, 1, 1} << 2.0f << 0.25f << 0.5f << 64
            << QList<double>{1 - 0.25 - 0.5, -4 - 0.5 - 0.5, 1, 0.5};
        QTest::newRow("window: last 2 tokens only")
            << logits << QList<int>{3, 0, 0, 1, 2} << 1.0f << 1.0f << 0.0f << 2
            << QList<double>{2, -3, 0, 0.5};
        QTest::newRow("window longer than history") << logits << QList<int>{3, 0} << 1.0f << 1.0f
                                                    << 0.0f << 100 << QList<double>{1, -2, 1, -0.5};
        QTest::newRow("window -1: whole history")
            << logits << QList<int>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1} << 1.0f << 0.1f << 0.0f << -1
            << QList<double>{1, -2.1, 1, 0.5};
        QTest::newRow("window 0: off")
            << logits << QList<int>{0, 1} << 2.0f << 1.0f << 1.0f << 0 << logits;
        QTest::newRow("ids that are not candidates are ignored")
            << logits << QList<int>{-1, 4, 99, 3} << 1.0f << 0.0f << 1.0f << 64
            << QList<double>{2, -2, 1, -0.5};
    }

    void penaltiesFollowTheirFormulas() {
        QFETCH(QList<double>, logits);
        QFETCH(QList<int>, history);
        QFETCH(float, repetition);
        QFETCH(float, frequency);
        QFETCH(float, presence);
        QFETCH(int, lastN);
        QFETCH(QList<double>, expected);
        CandidateSet candidates(toFloats(logits));
        const std::vector<int32_t> tokens(history.begin(), history.end());
        PenaltyStage(repetition, frequency, presence, lastN).apply(candidates, {tokens});
        for (int id = 0; id < logits.size(); ++id)
            QVERIFY2(std::abs(candidates.find(id)->logit - expected[id]) < 1e-6,
                     qPrintable(QString("token %1: %2, expected %3")
                                    .arg(id)
                                    .arg(candidates.find(id)->logit)
                                    .arg(expected[id])));
    }

    void drawWalksTheCandidatesBestFirst_data() {
        QTest::addColumn<double>("uniform");
        QTest::addColumn<int>("chosen");
        // Probabilities {0.1, 0.6, 0, 0.3} (token 2 at -inf): best first is 1, 3, 0.
        QTest::newRow("0 picks the best") << 0.0 << 1;
        QTest::newRow("inside the best") << 0.59 << 1;
        QTest::newRow("just past the best") << 0.61 << 3;
        QTest::newRow("inside the last") << 0.95 << 0;
        QTest::newRow("at the top never picks the impossible") << std::nextafter(1.0, 0.0) << 0;
    }

    void drawWalksTheCandidatesBestFirst() {
        QFETCH(double, uniform);
        QFETCH(int, chosen);
        CandidateSet candidates(logitsOf({0.1, 0.6, 0, 0.3}));
        QCOMPARE(candidates.live()[drawIndex(candidates, uniform)].id, chosen);
    }

    void paddingIsNeverSampled() {
        // 8 output rows, 5 tokens: rows 5..7 are padding and carry the highest logits.
        const std::vector<float> logits{0.1f, 0.2f, 0.3f, 0.0f, -0.1f, 50.0f, 60.0f, 70.0f};
        Sampler counted(test::neutralSampling(3), 5);
        // A mask instead: token 2 is not sampleable either, although it is no padding.
        std::vector<bool> mask{true, true, false, true, true, false, false, false};
        Sampler masked(test::neutralSampling(3), mask);
        std::map<int32_t, int> countedSeen, maskedSeen;
        for (int i = 0; i < 2000; ++i) {
            ++countedSeen[counted.sample(logits, {})];
            ++maskedSeen[masked.sample(logits, {})];
        }
        QCOMPARE(countedSeen.size(), size_t(5));
        QVERIFY(countedSeen.rbegin()->first < 5);
        QCOMPARE(maskedSeen.size(), size_t(4));
        QVERIFY(!maskedSeen.count(2) && maskedSeen.rbegin()->first < 5);
        // Greedy too, and the trace covers the sampleable ids only.
        SamplingParams greedy = test::neutralSampling();
        greedy.temperature = 0;
        QCOMPARE(Sampler(greedy, mask).sample(logits, {}), 1);
        SamplingTrace trace;
        SamplingParams all = test::neutralSampling();
        all.traceTopN = 100;
        Sampler(all, 5).sample(logits, {}, &trace);
        QCOMPARE(trace.candidates.size(), size_t(5));
        QCOMPARE(trace.keptAfter(SamplingStage::Raw), int64_t(5));
    }

    void sameSeedSameTokensDifferentSeedDifferentTokens() {
        const std::vector<float> logits = vocabularyLogits(1000, 1);
        SamplingParams params;
        params.temperature = 1.5f;
        params.topK = 0;
        params.topP = 0.99f;
        params.minP = 0;
        params.seed = 1234;
        const auto run = [&](const SamplingParams& p) {
            Sampler sampler(p, int64_t(logits.size()));
            std::vector<int32_t> tokens;
            for (int i = 0; i < 200; ++i)
                tokens.push_back(sampler.sample(logits, tokens));
            return tokens;
        };
        const std::vector<int32_t> first = run(params);
        QCOMPARE(run(params), first);
        QVERIFY(std::set<int32_t>(first.begin(), first.end()).size() > 10);  // not degenerate
        params.seed = 1235;
        QVERIFY(run(params) != first);
    }

    void drawsFollowTheFinalDistribution() {
        const std::vector<float> logits{2.0f, 1.5f, 1.4f, 0.2f, 0.0f, -0.5f, -1.0f, -4.0f};
        SamplingParams params;
        params.temperature = 0.7f;
        params.topK = 6;
        params.topP = 0.97f;
        params.minP = 0.02f;
        params.seed = 99;
        Sampler sampler(params, int64_t(logits.size()));
        SamplingTrace trace;
        sampler.sample(logits, {}, &trace);
        std::map<int32_t, double> expected;
        for (const TraceCandidate& row : trace.candidates)
            expected[row.id] = row.finalProbability();
        QVERIFY(trace.keptAfter(kFinalSamplingStage) >= 4);  // a real choice, and some cut
        QVERIFY(trace.keptAfter(kFinalSamplingStage) < 8);
        const int draws = 40000;
        std::map<int32_t, int> seen;
        for (int i = 0; i < draws; ++i)
            ++seen[sampler.sample(logits, {})];
        double chiSquare = 0;
        for (const auto& [id, p] : expected) {
            if (p == 0) {
                QVERIFY2(!seen.count(id), qPrintable(QString("cut token %1 drawn").arg(id)));
                continue;
            }
            const double e = p * draws, o = seen.count(id) ? seen[id] : 0;
            chiSquare += (o - e) * (o - e) / e;
        }
        const int64_t degrees = trace.keptAfter(kFinalSamplingStage) - 1;
        qInfo("chi-square %.2f with %lld degrees of freedom", chiSquare,
              static_cast<long long>(degrees));
        // The 99.9% quantile for ≤ 6 degrees of freedom is ≤ 22.5; drawing from the distribution
        // before truncation instead would give hundreds.
        QVERIFY(chiSquare < 22.5);
    }

    void traceMatchesAHandComputedExample() {
        // Raw probabilities {0.4, 0.3, 0.15, 0.1, 0.05}. Token 0 was said before, and a presence
        // penalty of ln 2 halves its weight to 0.2: after penalties {0.25, 0.375, 0.1875, 0.125,
        // 0.0625}. T = 0.5 squares the weights: {16, 36, 9, 4, 1} / 66. Top-k 4 cuts token 4:
        // {16, 36, 9, 4} / 65. Top-p 0.8: 36/65 = 0.554, then (36 + 16)/65 = 0.8 exactly, so
        // tokens 1 and 0 are kept: {16, 36} / 52. Min-p 0.4: 16/36 = 0.44 ≥ 0.4, both stay.
        SamplingParams params;
        params.presencePenalty = float(std::log(2.0));
        params.temperature = 0.5f;
        params.topK = 4;
        params.topP = 0.8f;
        params.minP = 0.4f;
        params.traceTopN = 5;
        const std::vector<float> logits = logitsOf({0.4, 0.3, 0.15, 0.1, 0.05});
        const int32_t history[] = {0};
        Sampler sampler(params, 5);
        // The draw 0.7 passes 36/52 = 0.692 and lands in token 0.
        const SamplingTrace trace = sampler.preview(params, logits, history, 0.7);

        using S = SamplingStage;
        // No logit processor is on: their stages keep everything and change nothing.
        const std::array<int64_t, kSamplingStageCount> kept{5, 5, 5, 5, 5, 5, 5, 4, 2, 2};
        QCOMPARE(trace.kept, kept);
        QVERIFY(std::abs(trace.nucleusMass - 0.8) < 1e-6);
        QCOMPARE(trace.nucleusKept, int64_t(2));
        QCOMPARE(trace.chosenId, 0);
        QCOMPARE(trace.chosenRank, int64_t(1));
        QVERIFY(std::abs(trace.chosenProbability - 16.0 / 52) < 1e-6);
        QCOMPARE(trace.draw, 0.7);

        struct Row {
            int32_t id;
            std::array<double, kSamplingStageCount> probability;
            std::optional<SamplingStage> cutBy;
        };
        // Ranked by the logits the truncations saw: token 1 first although token 0 was ahead raw.
        const Row rows[] = {
            {1,
             {0.3, 0.3, 0.3, 0.3, 0.3, 0.375, 36.0 / 66, 36.0 / 65, 36.0 / 52, 36.0 / 52},
             std::nullopt},
            {0,
             {0.4, 0.4, 0.4, 0.4, 0.4, 0.25, 16.0 / 66, 16.0 / 65, 16.0 / 52, 16.0 / 52},
             std::nullopt},
            {2, {0.15, 0.15, 0.15, 0.15, 0.15, 0.1875, 9.0 / 66, 9.0 / 65, 0, 0}, S::TopP},
            {3, {0.1, 0.1, 0.1, 0.1, 0.1, 0.125, 4.0 / 66, 4.0 / 65, 0, 0}, S::TopP},
            {4, {0.05, 0.05, 0.05, 0.05, 0.05, 0.0625, 1.0 / 66, 0, 0, 0}, S::TopK},
        };
        QCOMPARE(trace.candidates.size(), size_t(5));
        for (size_t r = 0; r < 5; ++r) {
            const TraceCandidate& row = trace.candidates[r];
            QCOMPARE(row.id, rows[r].id);
            QCOMPARE(row.cutBy, rows[r].cutBy);
            QCOMPARE(row.kept(), !rows[r].cutBy);
            QCOMPARE(row.rawLogit, logits[size_t(row.id)]);
            for (size_t s = 0; s < kSamplingStageCount; ++s)
                QVERIFY2(std::abs(row.probability[s] - rows[r].probability[s]) < 1e-6,
                         qPrintable(QString("token %1 after %2: %3, expected %4")
                                        .arg(row.id)
                                        .arg(samplingStageName(SamplingStage(s)))
                                        .arg(row.probability[s])
                                        .arg(rows[r].probability[s])));
        }
        QVERIFY(std::abs(trace.candidates[1].penalisedLogit - std::log(0.2)) < 1e-6);
        // Every stage's probabilities sum to 1 over the full set.
        for (size_t s = 0; s < kSamplingStageCount; ++s) {
            double sum = 0;
            for (const TraceCandidate& row : trace.candidates)
                sum += row.probability[s];
            QVERIFY(std::abs(sum - 1) < 1e-6);
        }
        const auto entropy = [](std::initializer_list<double> ps) {
            double h = 0;
            for (double p : ps)
                h -= p * std::log(p);
            return h;
        };
        QVERIFY(std::abs(trace.entropyAfter(S::Raw) - entropy({0.4, 0.3, 0.15, 0.1, 0.05})) < 1e-6);
        QVERIFY(std::abs(trace.entropyAfter(S::MinP) - entropy({16.0 / 52, 36.0 / 52})) < 1e-6);
        // Fewer rows on request; the numbers do not change.
        params.traceTopN = 2;
        const SamplingTrace shorter = sampler.preview(params, logits, history, 0.7);
        QCOMPARE(shorter.candidates.size(), size_t(2));
        QCOMPARE(shorter.candidates[1].probability, trace.candidates[1].probability);
    }

    void traceProbabilitiesSumToOnePerStage() {
        const std::vector<float> logits = vocabularyLogits(3000, 5);
        std::vector<int32_t> history;
        for (int i = 0; i < 100; ++i)
            history.push_back(int32_t((i * 7919) % 3000));
        SamplingParams params;
        params.repetitionPenalty = 1.3f;
        params.frequencyPenalty = 0.2f;
        params.topK = 0;
        params.traceTopN = 3000;
        SamplingTrace trace;
        Sampler(params, 2900).sample(logits, history, &trace);
        QCOMPARE(trace.candidates.size(), size_t(2900));
        for (size_t s = 0; s < kSamplingStageCount; ++s) {
            double sum = 0;
            int64_t alive = 0;
            for (const TraceCandidate& row : trace.candidates) {
                sum += row.probability[s];
                alive += !(row.cutBy && *row.cutBy <= SamplingStage(s));
            }
            QVERIFY2(std::abs(sum - 1) < 1e-4, qPrintable(QString("stage %1: %2").arg(s).arg(sum)));
            QCOMPARE(alive, trace.kept[s]);
        }
        QVERIFY(trace.nucleusMass >= params.topP - 1e-6);
        QVERIFY(trace.keptAfter(SamplingStage::TopP) < 2900);
        // Truncation cannot add uncertainty here: the final distribution is the sharper one.
        QVERIFY(trace.entropyAfter(kFinalSamplingStage) < trace.entropyAfter(SamplingStage::Raw));
        // Kept rows first, then cut ones.
        const auto firstCut = std::find_if(trace.candidates.begin(), trace.candidates.end(),
                                           [](const TraceCandidate& c) { return !c.kept(); });
        QVERIFY(std::all_of(firstCut, trace.candidates.end(),
                            [](const TraceCandidate& c) { return !c.kept(); }));
    }

    void invalidParamsAreRejected_data() {
        QTest::addColumn<SamplingParams>("params");
        QTest::addColumn<QString>("named");
        const auto with = [](auto change) {
            SamplingParams p;
            change(p);
            return p;
        };
        const float nan = std::numeric_limits<float>::quiet_NaN();
        QTest::newRow("negative temperature")
            << with([](SamplingParams& p) { p.temperature = -0.1f; }) << "temperature";
        QTest::newRow("NaN temperature")
            << with([&](SamplingParams& p) { p.temperature = nan; }) << "temperature";
        QTest::newRow("negative top-k") << with([](SamplingParams& p) { p.topK = -1; }) << "top-k";
        QTest::newRow("top-p 0") << with([](SamplingParams& p) { p.topP = 0; }) << "top-p";
        QTest::newRow("top-p above 1")
            << with([](SamplingParams& p) { p.topP = 1.01f; }) << "top-p";
        QTest::newRow("negative min-p")
            << with([](SamplingParams& p) { p.minP = -0.01f; }) << "min-p";
        QTest::newRow("min-p above 1") << with([](SamplingParams& p) { p.minP = 1.5f; }) << "min-p";
        QTest::newRow("repetition 0")
            << with([](SamplingParams& p) { p.repetitionPenalty = 0; }) << "repetition penalty";
        QTest::newRow("infinite frequency")
            << with([](SamplingParams& p) { p.frequencyPenalty = INFINITY; })
            << "frequency penalty";
        QTest::newRow("NaN presence")
            << with([&](SamplingParams& p) { p.presencePenalty = nan; }) << "presence penalty";
        QTest::newRow("window below -1")
            << with([](SamplingParams& p) { p.penaltyLastN = -2; }) << "penalty window";
        QTest::newRow("negative trace size")
            << with([](SamplingParams& p) { p.traceTopN = -1; }) << "trace top-N";
    }

    void invalidParamsAreRejected() {
        QFETCH(SamplingParams, params);
        QFETCH(QString, named);
        const auto message = [&](auto call) -> QString {
            try {
                call();
            } catch (const Error& e) {
                return e.what();
            }
            return {};
        };
        QVERIFY(message([&] { validate(SamplingParams{}); }).isEmpty());
        const QString fromConstructor = message([&] { Sampler(params, 10); });
        QVERIFY2(fromConstructor.contains(named), qPrintable(fromConstructor));
        Sampler sampler(SamplingParams{}, 10);
        const QString fromSetParams = message([&] { sampler.setParams(params); });
        QVERIFY2(fromSetParams.contains(named), qPrintable(fromSetParams));
        QCOMPARE(sampler.params(), SamplingParams{});  // the old params stay
        const std::vector<float> logits(10, 0.0f);
        QVERIFY(message([&] { sampler.preview(params, logits, {}, 0.5); }).contains(named));
    }

    void invalidInputsAreRejected() {
        Sampler sampler(test::neutralSampling(), 4);
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const auto rejects = [&](std::vector<float> logits, const char* needle) {
            try {
                sampler.sample(logits, {});
            } catch (const Error& e) {
                return QString(e.what()).contains(needle);
            }
            return false;
        };
        QVERIFY(rejects({0, nan, 0, 0}, "NaN"));
        QVERIFY(rejects({0, 0, INFINITY, 0}, "+inf"));
        QVERIFY(rejects(std::vector<float>(4, kMinusInfinity), "finite"));
        QVERIFY(rejects({0, 0, 0}, "logits"));
        // Padding may hold anything.
        QVERIFY(!rejects({0, 0, 0, 0, nan}, "NaN"));
        QVERIFY_THROWS_EXCEPTION(Error, Sampler(test::neutralSampling(), 0));
        QVERIFY_THROWS_EXCEPTION(Error,
                                 Sampler(test::neutralSampling(), std::vector<bool>{false, false}));
        const std::vector<float> logits(4, 0.0f);
        QVERIFY_THROWS_EXCEPTION(Error, sampler.preview(test::neutralSampling(), logits, {}, 1.0));
    }

    void paramsMayChangeBetweenSteps() {
        const std::vector<float> logits = vocabularyLogits(500, 2);
        SamplingParams warm = test::neutralSampling(21);
        warm.temperature = 1.8f;
        SamplingParams greedy = warm;
        greedy.temperature = 0;
        Sampler sampler(warm, 500);
        Random draws(21);  // one uniform per step, whatever the params
        SamplingTrace trace;
        const int32_t argmaxId =
            int32_t(std::max_element(logits.begin(), logits.end()) - logits.begin());
        std::set<int32_t> warmTokens;
        for (int step = 0; step < 30; ++step) {
            const bool isGreedy = step % 3 == 1;
            sampler.setParams(isGreedy ? greedy : warm);
            const int32_t token = sampler.sample(logits, {}, &trace);
            QCOMPARE(trace.draw, draws.nextDouble());
            QCOMPARE(trace.params.temperature, isGreedy ? 0.0f : 1.8f);
            if (isGreedy)
                QCOMPARE(token, argmaxId);
            else
                warmTokens.insert(token);
            // The same draw with the step's params picks the same token.
            QCOMPARE(sampler.preview(sampler.params(), logits, {}, trace.draw).chosenId, token);
        }
        QVERIFY(warmTokens.size() > 3);
        // A new seed restarts the sequence; the same seed continues it.
        SamplingParams reseeded = warm;
        reseeded.seed = 5;
        sampler.setParams(reseeded);
        Random fresh(5);
        sampler.sample(logits, {}, &trace);
        QCOMPARE(trace.draw, fresh.nextDouble());
        sampler.setParams(reseeded);
        sampler.sample(logits, {}, &trace);
        QCOMPARE(trace.draw, fresh.nextDouble());
        sampler.reseed();
        sampler.sample(logits, {}, &trace);
        QCOMPARE(trace.draw, Random(5).nextDouble());
    }

    void previewConsumesNoRandomness() {
        const std::vector<float> logits = vocabularyLogits(800, 3);
        SamplingParams params = test::neutralSampling(77);
        params.temperature = 1.3f;
        Sampler plain(params, 800), previewed(params, 800);
        SamplingParams other = params;
        other.temperature = 0.2f;
        other.topK = 3;
        for (int step = 0; step < 20; ++step) {
            previewed.preview(other, logits, {}, 0.25);
            SamplingTrace expected, got;
            QCOMPARE(previewed.sample(logits, {}, &got), plain.sample(logits, {}, &expected));
            QCOMPARE(got.draw, expected.draw);
            // The preview of the step's own draw reproduces its trace.
            const SamplingTrace again = previewed.preview(params, logits, {}, got.draw);
            QCOMPARE(again.chosenId, got.chosenId);
            QCOMPARE(again.kept, got.kept);
            QCOMPARE(again.candidates[0].probability, got.candidates[0].probability);
        }
    }

    void chatGlmVocabularySteps_data() {
        QTest::addColumn<SamplingParams>("params");
        QTest::addColumn<bool>("traced");
        SamplingParams defaults;
        defaults.repetitionPenalty = 1.1f;
        QTest::newRow("defaults, traced") << defaults << true;
        QTest::newRow("defaults, untraced") << defaults << false;
        SamplingParams topPOnly = defaults;
        topPOnly.topK = 0;
        topPOnly.minP = 0;
        QTest::newRow("top-p over the whole vocabulary, traced") << topPOnly << true;
        SamplingParams nothing = test::neutralSampling();
        nothing.repetitionPenalty = 1.1f;
        QTest::newRow("no truncation at all, traced") << nothing << true;
    }

    void chatGlmVocabularySteps() {
        QFETCH(SamplingParams, params);
        QFETCH(bool, traced);
        const size_t vocabulary = 65024;  // ChatGLM2's output layer; 64,798 of them are tokens
        const std::vector<float> logits = vocabularyLogits(vocabulary, 11);
        std::vector<int32_t> history;
        for (int i = 0; i < 200; ++i)
            history.push_back(int32_t((i * 104729) % 64798));
        Sampler sampler(params, 64798);
        SamplingTrace trace;
        sampler.sample(logits, history, traced ? &trace : nullptr);  // warm-up: allocations
        // The median step: robust against other processes on a shared machine.
        std::vector<double> ms;
        for (int i = 0; i < 101; ++i) {
            QElapsedTimer timer;
            timer.start();
            history.push_back(sampler.sample(logits, history, traced ? &trace : nullptr));
            ms.push_back(double(timer.nsecsElapsed()) / 1e6);
        }
        std::nth_element(ms.begin(), ms.begin() + 50, ms.end());
        if (traced)
            qInfo(
                "%.3f ms per step (median) over %zu logits; kept after top-k %lld, top-p %lld, "
                "min-p %lld",
                ms[50], vocabulary, static_cast<long long>(trace.keptAfter(SamplingStage::TopK)),
                static_cast<long long>(trace.keptAfter(SamplingStage::TopP)),
                static_cast<long long>(trace.keptAfter(SamplingStage::MinP)));
        else
            qInfo("%.3f ms per step (median) over %zu logits", ms[50], vocabulary);
        // Speed is measured, not asserted (benchmarks are not tests); what must hold is that no
        // step over the full vocabulary picked a padding row.
        for (size_t i = 200; i < history.size(); ++i)
            QVERIFY(history[i] < 64798);
    }
};

QTEST_APPLESS_MAIN(TestSampler)
#include "test_sampler.moc"
