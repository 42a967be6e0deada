#include "decoding/beam_search.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"

namespace inferlens {
namespace {

struct Beam {
    int node = -1;
    int slot = 0;
    double logProbability = 0;
    std::vector<int32_t> tokens;
    std::vector<float> logits;  // after the beam's sequence
};

struct Extension {
    size_t beam = 0;
    int32_t token = 0;
    double tokenLogProbability = 0;
    double logProbability = 0;
};

// log softmax of logits[0 .. count) in double.
std::vector<double> logSoftmax(std::span<const float> logits, int64_t count) {
    double maximum = -std::numeric_limits<double>::infinity();
    for (int64_t i = 0; i < count; ++i)
        maximum = std::max(maximum, double(logits[size_t(i)]));
    double sum = 0;
    for (int64_t i = 0; i < count; ++i)
        sum += std::exp(double(logits[size_t(i)]) - maximum);
    const double logSum = maximum + std::log(sum);
    std::vector<double> out(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i)
        out[size_t(i)] = double(logits[size_t(i)]) - logSum;
    return out;
}

double scoreOf(double logProbability, size_t length, double lengthPenalty) {
    return logProbability / std::pow(double(std::max<size_t>(length, 1)), lengthPenalty);
}

bool betterExtension(const Extension& a, const Extension& b) {
    if (a.logProbability != b.logProbability)
        return a.logProbability > b.logProbability;
    return a.beam != b.beam ? a.beam < b.beam : a.token < b.token;
}

}  // namespace

void BackendBeamScorer::run(std::span<const int32_t> tokens, std::span<float> logits) {
    backend_.beginStep(tokens, backend_.cachedTokens());
    for (int64_t layer = 0; layer < backend_.config().layerCount; ++layer)
        backend_.runLayer(layer, nullptr);
    backend_.finishStep(logits, 1);
}

void BackendBeamScorer::start(std::span<const int32_t> prompt, int slotCount,
                              std::span<float> logits) {
    backend_.setCacheSlots(slotCount);
    for (int slot = slotCount - 1; slot >= 0; --slot) {
        backend_.useCacheSlot(slot);
        backend_.clearCache();
    }
    if (int64_t(prompt.size()) >= backend_.contextSize())
        throw Error("the prompt is " + std::to_string(prompt.size()) +
                    " tokens long and the context holds " + std::to_string(backend_.contextSize()));
    run(prompt, logits);
}

void BackendBeamScorer::extend(int slot, int32_t token, std::span<float> logits) {
    backend_.useCacheSlot(slot);
    if (backend_.cachedTokens() >= backend_.contextSize())
        throw Error("beam search filled the context of " + std::to_string(backend_.contextSize()) +
                    " tokens: lower --max-tokens");
    const int32_t tokens[] = {token};
    run(tokens, logits);
}

BeamSearchResult beamSearch(BeamScorer& scorer, std::span<const int32_t> prompt,
                            const BeamSearchOptions& options) {
    if (options.width < 1)
        throw Error("beam search needs a width of at least 1, got " +
                    std::to_string(options.width));
    if (prompt.empty())
        throw Error("the prompt has no tokens");
    const int width = options.width;
    const size_t nBest = size_t(options.nBest > 0 ? options.nBest : width);
    const int64_t vocabulary = scorer.vocabularySize();
    const int64_t choosable =
        options.sampleableCount > 0 ? std::min(options.sampleableCount, vocabulary) : vocabulary;
    // Each beam offers its 2 × width best tokens: enough that `width` beams survive even when up to
    // half the extensions finish.
    const size_t perBeam = size_t(std::min<int64_t>(choosable, 2 * int64_t(width)));
    const auto isStop = [&options](int32_t token) {
        return std::find(options.stopIds.begin(), options.stopIds.end(), token) !=
               options.stopIds.end();
    };

    BeamSearchResult result;
    std::vector<BeamHypothesis> done;
    std::vector<Beam> beams(1);
    beams[0].logits.resize(size_t(vocabulary));
    scorer.start(prompt, width, beams[0].logits);
    result.slotsUsed = 1;

    for (int64_t step = 1; step <= options.maxNewTokens && !beams.empty(); ++step) {
        result.steps = step;
        std::vector<Extension> extensions;
        for (size_t b = 0; b < beams.size(); ++b) {
            const std::vector<double> logProbabilities = logSoftmax(beams[b].logits, choosable);
            std::vector<int32_t> ids(static_cast<size_t>(choosable));
            for (int32_t id = 0; id < int32_t(choosable); ++id)
                ids[size_t(id)] = id;
            std::partial_sort(ids.begin(), ids.begin() + ptrdiff_t(perBeam), ids.end(),
                              [&](int32_t a, int32_t c) {
                                  const double pa = logProbabilities[size_t(a)];
                                  const double pc = logProbabilities[size_t(c)];
                                  return pa > pc || (pa == pc && a < c);
                              });
            for (size_t i = 0; i < perBeam; ++i) {
                const double tokenLogProbability = logProbabilities[size_t(ids[i])];
                if (std::isfinite(tokenLogProbability))
                    extensions.push_back({b, ids[i], tokenLogProbability,
                                          beams[b].logProbability + tokenLogProbability});
            }
        }
        std::sort(extensions.begin(), extensions.end(), betterExtension);

        const size_t firstOfStep = result.nodes.size();
        std::vector<Beam> next;
        std::vector<size_t> parents;  // index into `beams` of each next beam's parent
        for (size_t rank = 0; rank < extensions.size(); ++rank) {
            const Extension& e = extensions[rank];
            BeamNode node{int(result.nodes.size()), beams[e.beam].node, e.token,
                          e.tokenLogProbability,    e.logProbability,   step,
                          BeamNode::Fate::Pruned};
            std::vector<int32_t> tokens = beams[e.beam].tokens;
            tokens.push_back(e.token);
            if (isStop(e.token)) {
                // As in Hugging Face's generate: a stop ranked past the width is not a hypothesis.
                if (rank < size_t(width)) {
                    node.fate = BeamNode::Fate::Finished;
                    done.push_back({tokens, e.logProbability,
                                    scoreOf(e.logProbability, tokens.size(), options.lengthPenalty),
                                    true, node.id});
                }
            } else if (next.size() < size_t(width)) {
                node.fate = BeamNode::Fate::Kept;
                next.push_back({node.id, -1, e.logProbability, std::move(tokens), {}});
                parents.push_back(e.beam);
            }
            result.nodes.push_back(node);
        }

        result.stopped =
            options.onStep && !options.onStep(std::span(result.nodes).subspan(firstOfStep));
        // The budget is spent (or the caller stops): the live beams are hypotheses as they are.
        if (step == options.maxNewTokens || result.stopped) {
            for (const Beam& beam : next)
                done.push_back(
                    {beam.tokens, beam.logProbability,
                     scoreOf(beam.logProbability, beam.tokens.size(), options.lengthPenalty), false,
                     beam.node});
            break;
        }
        if (done.size() >= nBest) {
            if (options.earlyStopping || next.empty())
                break;
            // No live beam can beat the worst of the best finished ones.
            std::vector<double> scores;
            for (const BeamHypothesis& h : done)
                scores.push_back(h.score);
            std::nth_element(scores.begin(), scores.begin() + ptrdiff_t(nBest - 1), scores.end(),
                             std::greater<>());
            double bestLive = -std::numeric_limits<double>::infinity();
            for (const Beam& beam : next)
                bestLive = std::max(
                    bestLive,
                    scoreOf(beam.logProbability,
                            size_t(options.lengthPenalty > 0 ? options.maxNewTokens : step),
                            options.lengthPenalty));
            if (scores[nBest - 1] >= bestLive)
                break;
        }

        // Caches: the first child of a parent takes its slot over; the others copy it into slots
        // no next beam holds. All copies happen before any slot is extended.
        std::vector<bool> taken(size_t(width), false);
        std::vector<bool> parentPassed(beams.size(), false);
        for (size_t i = 0; i < next.size(); ++i) {
            if (!parentPassed[parents[i]]) {
                parentPassed[parents[i]] = true;
                next[i].slot = beams[parents[i]].slot;
                taken[size_t(next[i].slot)] = true;
            }
        }
        size_t free = 0;
        for (size_t i = 0; i < next.size(); ++i) {
            if (next[i].slot >= 0)
                continue;
            while (taken[free])
                ++free;
            taken[free] = true;
            next[i].slot = int(free);
            scorer.fork(beams[parents[i]].slot, next[i].slot);
        }
        result.slotsUsed = std::max(result.slotsUsed, int(next.size()));
        for (Beam& beam : next) {
            beam.logits.resize(size_t(vocabulary));
            scorer.extend(beam.slot, beam.tokens.back(), beam.logits);
        }
        beams = std::move(next);
    }

    std::stable_sort(
        done.begin(), done.end(),
        [](const BeamHypothesis& a, const BeamHypothesis& b) { return a.score > b.score; });
    if (done.size() > nBest)
        done.resize(nBest);
    result.hypotheses = std::move(done);
    return result;
}

}  // namespace inferlens
