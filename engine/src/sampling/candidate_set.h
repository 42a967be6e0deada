#pragma once
// The sampler's working set: one Candidate per sampleable token. Stages reshape the logits
// (penalties, temperature) or cut candidates (top-k, top-p, min-p); the live candidates are the
// first size() entries, and the ones cut stay behind them so that the trace can still report them.
//
// "Better" means a higher logit, ties going to the lower id (as argmax does). That is a strict
// total order, so every truncation keeps one well-defined set and the draw walks the candidates in
// the same sequence on every platform. Each truncation keeps the best candidates, so the live set
// is always the best size() of all. Sorting is partial and lazy: keepBest(40) of 65k tokens is one
// heap pass, not a full sort.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

namespace inferlens {

struct Candidate {
    int32_t id = 0;
    float logit = 0;
};

// A function object rather than a function, so that the sorting algorithms inline it.
inline constexpr auto ranksBefore = [](const Candidate& a, const Candidate& b) {
    return a.logit > b.logit || (a.logit == b.logit && a.id < b.id);
};

// exp(x) for x ≤ 0, within 1 ulp (checked against exp on every float in [-87, 0]): Cephes' expf
// (range reduction to |r| ≤ ln 2 / 2, a degree-6 polynomial, the power of two put into the exponent
// bits). The softmax runs it over the whole vocabulary several times a step, so two things matter:
// the result must not depend on the platform's libm (the draw compares sums of these numbers), and
// it must not be a library call per element: in the Qt test process, where something had left the
// upper halves of the AVX registers dirty, every call from our SSE code into libm's AVX expf paid
// a state-transition penalty, and a traced step took 35 ms instead of 2.
inline float expNonPositive(float x) {
    if (!(x >= -87.0f))  // below the smallest normal float (and -inf): no mass worth counting
        return 0.0f;
    const int32_t n = -int32_t(0.5f - x * 1.44269504088896341f);  // round(x / ln 2), x ≤ 0
    const float r = x - float(n) * 0.693359375f + float(n) * 2.12194440e-4f;  // x - n ln 2
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    return p * std::bit_cast<float>((n + 127) << 23);
}

// The softmax of a set of logits, summarised: any member's probability follows from its logit, so
// the probabilities need not be stored. probability() uses the same exp as the sum, so a running
// total over the members (the draw's) ends at 1 up to rounding of the division only.
struct Softmax {
    float maxLogit = 0;
    double sum = 1;        // Σ exp(logit - maxLogit)
    double logSumExp = 0;  // log Σ exp(logit)
    double entropy = 0;    // nats
    double probability(float logit) const { return double(expNonPositive(logit - maxLogit)) / sum; }
};

class CandidateSet {
  public:
    CandidateSet() = default;
    // Ids 0 .. n-1 with the given logits (hand-made sets in tests).
    explicit CandidateSet(std::span<const float> logits) { assign(logits, int64_t(logits.size())); }

    // Refills with ids [0, sampleableCount) whose `mask` entry is non-zero (empty mask: all of
    // them); logits.size() must be at least sampleableCount. Throws Error on a NaN or +inf logit
    // and when no candidate has a finite logit (-inf is allowed: a banned token).
    void assign(std::span<const float> logits, int64_t sampleableCount,
                std::span<const uint8_t> mask = {});

    size_t size() const { return size_; }  // live candidates
    std::span<Candidate> live() { return {items_.data(), size_}; }
    std::span<const Candidate> live() const { return {items_.data(), size_}; }
    // The live candidate with this id, or nullptr (cut, or not sampleable).
    Candidate* find(int32_t id);
    // The n best of all candidates, live or cut, best first.
    std::vector<Candidate> best(size_t n) const;

    // The softmax over the live candidates; cached until they change.
    const Softmax& softmax() const;

    // Makes live()[0 .. n) the n best live candidates, in order.
    void sortPrefix(size_t n);
    size_t sortedSize() const { return sorted_; }
    // Cuts all but the n best.
    void keepBest(size_t n);
    // Cuts the candidates whose logit is below `threshold` (those are the worst, in any order).
    void keepAtLeast(double threshold);
    // Cuts the live candidates `masked` says yes to, whatever their logit (a logit processor's
    // mask), and gives them a logit of -inf, so that they rank after every other candidate.
    // Returns how many were cut: they are cutSince(size() + that count).
    template <typename Predicate>
    size_t cutMasked(Predicate masked);
    // Candidates cut since the live set had `previousSize` members (most recent cuts).
    std::span<const Candidate> cutSince(size_t previousSize) const {
        return {items_.data() + size_, previousSize - size_};
    }
    // To be called after a stage rewrote logits through live().
    void logitsChanged();

  private:
    std::vector<Candidate> items_;
    size_t size_ = 0;
    size_t sorted_ = 0;    // live()[0 .. sorted_) are the best, in order
    bool idOrder_ = true;  // live() is in increasing id order (as assigned): find() can bisect
    mutable std::optional<Softmax> softmax_;
};

template <typename Predicate>
size_t CandidateSet::cutMasked(Predicate masked) {
    // Stable, so that the live ones keep their increasing id order (find() bisects).
    const auto kept = std::stable_partition(items_.begin(), items_.begin() + ptrdiff_t(size_),
                                            [&masked](const Candidate& c) { return !masked(c); });
    const size_t n = size_t(kept - items_.begin());
    const size_t cut = size_ - n;
    if (cut == 0)
        return 0;
    for (size_t i = n; i < size_; ++i)
        items_[i].logit = -std::numeric_limits<float>::infinity();
    size_ = n;
    sorted_ = 0;
    softmax_.reset();
    return cut;
}

}  // namespace inferlens
