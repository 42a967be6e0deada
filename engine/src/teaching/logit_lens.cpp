#include "teaching/logit_lens.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"

namespace inferlens {
namespace {

// Logits → probabilities in place. The exponentials and their sum are taken in double so that the
// many tiny probabilities of a large vocabulary keep their digits.
void softmaxInPlace(std::span<float> values) {
    const double largest = *std::max_element(values.begin(), values.end());
    double sum = 0;
    for (const float value : values)
        sum += std::exp(double(value) - largest);
    for (float& value : values)
        value = float(std::exp(double(value) - largest) / sum);
}

double euclideanNorm(std::span<const float> values) {
    double sumSquares = 0;
    for (const float value : values)
        sumSquares += double(value) * double(value);
    return std::sqrt(sumSquares);
}

}  // namespace

std::vector<float> lensDistribution(const Model& model, std::span<const float> hidden) {
    ForwardScratch scratch(model.config());
    std::vector<float> probabilities(size_t(model.config().vocabSize));
    model.computeLogits(hidden, probabilities, scratch);
    softmaxInPlace(probabilities);
    return probabilities;
}

LogitLens::LogitLens(const Model& model, int topK, std::function<void(LensStep)> sink,
                     int64_t sampleableCount)
    : model_(model),
      topK_(topK),
      sink_(std::move(sink)),
      scratch_(model.config()),
      probabilities_(size_t(model.config().vocabSize)),
      order_(size_t(sampleableCount > 0 ? std::min(sampleableCount, model.config().vocabSize)
                                        : model.config().vocabSize)) {
    if (topK < 1)
        throw Error("the logit lens needs topK ≥ 1, got " + std::to_string(topK));
}

ProbeInterest LogitLens::interest() const {
    ProbeInterest interest;
    interest.steps = true;
    interest.hiddenStates = true;
    return interest;
}

void LogitLens::onStepBegin(const StepEvent& event) {
    current_ = {event.index, event.firstPosition + event.tokenCount - 1, {}};
}

void LogitLens::onHiddenState(const HiddenStateEvent& event) {
    model_.computeLogits(event.hidden, probabilities_, scratch_);
    softmaxInPlace(std::span(probabilities_).first(order_.size()));  // the sampleable ids only

    // Only the top k need ordering: a partial sort, ties broken by the smaller id.
    const auto k = std::min<ptrdiff_t>(topK_, ptrdiff_t(order_.size()));
    std::iota(order_.begin(), order_.end(), 0);
    std::partial_sort(order_.begin(), order_.begin() + k, order_.end(), [&](int32_t a, int32_t b) {
        return probabilities_[size_t(a)] > probabilities_[size_t(b)] ||
               (probabilities_[size_t(a)] == probabilities_[size_t(b)] && a < b);
    });

    LensRow row;
    row.layer = event.layer;
    row.ids.assign(order_.begin(), order_.begin() + k);
    for (const int32_t id : row.ids)
        row.probabilities.push_back(probabilities_[size_t(id)]);
    row.residualNorm = euclideanNorm(event.hidden);
    current_.rows.push_back(std::move(row));
    // After every layer, so that stepping through the inner loop fills the table row by row.
    if (sink_)
        sink_(current_);
}

void LogitLens::onStepEnd(const StepEvent&) {
    current_ = {};
}

}  // namespace inferlens
