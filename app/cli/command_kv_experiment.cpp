#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "core/error.h"
#include "generation_setup.h"
#include "teaching/kv_cache_experiment.h"

namespace inferlens::cli {
namespace {

// The token counts the table compares: powers of two from 32 up to the run's length, and the
// length itself when it is not one of them (so that a short run still gets a row).
std::vector<int64_t> tableRows(int64_t newTokens) {
    std::vector<int64_t> rows;
    for (const int64_t n : {32, 64, 128, 256})
        if (n <= newTokens)
            rows.push_back(n);
    if (rows.empty() || rows.back() != newTokens)
        rows.push_back(newTokens);
    return rows;
}

nlohmann::json runJson(const KvExperimentRun& run) {
    return {{"kv_cache", run.kvCache},
            {"tokens", run.tokens},
            {"seconds", run.secondsPerToken},
            {"flops", run.flopsPerToken},
            {"total_seconds", run.totalSeconds()}};
}

// Where the two runs' tokens first differ (they have the same length: neither was cancelled).
size_t firstDifference(const KvExperimentResult& result) {
    const auto& a = result.withCache.tokens;
    const auto& b = result.withoutCache.tokens;
    return size_t(std::mismatch(a.begin(), a.end(), b.begin(), b.end()).first - a.begin());
}

}  // namespace

// The same greedy generation with and without the KV cache: are the tokens identical, and what
// does the cache save in time and in FLOPs over the first n tokens?
int runKvExperiment(const Words& words) {
    const Arguments args(words, {"model", "prompt", "system", "template", "tokens", "threads"},
                         {"chat", "json"});
    const std::string text = args.required("prompt");
    KvExperimentOptions options;
    options.newTokens = args.integer("tokens", options.newTokens);
    if (options.newTokens < 1)
        throw UsageError("--tokens must be at least 1");
    GenerationSetup setup(args);
    options.threads = setup.generator.threads;
    options.bytesPerWeight =
        double(setup.model.files().weightBytes()) / double(setup.model.files().parameterCount());
    const std::vector<int32_t> prompt = tokenizePrompt(text, args, setup).info.ids();

    // A progress line only for a person watching: the run without the cache can take minutes.
    const bool showProgress = isatty(STDERR_FILENO) != 0;
    const auto progress = [&](bool kvCache, int64_t done) {
        std::fprintf(stderr, "\r%s: %lld/%lld tokens", kvCache ? "with cache" : "without cache",
                     static_cast<long long>(done), static_cast<long long>(options.newTokens));
        if (!kvCache && done == options.newTokens)
            std::fprintf(stderr, "\n");
    };
    const KvExperimentResult result =
        runKvCacheExperiment(setup.model, prompt, options, nullptr,
                             showProgress ? std::function<void(bool, int64_t)>(progress) : nullptr)
            .result;

    const std::vector<int64_t> rows = tableRows(options.newTokens);
    if (args.flag("json")) {
        nlohmann::json table = nlohmann::json::array();
        for (const int64_t n : rows)
            table.push_back({{"n", n},
                             {"seconds_with_cache", result.withCache.secondsForFirst(n)},
                             {"seconds_without_cache", result.withoutCache.secondsForFirst(n)},
                             {"speedup", result.speedupAt(n)},
                             {"flop_ratio", result.flopRatioAt(n)}});
        const nlohmann::json json{{"model", setup.model.files().path},
                                  {"prompt_tokens", result.promptTokens},
                                  {"new_tokens", options.newTokens},
                                  {"bytes_per_weight", options.bytesPerWeight},
                                  {"identical", result.identical()},
                                  {"with_cache", runJson(result.withCache)},
                                  {"without_cache", runJson(result.withoutCache)},
                                  {"table", table}};
        std::printf("%s\n", json.dump().c_str());
    } else {
        std::printf("prompt: %lld tokens; %lld new tokens per run (greedy)\n",
                    static_cast<long long>(result.promptTokens),
                    static_cast<long long>(options.newTokens));
        std::printf("tokens identical: %s\n\n", result.identical() ? "yes" : "no");
        std::printf("%6s  %16s  %19s  %9s  %10s\n", "n", "with cache (s)", "without cache (s)",
                    "speedup", "FLOP ratio");
        for (const int64_t n : rows)
            std::printf("%6lld  %16.3f  %19.3f  %8.2fx  %9.2fx\n", static_cast<long long>(n),
                        result.withCache.secondsForFirst(n), result.withoutCache.secondsForFirst(n),
                        result.speedupAt(n), result.flopRatioAt(n));
    }
    if (!result.identical())
        throw Error(
            "the runs with and without the KV cache chose different tokens, first at token " +
            std::to_string(firstDifference(result)));
    return 0;
}

}  // namespace inferlens::cli
