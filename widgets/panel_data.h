#pragma once
// What the panels are given: plain values that the app fills from engine events (the widgets never
// see an engine type, so they can be tested, or fed from a recorded trace, without a model).
// Positions count tokens from 0 at the first token of the rendered prompt.

#include <QByteArray>
#include <QString>
#include <QtGlobal>
#include <array>
#include <vector>

namespace inferlens::widgets {

// One token of the prompt or of the answer.
struct TokenChip {
    int id = 0;
    QString piece;     // the vocabulary entry, e.g. "▁world", "<0xE4>", "[gMASK]"
    QByteArray bytes;  // the text bytes it stands for (may be part of a UTF-8 character)
    bool special = false;
    bool byteFallback = false;
    bool generated = false;  // produced by the model rather than part of the prompt
};

// Attention weights of one head, for query rows firstQuery .. firstQuery + queryCount − 1 (row i is
// position firstQuery + i) over key positions 0 .. keyCount − 1. Causal: a row's weights past its
// own position are zero. A prefill gives firstQuery 0 and a square matrix; a decode step one row.
struct AttentionMatrix {
    int layer = 0;
    int head = 0;
    int firstQuery = 0;
    int queryCount = 0;
    int keyCount = 0;
    // Row-major [queryCount, keyCount]; kEvicted for the keys outside a sliding KV cache's window
    // (evicted, or masked for that row), kOutsideWindow for those before a local layer's own
    // window (Gemma 3's sliding-window layers): keys the query did not attend to.
    std::vector<float> weights;
    static constexpr float kEvicted = -1.0f;
    static constexpr float kOutsideWindow = -2.0f;

    float at(int row, int key) const {
        return weights[size_t(row) * size_t(keyCount) + size_t(key)];
    }
};

// The sampling stages a candidate's probability is shown after, in the sampler's order.
enum SamplingStageIndex : int {
    kStageRaw = 0,          // softmax of the logits
    kStagePenalties = 1,    // after repetition / frequency / presence penalties
    kStageTemperature = 2,  // after temperature
    kStageFinal = 3,        // after top-k / top-p / min-p, renormalised; 0 when cut
    kSamplingStageCount = 4
};

struct SamplingCandidate {
    int id = 0;
    QString label;  // the token as text, already made readable by the app or via display_text.h
    std::array<float, kSamplingStageCount> probability{};  // indexed by SamplingStageIndex
    bool kept = false;
};

// A token a logit processor masked, whatever its probability.
struct MaskedToken {
    QString label;
    float probability = 0;  // in the raw distribution
    QString maskedBy;       // the processor, as the user reads it ("banned text")
};

struct SamplingStep {
    int step = 0;
    std::vector<MaskedToken> masked;  // the most likely ones masked, best first
    qint64 grammarAllowed = -1;       // tokens a grammar allowed at this step; -1: no grammar
    std::vector<SamplingCandidate> candidates;  // best first; the kept ones come first
    int cutoffIndex = 0;                        // how many of `candidates` were kept
    double nucleusMass = 1;                     // probability mass that top-p kept
    int chosenIndex = -1;                       // the drawn token's row, −1 if not in the list
    double entropy = 0;                         // of the distribution drawn from, in nats
    float chosenProbability = 0;                // final probability of the drawn token
    // A step a server reported (remote/): only the raw probabilities of its top-N candidates are
    // known, and the rest of the vocabulary is one mass whose split nobody told us.
    bool fromServer = false;
    double unknownMass = 0;
    // A server's step re-shaped by other sampling settings (a preview): every stage is shown, but
    // among the top-N only — as if the next token were one of them — since the rest's split is
    // unknown.
    bool reshapedTopN = false;
};

// The KV cache after a step. The context limit (tokens) is set on the chart separately.
struct KvCachePoint {
    qint64 tokens = 0;  // held
    // Tokens run so far: those held plus those a sliding window evicted (the chart's x).
    qint64 position = 0;
    qint64 bytesUsed = 0;
    qint64 bytesAllocated = 0;
    qint64 bytesFullMultiHead = 0;      // what the same tokens would take without GQA/MQA sharing
    std::vector<qint64> bytesPerLayer;  // used, per layer (may be empty)
    // During a beam search: the caches of the other beams (each beam has its own) and how many
    // beams there are; 0 and 1 otherwise.
    qint64 bytesOtherBeams = 0;
    int beams = 1;
    QString type = QStringLiteral("f32");  // how keys and values are stored: f32, f16, int8
    qint64 bytesAsF32 = 0;                 // the same tokens stored as f32
    bool slides = false;                   // a sliding window with `sinks` kept tokens
    qint64 sinks = 0;
    qint64 evicted = 0;
};

// Time of one step of the outer loop, split over the inner loop's layers.
struct LoopTiming {
    int step = 0;
    bool prefill = false;
    int tokenCount = 1;  // tokens this step processed (the prompt's length for prefill)
    std::vector<double> layerSeconds;  // per layer, in order (may be partial while a step runs)
    double stepSeconds = 0;            // the whole step: layers plus the LM head and sampling
};

// The logit lens after one step: for every layer, what the model would predict if it stopped
// there (the final norm and LM head applied to that layer's hidden state of the step's last token).
struct LensCandidate {
    QString label;
    float probability = 0;
};
struct LensLayer {
    int layer = 0;
    double residualNorm = 0;         // ‖hidden state‖ after the layer
    double attentionEntropy = 0;     // mean over heads of this step's rows, nats; NaN when unknown
    std::vector<LensCandidate> top;  // most probable first
};
struct LensSnapshot {
    int step = 0;
    int position = 0;  // the token whose hidden states these are
    std::vector<LensLayer> layers;
};

// One node of a beam search's tree: a token appended to a parent node (−1: the prompt). Ids count
// from 0 in the order the search considered them, so a parent always comes before its children.
struct BeamTreeNode {
    enum class Fate { Kept, Pruned, Finished };  // kept as a beam; pruned; ended by a stop token
    int id = 0;
    int parent = -1;
    int step = 1;  // depth: 1 for the first new token
    QString label;
    double tokenLogProbability = 0;  // log p(token | the parent's sequence)
    double logProbability = 0;       // of the whole continuation
    Fate fate = Fate::Pruned;
};

// The KV cache on/off experiment: seconds (and FLOPs) per generated token with and without the
// cache; token i's entry is the step that chose it (the prefill for token 0).
struct KvExperimentData {
    int promptTokens = 0;
    std::vector<double> secondsWithCache, secondsWithoutCache;
    std::vector<double> flopsWithCache, flopsWithoutCache;
    bool identical = true;  // both runs chose the same tokens
};

}  // namespace inferlens::widgets
