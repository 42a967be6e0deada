#pragma once
// Beam search: keeps the `width` most probable continuations (beams) instead of one, extending
// each by its most likely tokens at every step and keeping the best `width` of all extensions.
// A continuation that ends with a stop token is finished: it joins the hypotheses, scored by its
// log-probability divided by length^lengthPenalty (α > 0 favours longer answers, as in
// Hugging Face's generate). The search stops when every beam is finished or the token budget is
// spent, or — with early stopping — as soon as nBest hypotheses are finished; without it, when no
// live beam can still beat the worst of the nBest hypotheses (an exact bound, so that the search
// then returns what an exhaustive search within the beams' reach would). Lengths count new tokens.
//
// The search itself knows nothing of models: a BeamScorer gives the logits after a sequence and
// keeps one KV cache per beam (slots). BackendBeamScorer runs a real model on a backend that has
// cache slots: a beam that forks copies its parent's cache, the first child of a parent takes the
// parent's slot over, so the search holds at most `width` caches.
//
// Every step is recorded for the beam tree: each candidate considered (its parent, token, the
// token's log-probability and the cumulative one) and what became of it — kept as a beam, pruned,
// or finished.

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "backend/forward_backend.h"

namespace inferlens {

class BeamScorer {
  public:
    virtual ~BeamScorer() = default;
    virtual int64_t vocabularySize() const = 0;
    // Prepares `slotCount` caches, runs the prompt in slot 0 and writes the logits after it.
    virtual void start(std::span<const int32_t> prompt, int slotCount, std::span<float> logits) = 0;
    // Makes slot `to` hold what slot `from` holds.
    virtual void fork(int from, int to) = 0;
    // Appends `token` to the sequence in `slot` and writes the logits after it.
    virtual void extend(int slot, int32_t token, std::span<float> logits) = 0;
};

// A model on a backend with cache slots (ForwardBackend::setCacheSlots).
class BackendBeamScorer final : public BeamScorer {
  public:
    explicit BackendBeamScorer(ForwardBackend& backend) : backend_(backend) {}
    int64_t vocabularySize() const override { return backend_.config().vocabSize; }
    void start(std::span<const int32_t> prompt, int slotCount, std::span<float> logits) override;
    void fork(int from, int to) override { backend_.copyCacheSlot(from, to); }
    void extend(int slot, int32_t token, std::span<float> logits) override;

  private:
    void run(std::span<const int32_t> tokens, std::span<float> logits);

    ForwardBackend& backend_;
};

// One node of the search tree: a token appended to a parent node (-1: the prompt).
struct BeamNode {
    enum class Fate { Kept, Pruned, Finished };
    int id = 0;
    int parent = -1;
    int32_t token = 0;
    double tokenLogProbability = 0;  // log p(token | parent's sequence)
    double logProbability = 0;       // of the whole continuation
    int64_t step = 0;                // depth: 1 for the first new token
    Fate fate = Fate::Pruned;
};

struct BeamSearchOptions {
    int width = 4;
    int nBest = 0;  // hypotheses returned; 0: width
    double lengthPenalty = 1.0;
    bool earlyStopping = true;
    int64_t maxNewTokens = 64;
    std::vector<int32_t> stopIds;  // tokens that finish a hypothesis
    int64_t sampleableCount = 0;   // ids below it may be chosen; 0: the whole vocabulary
    // Called after every step with the nodes it added (the tree as it grows). Returning false
    // stops the search there, as if the budget were spent: the live beams become unfinished
    // hypotheses (BeamSearchResult::stopped).
    std::function<bool(std::span<const BeamNode> stepNodes)> onStep;
};

struct BeamHypothesis {
    std::vector<int32_t> tokens;  // the new tokens, a stop token included
    double logProbability = 0;
    double score = 0;       // logProbability / length^lengthPenalty
    bool finished = false;  // ended with a stop token (else the budget ran out)
    int node = -1;          // its last node in the tree
};

struct BeamSearchResult {
    std::vector<BeamHypothesis> hypotheses;  // best score first, at most nBest
    std::vector<BeamNode> nodes;             // every candidate considered, in order of steps
    int64_t steps = 0;
    int slotsUsed = 0;     // KV caches the search needed at once
    bool stopped = false;  // onStep asked to stop
};

// Throws Error for a width below 1 or an empty prompt.
BeamSearchResult beamSearch(BeamScorer& scorer, std::span<const int32_t> prompt,
                            const BeamSearchOptions& options);

}  // namespace inferlens
