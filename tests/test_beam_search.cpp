// Beam search. Width 1 is greedy decoding on a real (synthetic) model. With a width that prunes
// nothing, the n-best list and its scores equal an exhaustive search over every continuation of a
// scorer with known logits (with and without a length penalty). On a real model every hypothesis's
// log-probability equals the one a fresh generator computes for its tokens, which holds only if the
// beams' KV caches were forked and reused correctly; the search never holds more caches than its
// width, and its tree is consistent (each node's log-probability is its parent's plus its token's;
// at most `width` nodes kept per step; finished nodes are the hypotheses).

#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <functional>
#include <map>

#include "core/error.h"
#include "decoding/beam_search.h"
#include "generator.h"
#include "support/test_models.h"

using namespace inferlens;

namespace {

// Logits that depend on the whole sequence through a hash: a model whose every distribution is
// known without running anything.
class HashScorer final : public BeamScorer {
  public:
    explicit HashScorer(int64_t vocabulary) : vocabulary_(vocabulary) {}
    int64_t vocabularySize() const override { return vocabulary_; }
    void start(std::span<const int32_t> prompt, int slotCount, std::span<float> logits) override {
        slots_ = std::vector<std::vector<int32_t>>(static_cast<size_t>(slotCount));
        slots_[0].assign(prompt.begin(), prompt.end());
        fill(slots_[0], logits);
    }
    void fork(int from, int to) override { slots_[size_t(to)] = slots_[size_t(from)]; }
    void extend(int slot, int32_t token, std::span<float> logits) override {
        slots_[size_t(slot)].push_back(token);
        fill(slots_[size_t(slot)], logits);
    }
    void fill(const std::vector<int32_t>& sequence, std::span<float> logits) const {
        for (int64_t id = 0; id < vocabulary_; ++id) {
            uint64_t h = 1469598103934665603ull;
            for (int32_t token : sequence)
                h = (h ^ uint64_t(token + 1)) * 1099511628211ull;
            h = (h ^ uint64_t(id + 101)) * 1099511628211ull;
            logits[size_t(id)] = float(double(h % 10007) / 10007.0 * 4.0);
        }
    }

  private:
    int64_t vocabulary_;
    std::vector<std::vector<int32_t>> slots_;
};

struct Found {
    std::vector<int32_t> tokens;
    double logProbability;
    double score;
};

// Every continuation up to `maxTokens`, ending at a stop token or at the budget.
void exhaustive(const HashScorer& scorer, std::vector<int32_t>& sequence, size_t promptLength,
                double logProbability, int64_t maxTokens, int32_t stop, double penalty,
                std::vector<Found>& out) {
    std::vector<float> logits(size_t(scorer.vocabularySize()));
    scorer.fill(sequence, logits);
    double maximum = -1e300, sum = 0;
    for (float l : logits)
        maximum = std::max(maximum, double(l));
    for (float l : logits)
        sum += std::exp(double(l) - maximum);
    for (int32_t token = 0; token < int32_t(logits.size()); ++token) {
        const double lp = logProbability + double(logits[size_t(token)]) - maximum - std::log(sum);
        sequence.push_back(token);
        const auto length = int64_t(sequence.size() - promptLength);
        if (token == stop || length == maxTokens)
            out.push_back(
                {std::vector<int32_t>(sequence.begin() + ptrdiff_t(promptLength), sequence.end()),
                 lp, lp / std::pow(double(length), penalty)});
        else
            exhaustive(scorer, sequence, promptLength, lp, maxTokens, stop, penalty, out);
        sequence.pop_back();
    }
}

void checkTree(const BeamSearchResult& result, int width) {
    std::map<int64_t, int> keptPerStep;
    for (const BeamNode& node : result.nodes) {
        if (node.parent >= 0) {
            const BeamNode& parent = result.nodes[size_t(node.parent)];
            QCOMPARE(parent.fate, BeamNode::Fate::Kept);
            QCOMPARE(parent.step + 1, node.step);
            QVERIFY(std::abs(parent.logProbability + node.tokenLogProbability -
                             node.logProbability) < 1e-9);
        } else {
            QCOMPARE(node.step, int64_t(1));
        }
        if (node.fate == BeamNode::Fate::Kept)
            ++keptPerStep[node.step];
    }
    for (const auto& [step, kept] : keptPerStep)
        QVERIFY(kept <= width);
    for (const BeamHypothesis& h : result.hypotheses) {
        const BeamNode& last = result.nodes[size_t(h.node)];
        QCOMPARE(last.fate, h.finished ? BeamNode::Fate::Finished : BeamNode::Fate::Kept);
        QCOMPARE(last.logProbability, h.logProbability);
        QCOMPARE(last.token, h.tokens.back());
    }
}

}  // namespace

class TestBeamSearch : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        SyntheticModelOptions options;
        options.architecture = "chatglm";
        options.layers = 2;
        options.vocab = 330;
        model_ = test::writeSynthetic(dir_, "glm.gguf", options);
    }

    void theNBestListEqualsAnExhaustiveSearch_data() {
        QTest::addColumn<double>("penalty");
        QTest::addColumn<bool>("earlyStopping");
        QTest::newRow("no length penalty") << 0.0 << false;
        QTest::newRow("length penalty 1") << 1.0 << false;
        QTest::newRow("length penalty 2") << 2.0 << false;
    }

    void theNBestListEqualsAnExhaustiveSearch() {
        QFETCH(double, penalty);
        QFETCH(bool, earlyStopping);
        HashScorer scorer(3);
        const std::vector<int32_t> prompt{2, 1};
        BeamSearchOptions options;
        options.width = 27;  // more than the 16 live continuations of 4 tokens: nothing is pruned
        options.nBest = 6;
        options.lengthPenalty = penalty;
        options.earlyStopping = earlyStopping;
        options.maxNewTokens = 4;
        options.stopIds = {0};
        const BeamSearchResult result = beamSearch(scorer, prompt, options);

        std::vector<Found> all;
        std::vector<int32_t> sequence = prompt;
        exhaustive(scorer, sequence, prompt.size(), 0, 4, 0, penalty, all);
        std::stable_sort(all.begin(), all.end(),
                         [](const Found& a, const Found& b) { return a.score > b.score; });
        QCOMPARE(all.size(), size_t(1 + 2 + 4 + 24));  // a stop at depths 1-3, all 24 at depth 4
        QCOMPARE(result.hypotheses.size(), size_t(6));
        for (size_t i = 0; i < 6; ++i) {
            QCOMPARE(result.hypotheses[i].tokens, all[i].tokens);
            QVERIFY(std::abs(result.hypotheses[i].logProbability - all[i].logProbability) < 1e-6);
            QVERIFY(std::abs(result.hypotheses[i].score - all[i].score) < 1e-6);
            QCOMPARE(result.hypotheses[i].finished, all[i].tokens.back() == 0);
        }
        checkTree(result, options.width);
    }

    void aNarrowSearchPrunesAndNeverBeatsTheExhaustiveBest() {
        HashScorer scorer(5);
        BeamSearchOptions options;
        options.width = 2;
        options.maxNewTokens = 6;
        options.stopIds = {0};
        options.earlyStopping = false;
        const BeamSearchResult result = beamSearch(scorer, std::vector<int32_t>{3}, options);
        std::vector<Found> all;
        std::vector<int32_t> sequence{3};
        exhaustive(scorer, sequence, 1, 0, 6, 0, 1.0, all);
        double best = -1e300;
        for (const Found& f : all)
            best = std::max(best, f.score);
        QVERIFY(!result.hypotheses.empty());
        QVERIFY(result.hypotheses[0].score <= best + 1e-9);
        int pruned = 0;
        for (const BeamNode& node : result.nodes)
            pruned += node.fate == BeamNode::Fate::Pruned ? 1 : 0;
        QVERIFY(pruned > 0);
        QVERIFY(result.slotsUsed <= 2);
        checkTree(result, 2);
    }

    void widthOneIsGreedy() {
        const Model model = Model::open(model_);
        const std::vector<int32_t> prompt = test::testIds(9, 320, 3);
        GeneratorOptions generatorOptions;
        generatorOptions.threads = 1;
        generatorOptions.contextSize = 64;
        Generator generator(model, generatorOptions);
        GreedyChooser greedy;
        const Generation expected = generator.generate(prompt, 12, greedy, {});

        const auto backend = makeForwardBackend(model, generatorOptions);
        BackendBeamScorer scorer(*backend);
        BeamSearchOptions options;
        options.width = 1;
        options.maxNewTokens = 12;
        const BeamSearchResult result = beamSearch(scorer, prompt, options);
        QCOMPARE(result.hypotheses.size(), size_t(1));
        QCOMPARE(result.hypotheses[0].tokens, expected.tokens);
    }

    void everyHypothesisHasTheLogProbabilityOfItsTokens() {
        const Model model = Model::open(model_);
        const std::vector<int32_t> prompt = test::testIds(7, 320, 5);
        GeneratorOptions generatorOptions;
        generatorOptions.threads = 2;
        generatorOptions.contextSize = 64;
        const auto backend = makeForwardBackend(model, generatorOptions);
        BackendBeamScorer scorer(*backend);
        BeamSearchOptions options;
        options.width = 3;
        options.nBest = 3;
        options.maxNewTokens = 8;
        options.stopIds = {2};
        const BeamSearchResult result = beamSearch(scorer, prompt, options);
        QCOMPARE(result.hypotheses.size(), size_t(3));
        QVERIFY(result.slotsUsed <= 3);
        checkTree(result, 3);
        for (const BeamHypothesis& h : result.hypotheses) {
            // A fresh run over prompt + tokens, every position's logits, no beams involved.
            std::vector<int32_t> ids = prompt;
            ids.insert(ids.end(), h.tokens.begin(), h.tokens.end() - 1);
            const std::vector<float> logits = test::engineLogits(model_, ids);
            const size_t vocabulary = logits.size() / ids.size();
            double logProbability = 0;
            for (size_t i = 0; i < h.tokens.size(); ++i) {
                const float* row = logits.data() + (prompt.size() - 1 + i) * vocabulary;
                double maximum = -1e300, sum = 0;
                for (size_t v = 0; v < vocabulary; ++v)
                    maximum = std::max(maximum, double(row[v]));
                for (size_t v = 0; v < vocabulary; ++v)
                    sum += std::exp(double(row[v]) - maximum);
                logProbability += double(row[size_t(h.tokens[i])]) - maximum - std::log(sum);
            }
            QVERIFY2(std::abs(logProbability - h.logProbability) < 1e-3,
                     qPrintable(QString("%1 vs %2").arg(logProbability).arg(h.logProbability)));
        }
    }

    void theTreeStreamsStepByStepAndTheCallerCanStop() {
        HashScorer scorer(6);
        BeamSearchOptions options;
        options.width = 3;
        options.maxNewTokens = 7;
        options.stopIds = {0};
        options.earlyStopping = false;
        std::vector<BeamNode> streamed;
        int64_t calls = 0, nodesOfOtherSteps = 0;
        options.onStep = [&](std::span<const BeamNode> nodes) {
            ++calls;
            for (const BeamNode& node : nodes) {
                nodesOfOtherSteps += node.step != calls ? 1 : 0;  // a step's nodes, and only those
                streamed.push_back(node);
            }
            return true;
        };
        const BeamSearchResult whole = beamSearch(scorer, std::vector<int32_t>{4}, options);
        QCOMPARE(calls, whole.steps);
        QCOMPARE(nodesOfOtherSteps, int64_t(0));
        QCOMPARE(streamed.size(), whole.nodes.size());
        for (size_t i = 0; i < streamed.size(); ++i) {
            QCOMPARE(streamed[i].id, whole.nodes[i].id);
            QCOMPARE(streamed[i].parent, whole.nodes[i].parent);
            QCOMPARE(streamed[i].token, whole.nodes[i].token);
            QVERIFY(streamed[i].fate == whole.nodes[i].fate);
        }
        QVERIFY(!whole.stopped);

        // Stopped after step 3: the live beams of step 3 are the (unfinished) hypotheses.
        options.onStep = [](std::span<const BeamNode> nodes) { return nodes.front().step < 3; };
        const BeamSearchResult stopped = beamSearch(scorer, std::vector<int32_t>{4}, options);
        QVERIFY(stopped.stopped);
        QCOMPARE(stopped.steps, int64_t(3));
        QVERIFY(!stopped.hypotheses.empty());
        for (const BeamHypothesis& h : stopped.hypotheses) {
            QVERIFY(h.tokens.size() <= 3);
            QVERIFY(h.finished || h.tokens.size() == 3);
        }
        // Up to its stop, the stopped search is the whole one.
        for (size_t i = 0; i < stopped.nodes.size(); ++i)
            QCOMPARE(stopped.nodes[i].token, whole.nodes[i].token);
        checkTree(stopped, 3);
    }

    void badOptionsAreRefused() {
        HashScorer scorer(3);
        BeamSearchOptions options;
        options.width = 0;
        QVERIFY_THROWS_EXCEPTION(Error, beamSearch(scorer, std::vector<int32_t>{1}, options));
        options.width = 2;
        QVERIFY_THROWS_EXCEPTION(Error, beamSearch(scorer, std::vector<int32_t>{}, options));
    }

  private:
    QTemporaryDir dir_;
    std::string model_;
};

QTEST_APPLESS_MAIN(TestBeamSearch)
#include "test_beam_search.moc"
