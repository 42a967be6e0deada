#include "teaching/kv_cache_experiment.h"

#include <numeric>
#include <string>

#include "core/error.h"
#include "generator.h"
#include "probe.h"
#include "teaching/step_costs.h"

namespace inferlens {
namespace {

// The sum of a series' first n entries.
double sumOfFirst(const std::vector<double>& series, int64_t n) {
    if (n < 0 || n > int64_t(series.size()))
        throw Error("asked for the first " + std::to_string(n) + " tokens of " +
                    std::to_string(series.size()));
    return std::accumulate(series.begin(), series.begin() + n, 0.0);
}

// Records each step's time and FLOPs: step i is the one whose logits choose token i, so the
// series get exactly one entry per chosen token (generate() does not run the last token).
class StepRecorder final : public Probe {
  public:
    StepRecorder(const ModelConfig& config, double bytesPerWeight, KvExperimentRun& run,
                 const std::function<void(bool, int64_t)>& progress)
        : config_(config), bytesPerWeight_(bytesPerWeight), run_(run), progress_(progress) {}

    ProbeInterest interest() const override {
        ProbeInterest interest;
        interest.steps = true;
        return interest;
    }

    void onStepEnd(const StepEvent& event) override {
        // Without the cache, the generator reruns the whole sequence: positions 0 .. the new one.
        const StepCosts costs =
            run_.kvCache
                ? stepCosts(config_, event.tokenCount, event.firstPosition, bytesPerWeight_)
                : stepCosts(config_, event.firstPosition + event.tokenCount, 0, bytesPerWeight_);
        run_.secondsPerToken.push_back(event.seconds);
        run_.flopsPerToken.push_back(costs.flops);
        if (progress_)
            progress_(run_.kvCache, int64_t(run_.secondsPerToken.size()));
    }

  private:
    const ModelConfig& config_;
    double bytesPerWeight_;
    KvExperimentRun& run_;
    const std::function<void(bool, int64_t)>& progress_;
};

// One greedy generation of `newTokens`; returns false when cancelled.
bool runOnce(const Model& model, std::span<const int32_t> prompt,
             const KvExperimentOptions& options, GenerationControl* control,
             const std::function<void(bool, int64_t)>& progress, KvExperimentRun& run) {
    GeneratorOptions generatorOptions;
    generatorOptions.contextSize = int64_t(prompt.size()) + options.newTokens;
    generatorOptions.useKvCache = run.kvCache;
    generatorOptions.threads = options.threads;
    StepRecorder recorder(model.config(), options.bytesPerWeight, run, progress);
    ProbeSet probes;
    probes.add(&recorder);
    Generator generator(model, generatorOptions, &probes, control);
    GreedyChooser greedy;
    // No stop tokens: both runs produce exactly newTokens, whatever they are.
    const Generation generation = generator.generate(prompt, options.newTokens, greedy, {});
    run.tokens = generation.tokens;
    return generation.reason != FinishReason::Cancelled;
}

}  // namespace

double KvExperimentRun::totalSeconds() const {
    return sumOfFirst(secondsPerToken, int64_t(secondsPerToken.size()));
}

double KvExperimentRun::secondsForFirst(int64_t n) const {
    return sumOfFirst(secondsPerToken, n);
}

double KvExperimentResult::speedupAt(int64_t n) const {
    return withoutCache.secondsForFirst(n) / withCache.secondsForFirst(n);
}

double KvExperimentResult::flopRatioAt(int64_t n) const {
    return sumOfFirst(withoutCache.flopsPerToken, n) / sumOfFirst(withCache.flopsPerToken, n);
}

KvExperimentOutcome runKvCacheExperiment(
    const Model& model, std::span<const int32_t> prompt, const KvExperimentOptions& options,
    GenerationControl* control,
    const std::function<void(bool kvCache, int64_t tokensDone)>& progress) {
    if (prompt.empty())
        throw Error("the KV cache experiment needs a prompt");
    if (options.newTokens < 1)
        throw Error("the KV cache experiment needs at least one new token");
    const int64_t context = model.config().contextLength;
    if (int64_t(prompt.size()) + options.newTokens > context)
        throw Error("the prompt's " + std::to_string(prompt.size()) + " tokens and " +
                    std::to_string(options.newTokens) + " new ones exceed the model's context of " +
                    std::to_string(context));

    KvExperimentOutcome outcome;
    KvExperimentResult& result = outcome.result;
    result.promptTokens = int64_t(prompt.size());
    result.withCache.kvCache = true;
    result.withoutCache.kvCache = false;
    outcome.cancelled = !runOnce(model, prompt, options, control, progress, result.withCache) ||
                        !runOnce(model, prompt, options, control, progress, result.withoutCache);
    return outcome;
}

}  // namespace inferlens
