#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "arguments.h"
#include "commands.h"
#include "generator.h"

namespace inferlens::cli {
namespace {

using Clock = std::chrono::steady_clock;

double peakResidentMegabytes() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

}  // namespace

// Opening the model (mapping the file, checking it, repacking what the CPU kernels want repacked),
// then a prefill of --prompt-tokens ids and --gen-tokens greedy decode steps: the time to open,
// tokens per second of each phase, time to first token, peak resident memory. The prompt is a fixed id sequence, so no
// tokenizer is needed and runs are comparable across models with the same vocabulary size.
int runBench(const Words& words) {
    const Arguments args(words, {"model", "prompt-tokens", "gen-tokens", "threads", "ctx-size"},
                         {"json"});
    const int64_t promptTokens = args.integer("prompt-tokens", 128);
    const int64_t genTokens = args.integer("gen-tokens", 32);
    if (promptTokens < 1 || genTokens < 1)
        throw UsageError("--prompt-tokens and --gen-tokens must be at least 1");
    const auto opening = Clock::now();
    const Model model = Model::open(args.modelPath());
    const double openSeconds = std::chrono::duration<double>(Clock::now() - opening).count();
    GeneratorOptions options;
    options.contextSize = args.integer("ctx-size", 0);
    options.threads = int(args.integer("threads", 0));
    Generator generator(model, options);
    if (promptTokens + genTokens > generator.contextSize())
        throw UsageError("prompt and generated tokens (" +
                         std::to_string(promptTokens + genTokens) + ") exceed the context of " +
                         std::to_string(generator.contextSize()) + " (--ctx-size)");

    const int64_t vocab = model.config().vocabSize;
    std::vector<int32_t> prompt;
    for (int64_t i = 0; i < promptTokens; ++i)
        prompt.push_back(int32_t(3 + (i * 7919) % std::max<int64_t>(1, vocab - 3)));
    std::vector<float> logits(static_cast<size_t>(vocab));

    const auto start = Clock::now();
    generator.step(prompt, logits);
    int32_t next = argmax(logits);
    const auto firstToken = Clock::now();
    for (int64_t i = 1; i < genTokens; ++i) {
        const int32_t token[] = {next};
        generator.step(token, logits);
        next = argmax(logits);
    }
    const auto end = Clock::now();

    const double prefillSeconds = std::chrono::duration<double>(firstToken - start).count();
    const double decodeSeconds = std::chrono::duration<double>(end - firstToken).count();
    const nlohmann::json result{
        {"model", model.files().path},
        {"threads", generator.threadCount()},
        {"prompt_tokens", promptTokens},
        {"gen_tokens", genTokens},
        {"open_ms", openSeconds * 1000.0},
        {"prefill_tokens_per_s", double(promptTokens) / prefillSeconds},
        // The first new token comes from the prefill; the others from decode steps.
        {"decode_tokens_per_s", genTokens > 1 ? double(genTokens - 1) / decodeSeconds : 0.0},
        {"ttft_ms", prefillSeconds * 1000.0},
        {"peak_rss_mb", peakResidentMegabytes()},
        {"weight_bytes", model.files().weightBytes()},
    };
    if (args.flag("json")) {
        std::printf("%s\n", result.dump().c_str());
    } else {
        std::printf("open:    %.1f ms (%.0f MB of weights)\n", result["open_ms"].get<double>(),
                    double(model.files().weightBytes()) / 1e6);
        std::printf("prefill: %lld tokens, %.2f tokens/s (time to first token %.1f ms)\n",
                    static_cast<long long>(promptTokens),
                    result["prefill_tokens_per_s"].get<double>(), result["ttft_ms"].get<double>());
        std::printf("decode:  %lld tokens, %.2f tokens/s\n", static_cast<long long>(genTokens - 1),
                    result["decode_tokens_per_s"].get<double>());
        std::printf("peak resident memory: %.0f MB\n", result["peak_rss_mb"].get<double>());
    }
    return 0;
}

}  // namespace inferlens::cli
