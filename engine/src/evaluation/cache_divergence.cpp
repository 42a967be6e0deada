#include "evaluation/cache_divergence.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/error.h"
#include "generator.h"

namespace inferlens {
namespace {

// log softmax(logits), in double precision.
std::vector<double> logSoftmax(std::span<const float> logits) {
    const double largest = *std::max_element(logits.begin(), logits.end());
    double total = 0;
    for (const float logit : logits)
        total += std::exp(double(logit) - largest);
    const double logTotal = largest + std::log(total);
    std::vector<double> out(logits.size());
    for (size_t i = 0; i < logits.size(); ++i)
        out[i] = double(logits[i]) - logTotal;
    return out;
}

// KL(P‖Q) of two log-distributions of the same length.
double klOfLogs(const std::vector<double>& logP, const std::vector<double>& logQ) {
    double kl = 0;
    for (size_t i = 0; i < logP.size(); ++i)
        kl += std::exp(logP[i]) * (logP[i] - logQ[i]);
    return std::max(kl, 0.0);  // rounding can leave a tiny negative for equal rows
}

}  // namespace

double klDivergence(std::span<const float> referenceLogits, std::span<const float> testLogits) {
    if (referenceLogits.size() != testLogits.size() || referenceLogits.empty())
        throw Error("the two logit rows to compare differ in length");
    return klOfLogs(logSoftmax(referenceLogits), logSoftmax(testLogits));
}

std::optional<CacheComparison> compareWithExactCache(const Model& model,
                                                     std::span<const int32_t> history,
                                                     std::span<const float> logits,
                                                     AttentionKernel kernel, int threads,
                                                     GenerationControl* control) {
    if (history.empty())
        throw Error("there is no step to compare");
    if (int64_t(history.size()) > model.config().contextLength)
        throw Error("the sequence (" + std::to_string(history.size()) +
                    " tokens) is longer than the model's context: no exact cache can hold it");
    GeneratorOptions options;
    options.contextSize = int64_t(history.size());
    options.threads = threads;
    options.attention = kernel;
    Generator shadow(model, options, nullptr, control);
    std::vector<float> exact(logits.size());
    if (!shadow.step(history, exact))
        return std::nullopt;
    const std::vector<double> p = logSoftmax(exact), q = logSoftmax(logits);
    CacheComparison comparison;
    comparison.klDivergence = klOfLogs(p, q);
    for (size_t i = 0; i < p.size(); ++i)
        comparison.largestDifference =
            std::max(comparison.largestDifference, std::fabs(std::exp(p[i]) - std::exp(q[i])));
    comparison.exactTop = argmax(exact);
    comparison.testTop = argmax(logits);
    return comparison;
}

}  // namespace inferlens
