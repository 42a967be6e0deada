// The logit processors and stop strings. Forced and banned tokens always hold; a finite bias
// multiplies a token's weight by exp(bias); banned text is masked exactly when a brute-force search
// finds the candidate completing a banned string (random vocabularies, histories and strings); the
// minimum length masks the turn's end until it is reached; a stage that masks everything is an
// error naming it; the trace reports what was masked and by which stage; stop strings stop at the
// right byte however the text is split, and hold back nothing that cannot begin one.

#include <QTest>

#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "sampling/candidate_set.h"
#include "sampling/logit_processors.h"
#include "sampling/sampler.h"
#include "sampling/stop_strings.h"
#include "support/test_models.h"

using namespace inferlens;

namespace {

constexpr float kInfinity = std::numeric_limits<float>::infinity();

std::vector<float> randomLogits(size_t n, uint32_t seed) {
    std::mt19937 random(seed);
    std::normal_distribution<float> normal(0.0f, 2.0f);
    std::vector<float> logits(n);
    for (float& logit : logits)
        logit = normal(random);
    return logits;
}

// Whether appending `token` to `generated` completes an occurrence of `banned` (one that ends
// inside the token's bytes), by looking at every position.
bool completesBrute(const std::string& generated, const std::string& token,
                    const std::vector<std::string>& banned) {
    const std::string text = generated + token;
    for (const std::string& b : banned)
        for (size_t at = 0; at + b.size() <= text.size(); ++at)
            if (at + b.size() > generated.size() && text.compare(at, b.size(), b) == 0)
                return true;
    return false;
}

std::string randomWord(std::mt19937& random, size_t minLength, size_t maxLength) {
    std::uniform_int_distribution<size_t> length(minLength, maxLength);
    std::uniform_int_distribution<int> letter(0, 2);
    std::string word(length(random), 'a');
    for (char& c : word)
        c = char('a' + letter(random));
    return word;
}

}  // namespace

class TestLogitProcessors : public QObject {
    Q_OBJECT

  private slots:
    void forcedAndBannedTokensAlwaysHold() {
        const std::vector<float> logits = randomLogits(50, 1);
        SamplingParams forced = test::neutralSampling();
        forced.logitBias = {{7, kInfinity}, {9, kInfinity}};
        std::set<int32_t> chosen;
        for (uint64_t seed = 0; seed < 200; ++seed) {
            forced.seed = seed;
            Sampler sampler(forced, 50);
            chosen.insert(sampler.sample(logits, {}));
        }
        QCOMPARE(chosen, (std::set<int32_t>{7, 9}));

        // The model's favourite, banned: never chosen, and named in the trace.
        const int32_t best =
            int32_t(std::max_element(logits.begin(), logits.end()) - logits.begin());
        SamplingParams banned = test::neutralSampling();
        banned.logitBias = {{best, -kInfinity}};
        Sampler sampler(banned, 50);
        for (int i = 0; i < 500; ++i) {
            SamplingTrace trace;
            QVERIFY(sampler.sample(logits, {}, &trace) != best);
            QCOMPARE(trace.masked.size(), size_t(1));
            QCOMPARE(trace.masked[0].id, best);
            QCOMPARE(trace.masked[0].rawLogit, logits[size_t(best)]);
            QCOMPARE(trace.masked[0].maskedBy, SamplingStage::LogitBias);
            QCOMPARE(trace.keptAfter(SamplingStage::LogitBias), int64_t(49));
            for (const TraceCandidate& row : trace.candidates)
                if (row.id == best)
                    QCOMPARE(row.cutBy, std::optional(SamplingStage::LogitBias));
        }
    }

    void aFiniteBiasMultipliesTheWeight() {
        const std::vector<float> logits = randomLogits(20, 2);
        SamplingParams params = test::neutralSampling();
        params.traceTopN = 20;
        params.logitBias = {{4, float(std::log(3.0))}, {11, -1.5f}};
        Sampler sampler(params, 20);
        const SamplingTrace trace = sampler.preview(params, logits, {}, 0.5);
        // Reference in double: weights exp(logit), times 3 for token 4 and exp(-1.5) for 11.
        double total = 0;
        std::vector<double> weight(20);
        for (size_t i = 0; i < 20; ++i) {
            weight[i] = std::exp(double(logits[i])) * (i == 4 ? 3.0 : i == 11 ? std::exp(-1.5) : 1);
            total += weight[i];
        }
        QCOMPARE(trace.candidates.size(), size_t(20));
        for (const TraceCandidate& row : trace.candidates) {
            const double expected = weight[size_t(row.id)] / total;
            QVERIFY2(std::abs(row.probability[size_t(SamplingStage::LogitBias)] - expected) < 1e-6,
                     qPrintable(QString::number(row.id)));
            QCOMPARE(row.finalProbability(), row.probability[size_t(SamplingStage::LogitBias)]);
        }
        QVERIFY(trace.masked.empty());
    }

    void bannedTextMatchesABruteForceSearch() {
        std::mt19937 random(3);
        int cases = 0, masked = 0, refused = 0;
        for (int round = 0; round < 300; ++round) {
            // A vocabulary of short strings over {a, b, c} (and one special, standing for nothing).
            std::vector<std::string> texts{""};
            for (int i = 0; i < 30; ++i)
                texts.push_back(randomWord(random, 1, 3));
            std::vector<std::string> banned;
            for (int i = 0, n = 1 + round % 3; i < n; ++i)
                banned.push_back(randomWord(random, 2, 5));
            std::uniform_int_distribution<int32_t> anyId(0, int32_t(texts.size()) - 1);
            std::vector<int32_t> history(size_t(3 + round % 7));
            for (int32_t& id : history)
                id = anyId(random);
            const size_t promptLength = 3;
            std::string generated;
            for (size_t i = promptLength; i < history.size(); ++i)
                generated += texts[size_t(history[i])];

            CandidateSet candidates(std::vector<float>(texts.size(), 0.0f));
            const SamplerContext context{history, promptLength, {}, &texts};
            std::set<int32_t> expectedLive;
            for (int32_t id = 0; id < int32_t(texts.size()); ++id)
                if (!completesBrute(generated, texts[size_t(id)], banned))
                    expectedLive.insert(id);
            ++cases;
            try {
                BannedTextStage(banned).apply(candidates, context);
            } catch (const Error& error) {
                QVERIFY(expectedLive.empty());
                QVERIFY(QString(error.what()).contains("banned-text"));
                ++refused;
                continue;
            }
            std::set<int32_t> live;
            for (const Candidate& c : candidates.live())
                live.insert(c.id);
            if (live != expectedLive)
                QFAIL(qPrintable(QString("round %1: generated '%2', banned '%3'")
                                     .arg(round)
                                     .arg(QString::fromStdString(generated))
                                     .arg(QString::fromStdString(banned[0]))));
            masked += int(texts.size() - live.size());
        }
        qInfo("%d cases, %d tokens masked, %d refused", cases, masked, refused);
        QVERIFY(masked > 100);  // the cases are not trivially empty
    }

    void bannedTextNeedsTheTokenTexts() {
        SamplingParams params = test::neutralSampling();
        params.bannedTexts = {"x"};
        Sampler sampler(params, 4);
        const std::vector<float> logits(4, 0.0f);
        QVERIFY_THROWS_EXCEPTION(Error, sampler.sample(logits, {}));
        params.bannedTexts = {""};
        QVERIFY_THROWS_EXCEPTION(Error, validate(params));
    }

    void theTurnCannotEndBeforeTheMinimum() {
        std::vector<float> logits(10, 0.0f);
        logits[0] = 5;  // the end-of-turn token is the model's favourite
        SamplingParams params = test::neutralSampling();
        params.temperature = 0;  // greedy
        params.minNewTokens = 3;
        Sampler sampler(params, 10);
        sampler.setStopIds({0});
        sampler.beginGeneration(2);
        std::vector<int32_t> history{4, 5};
        for (int step = 0; step < 3; ++step) {
            SamplingTrace trace;
            const int32_t id = sampler.sample(logits, history, &trace);
            QVERIFY(id != 0);
            QCOMPARE(trace.masked.at(0).maskedBy, SamplingStage::MinNewTokens);
            history.push_back(id);
        }
        QCOMPARE(sampler.sample(logits, history), 0);  // three new tokens: it may end now

        // A vocabulary of nothing but end tokens cannot satisfy the minimum.
        Sampler stuck(params, 1);
        stuck.setStopIds({0});
        stuck.beginGeneration(0);
        const std::vector<float> one{1.0f};
        try {
            stuck.sample(one, {});
            QFAIL("no error");
        } catch (const Error& error) {
            QVERIFY2(QString(error.what()).contains("min-new-tokens"), error.what());
        }
    }

    void stopStringsStopAtTheRightByteHoweverSplit() {
        const std::string text = "Say hello, world! Then STOP talking.";
        const std::vector<std::string> stops{"STOP", "world!!", "lo, wo"};
        // "lo, wo" comes first (at byte 8): every two-way and three-way split gives the same.
        const std::string expected = text.substr(0, text.find("lo, wo"));
        for (size_t i = 0; i <= text.size(); ++i) {
            for (size_t j = i; j <= text.size(); j += 3) {
                StopStrings matcher(stops);
                std::string shown = matcher.push(text.substr(0, i));
                shown += matcher.push(text.substr(i, j - i));
                shown += matcher.push(text.substr(j));
                QVERIFY(matcher.stopped());
                shown += matcher.flush();
                QCOMPARE(shown, expected);
            }
        }
        // Without a stop string in the text, everything comes out, and only a possible beginning
        // of one is held back at any time.
        StopStrings matcher({"abac"});
        QCOMPARE(matcher.push("xxab"), std::string("xx"));
        QCOMPARE(matcher.push("a"), std::string(""));    // "aba" may still begin "abac"
        QCOMPARE(matcher.push("b"), std::string("ab"));  // "abab": its "ab" may
        QCOMPARE(matcher.push("ac"), std::string(""));   // "abac": the text stops before it
        QVERIFY(matcher.stopped());
        QCOMPARE(matcher.push("more"), std::string());
        StopStrings quiet({"zz"});
        QCOMPARE(quiet.push("abz"), std::string("ab"));
        QCOMPARE(quiet.flush(), std::string("z"));
        QVERIFY(!quiet.stopped());
        QVERIFY_THROWS_EXCEPTION(Error, StopStrings({""}));
    }
};

QTEST_APPLESS_MAIN(TestLogitProcessors)
#include "test_logit_processors.moc"
