#include "teaching/attention_kernels.h"

#include <chrono>
#include <cmath>
#include <random>

#include "backend/cpu/reference_attention.h"

namespace inferlens {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

std::vector<float> randomValues(size_t count, std::mt19937& generator) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> values(count);
    for (float& value : values)
        value = normal(generator);
    return values;
}

double relativeDifference(const std::vector<float>& a, const std::vector<float>& b) {
    double difference = 0, norm = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        difference += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
        norm += double(b[i]) * b[i];
    }
    return std::sqrt(difference / std::max(norm, 1e-300));
}

bool cancelled(const GenerationControl* control) {
    return control != nullptr && control->cancelled();
}

}  // namespace

std::vector<AttentionKernelTiming> timeAttentionKernels(
    const AttentionLayout& layout, std::span<const int64_t> lengths, ThreadPool* pool,
    GenerationControl* control, const std::function<void(int done, int total)>& progress) {
    const int64_t queryWidth = layout.headCount * layout.headDim;
    std::vector<AttentionKernelTiming> timings;
    std::mt19937 generator(12345);
    const int total = int(2 * lengths.size());
    for (const int64_t tokens : lengths) {
        const auto queries = randomValues(size_t(tokens * queryWidth), generator);
        const auto keys = randomValues(size_t(tokens * layout.kvRowWidth), generator);
        const auto values = randomValues(size_t(tokens * layout.kvRowWidth), generator);
        std::vector<float> fused(queries.size()), reference(queries.size());
        std::vector<float> weights(size_t(layout.headCount * tokens));
        AttentionKernelTiming timing;
        timing.tokens = tokens;

        Clock::time_point start = Clock::now();
        fusedAttention(layout, queries, 0, tokens, keys.data(), values.data(), fused, pool);
        timing.fusedSeconds = secondsSince(start);
        if (progress)
            progress(int(2 * timings.size() + 1), total);

        start = Clock::now();
        for (int64_t row = 0; row < tokens; ++row) {
            if (cancelled(control))
                return timings;
            const auto rowOf = [&](auto& matrix) {
                return std::span(matrix).subspan(size_t(row * queryWidth), size_t(queryWidth));
            };
            const auto rowWeights = std::span(weights).first(size_t(layout.headCount * (row + 1)));
            attentionProbabilities(layout, rowOf(queries), row, keys.data(), rowWeights, pool);
            weightedValues(layout, rowWeights, row + 1, values.data(), rowOf(reference), pool);
        }
        timing.referenceSeconds = secondsSince(start);
        timing.difference = relativeDifference(fused, reference);
        timings.push_back(timing);
        if (progress)
            progress(int(2 * timings.size()), total);
    }
    return timings;
}

}  // namespace inferlens
