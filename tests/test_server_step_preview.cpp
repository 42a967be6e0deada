// The sliders' preview over a server's step: the sampler's stages run over the top-N the server
// reported, renormalised among themselves, checked against the formulas in double precision
// (temperature: p^(1/T) normalised; top-k and top-p keep a prefix; the final stage renormalises
// what is kept), the server's choice staying marked and the unknown mass untouched.

#include <QTest>

#include <cmath>
#include <numeric>
#include <vector>

#include "panel_conversion.h"

using namespace inferlens;
using namespace inferlens::gui;

namespace {

const std::vector<double> kReported = {0.5, 0.2, 0.1, 0.05};  // the rest: 0.15, unknown

widgets::SamplingStep serverStep() {
    widgets::SamplingStep step;
    step.step = 4;
    step.fromServer = true;
    step.unknownMass = 0.15;
    step.chosenIndex = 1;
    for (size_t i = 0; i < kReported.size(); ++i) {
        widgets::SamplingCandidate candidate;
        candidate.id = int(100 + i);
        candidate.label = QString("t%1").arg(i);
        candidate.probability = {float(kReported[i]), 0, 0, 0};
        candidate.kept = true;
        step.candidates.push_back(candidate);
    }
    step.cutoffIndex = int(kReported.size());
    return step;
}

// p^(1/T) over the reported ones, normalised.
std::vector<double> tempered(double temperature) {
    std::vector<double> out;
    for (const double p : kReported)
        out.push_back(std::pow(p, 1 / temperature));
    const double sum = std::accumulate(out.begin(), out.end(), 0.0);
    for (double& q : out)
        q /= sum;
    return out;
}

SamplingParams neutral() {
    SamplingParams params;
    params.temperature = 1;
    params.topK = 0;
    params.topP = 1;
    params.minP = 0;
    return params;
}

}  // namespace

class TestServerStepPreview : public QObject {
    Q_OBJECT

  private slots:
    void temperatureReshapesAmongTheReportedOnes() {
        SamplingParams params = neutral();
        params.temperature = 0.5f;
        const widgets::SamplingStep preview = reshapeServerStep(serverStep(), params);
        QVERIFY(preview.reshapedTopN && preview.fromServer);
        QCOMPARE(preview.unknownMass, 0.15);
        const std::vector<double> expected = tempered(0.5);
        QCOMPARE(preview.candidates.size(), kReported.size());
        for (size_t i = 0; i < expected.size(); ++i) {
            const widgets::SamplingCandidate& row = preview.candidates[i];
            QCOMPARE(row.id, int(100 + i));
            QVERIFY(std::abs(row.probability[widgets::kStageRaw] - kReported[i] / 0.85) < 1e-5);
            QVERIFY(std::abs(row.probability[widgets::kStageTemperature] - expected[i]) < 1e-5);
            QVERIFY(std::abs(row.probability[widgets::kStageFinal] - expected[i]) < 1e-5);
        }
        QCOMPARE(preview.cutoffIndex, 4);
        QCOMPARE(preview.chosenIndex, 1);
    }

    void topKAndTopPKeepAPrefix() {
        SamplingParams params = neutral();
        params.topK = 2;
        widgets::SamplingStep preview = reshapeServerStep(serverStep(), params);
        QCOMPARE(preview.cutoffIndex, 2);
        const double kept = kReported[0] + kReported[1];
        QVERIFY(std::abs(preview.candidates[0].probability[widgets::kStageFinal] -
                         kReported[0] / kept) < 1e-5);
        QCOMPARE(preview.candidates[2].probability[widgets::kStageFinal], 0.0f);

        params = neutral();
        params.topP = 0.8f;  // among the four: 0.588, 0.824 ≥ 0.8 after the second
        preview = reshapeServerStep(serverStep(), params);
        QCOMPARE(preview.cutoffIndex, 2);
        QVERIFY(!preview.candidates[2].kept);
    }
};

QTEST_GUILESS_MAIN(TestServerStepPreview)
#include "test_server_step_preview.moc"
