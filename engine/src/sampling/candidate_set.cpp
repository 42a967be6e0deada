#include "sampling/candidate_set.h"

#include <algorithm>
#include <limits>
#include <string>

#include "core/error.h"

namespace inferlens {

void CandidateSet::assign(std::span<const float> logits, int64_t sampleableCount,
                          std::span<const uint8_t> mask) {
    if (sampleableCount < 0 || size_t(sampleableCount) > logits.size())
        throw Error("sampler: " + std::to_string(sampleableCount) + " sampleable ids but only " +
                    std::to_string(logits.size()) + " logits");
    constexpr float kInfinity = std::numeric_limits<float>::infinity();
    items_.clear();
    items_.reserve(size_t(sampleableCount));
    float maxLogit = -kInfinity;
    for (int32_t id = 0; id < int32_t(sampleableCount); ++id) {
        if (!mask.empty() && (size_t(id) >= mask.size() || mask[size_t(id)] == 0))
            continue;
        const float logit = logits[size_t(id)];
        if (!(logit < kInfinity))  // NaN or +inf: the forward pass went wrong
            throw Error("sampler: the logit of token " + std::to_string(id) + " is " +
                        (std::isnan(logit) ? "NaN" : "+inf"));
        maxLogit = std::max(maxLogit, logit);
        items_.push_back({id, logit});
    }
    if (maxLogit == -kInfinity)
        throw Error("sampler: no sampleable token has a finite logit");
    size_ = items_.size();
    sorted_ = 0;
    idOrder_ = true;
    softmax_.reset();
}

Candidate* CandidateSet::find(int32_t id) {
    const auto begin = items_.begin(), end = items_.begin() + ptrdiff_t(size_);
    const auto it = idOrder_
                        ? std::lower_bound(begin, end, id,
                                           [](const Candidate& c, int32_t v) { return c.id < v; })
                        : std::find_if(begin, end, [id](const Candidate& c) { return c.id == id; });
    return it != end && it->id == id ? &*it : nullptr;
}

std::vector<Candidate> CandidateSet::best(size_t n) const {
    std::vector<Candidate> out(std::min(n, items_.size()));
    std::partial_sort_copy(items_.begin(), items_.end(), out.begin(), out.end(), ranksBefore);
    return out;
}

const Softmax& CandidateSet::softmax() const {
    if (softmax_)
        return *softmax_;
    // Shifted by the max logit so that exp cannot overflow; sums in double. Entropy from the same
    // pass: H = -Σ p log p = log Z - Σ e·d / Z with d = logit - max, e = exp(d), Z = Σ e.
    Softmax s;
    s.maxLogit = -std::numeric_limits<float>::infinity();
    for (const Candidate& c : live())
        s.maxLogit = std::max(s.maxLogit, c.logit);
    double z = 0, weighted = 0;
    for (const Candidate& c : live()) {
        const float d = c.logit - s.maxLogit;
        const float e = expNonPositive(d);
        if (e == 0)  // -inf (or no mass): skipped, as 0 · -inf would be NaN
            continue;
        z += e;
        weighted += double(e) * double(d);
    }
    s.sum = z;
    s.logSumExp = double(s.maxLogit) + std::log(z);
    s.entropy = std::max(0.0, std::log(z) - weighted / z);
    softmax_ = s;
    return *softmax_;
}

void CandidateSet::sortPrefix(size_t n) {
    n = std::min(n, size_);
    if (n <= sorted_)
        return;
    const auto first = items_.begin() + ptrdiff_t(sorted_), end = items_.begin() + ptrdiff_t(size_);
    // A heap of the n best is cheapest when few are wanted; for more, selecting them first
    // (linear) and then sorting only those wins; past half the set a plain sort is faster.
    if (2 * n > size_) {
        std::sort(first, end, ranksBefore);
        n = size_;
    } else if (n - sorted_ <= 512) {
        std::partial_sort(first, items_.begin() + ptrdiff_t(n), end, ranksBefore);
    } else {
        const auto middle = items_.begin() + ptrdiff_t(n);
        std::nth_element(first, middle, end, ranksBefore);
        std::sort(first, middle, ranksBefore);
    }
    sorted_ = n;
    idOrder_ = false;
}

void CandidateSet::keepBest(size_t n) {
    if (n >= size_)
        return;
    sortPrefix(n);
    size_ = n;
    sorted_ = std::min(sorted_, n);
    softmax_.reset();
}

void CandidateSet::keepAtLeast(double threshold) {
    // Stable, so that the kept ones keep their relative order: the sorted prefix stays sorted and
    // the result does not depend on the standard library's partition algorithm.
    const auto kept = std::stable_partition(
        items_.begin(), items_.begin() + ptrdiff_t(size_),
        [threshold](const Candidate& c) { return double(c.logit) >= threshold; });
    const size_t n = size_t(kept - items_.begin());
    if (n == size_)
        return;
    size_ = n;
    sorted_ = std::min(sorted_, n);
    softmax_.reset();
}

void CandidateSet::logitsChanged() {
    sorted_ = 0;
    softmax_.reset();
}

}  // namespace inferlens
