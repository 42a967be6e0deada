#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "arguments.h"
#include "backend/cuda_backend.h"
#include "commands.h"
#include "core/error.h"
#include "device_choice.h"
#include "evaluation/machine_limits.h"
#include "generation_setup.h"
#include "generator.h"
#include "models/shape_presets.h"
#include "remote_setup.h"
#include "teaching/step_costs.h"

namespace inferlens::cli {
namespace {

using Clock = std::chrono::steady_clock;

double peakResidentMegabytes() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

double secondsBetween(Clock::time_point start, Clock::time_point end) {
    return std::chrono::duration<double>(end - start).count();
}

// --capture-attention: every head of every layer delivered to a probe, as the attention panel
// showing all of them would ask; the weights are summed so that nothing is optimised away.
class CaptureEverything final : public Probe {
  public:
    ProbeInterest interest() const override {
        ProbeInterest wanted;
        wanted.attention = [](int64_t, int64_t) { return true; };
        return wanted;
    }
    void onAttention(const AttentionEvent& event) override {
        for (const float weight : event.weights)
            total_ += weight;
    }

  private:
    double total_ = 0.0;
};

// The model to measure: a file, or with --synth a known shape with random weights generated on
// the GPU (sizes whose files would take gigabytes).
struct BenchModel {
    std::optional<Model> model;
    std::unique_ptr<ForwardBackend> backend;
    std::string name;
    int64_t weightBytes = 0;  // of the file; 0 for synthetic weights
};

BenchModel openBenchModel(const Arguments& args, const GeneratorOptions& options) {
    BenchModel bench;
    if (const auto synth = args.value("synth")) {
        if (!options.device.isCuda())
            throw UsageError(
                "--synth generates its weights on a GPU: it needs --device cuda[:N] "
                "and a usable GPU");
        const std::string typeName = args.value("dtype").value_or("f16");
        const auto dtype = dtypeFromName(typeName);
        if (!dtype)
            throw UsageError("--dtype: unknown type '" + typeName + "'");
        const ModelConfig config = shapePreset(*synth);
        bench.backend = makeSyntheticCudaForward(config, *dtype, uint64_t(args.integer("seed", 1)),
                                                 options.device.index,
                                                 resolveContextSize(config, options.contextSize));
        bench.name = "synthetic " + *synth + " " + typeName;
        return bench;
    }
    bench.model.emplace(openModel(args.modelPath(), options));
    bench.backend = makeBackend(*bench.model, options);
    bench.name = bench.model->files().path;
    bench.weightBytes = bench.model->files().weightBytes();
    return bench;
}

}  // namespace

// Opening the model (mapping the file, checking it, repacking what the CPU kernels want repacked,
// or uploading it to the GPU), then a prefill of --prompt-tokens ids and --gen-tokens greedy
// decode steps: the time to open, tokens per second of each phase, time to first token, peak
// resident memory. The prompt is a fixed id sequence, so no tokenizer is needed and runs are
// comparable across models with the same vocabulary size. On the CPU, the machine's ceilings are
// measured after the runs (machine_limits.h, a few tenths of a second) and each phase is given as
// a fraction of its own: decode's weight bytes per second of the read bandwidth, the prefill's
// int8 operations per second (from the model's matrix shapes) of the kernel set's int8 peak.
int runBench(const Words& words) {
    const Arguments args(
        words,
        with(remoteValueOptions(),
             {"model", "prompt-tokens", "gen-tokens", "threads", "ctx-size", "device", "attention",
              "kv-type", "window", "sinks", "synth", "dtype", "seed", "runs"}),
        {"json", "capture-attention", "warmup"});
    if (const std::optional<int> code = runOnServer("bench", args))
        return *code;
    if (args.value("runs"))
        throw UsageError("--runs is for --remote: a local bench runs once, in one process");
    const int64_t promptTokens = args.integer("prompt-tokens", 128);
    const int64_t genTokens = args.integer("gen-tokens", 32);
    if (promptTokens < 1 || genTokens < 1)
        throw UsageError("--prompt-tokens and --gen-tokens must be at least 1");
    const GeneratorOptions options = backendOptions(args);
    const auto opening = Clock::now();
    BenchModel bench = openBenchModel(args, options);
    const double openSeconds = secondsBetween(opening, Clock::now());
    const std::string device = bench.backend->deviceName();
    const int threads = bench.backend->threadCount();
    const int64_t vocab = bench.backend->config().vocabSize;
    const ModelConfig config = bench.backend->config();
    CaptureEverything capture;
    ProbeSet probes;
    if (args.flag("capture-attention"))
        probes.add(&capture);
    Generator generator(std::move(bench.backend), true, &probes);
    const int64_t window = generator.slidingWindow();
    if (window == 0 && promptTokens + genTokens > generator.contextSize())
        throw UsageError("prompt and generated tokens (" +
                         std::to_string(promptTokens + genTokens) + ") exceed the context of " +
                         std::to_string(generator.contextSize()) + " (--ctx-size)");

    std::vector<int32_t> prompt;
    for (int64_t i = 0; i < promptTokens; ++i)
        prompt.push_back(int32_t(3 + (i * 7919) % std::max<int64_t>(1, vocab - 3)));
    std::vector<float> logits(static_cast<size_t>(vocab));
    // --warmup: the same prefill and one decode step untimed first, then an empty cache, as
    // llama-bench does before its timed runs. The timed prefill then finds its buffers allocated
    // and paged in and the caches warm, as every prompt after a session's first does; without it,
    // the figures are a cold start's (the first prompt of a session).
    const bool warmup = args.flag("warmup");
    if (warmup) {
        generator.prefill(prompt, logits);
        const int32_t token[] = {argmax(logits)};
        generator.step(token, logits);
        generator.reset();
    }

    const auto start = Clock::now();
    generator.prefill(prompt, logits);  // a sliding cache: in steps of its window
    int32_t next = argmax(logits);
    const auto firstToken = Clock::now();
    for (int64_t i = 1; i < genTokens; ++i) {
        const int32_t token[] = {next};
        generator.step(token, logits);
        next = argmax(logits);
    }
    const auto end = Clock::now();

    const KvCacheStats cache = generator.cacheStats();
    const double prefillSeconds = secondsBetween(start, firstToken);
    const double decodeSeconds = secondsBetween(firstToken, end);
    const double decodeTokensPerSecond =
        genTokens > 1 ? double(genTokens - 1) / decodeSeconds : 0.0;
    // Every weight matrix's product with the prompt's tokens (the LM head with the last one only).
    const double prefillOps = stepCosts(config, promptTokens, 0, 1.0).productFlops;
    std::optional<MachineLimits> limits;
    if (!options.device.isCuda())
        limits = measureMachineLimits(threads);
    nlohmann::json result{
        {"model", bench.name},
        {"device", device},
        {"threads", threads},
        {"attention", attentionKernelName(options.attention)},
        {"attention_capture", args.flag("capture-attention")},
        {"warmup", warmup},
        {"kv_type", kvTypeName(cache.type)},
        {"window", window},
        {"sinks", cache.sinkTokens},
        {"kv_cache_tokens", cache.tokens},
        {"kv_cache_bytes_used", cache.bytesUsed},
        {"kv_cache_bytes_allocated", cache.bytesAllocated},
        {"prompt_tokens", promptTokens},
        {"gen_tokens", genTokens},
        {"open_ms", openSeconds * 1000.0},
        {"prefill_tokens_per_s", double(promptTokens) / prefillSeconds},
        // The first new token comes from the prefill; the others from decode steps.
        {"decode_tokens_per_s", decodeTokensPerSecond},
        {"ttft_ms", prefillSeconds * 1000.0},
        {"peak_rss_mb", peakResidentMegabytes()},
        {"weight_bytes", bench.weightBytes},
        {"decode_weight_gb_per_s", double(bench.weightBytes) * decodeTokensPerSecond / 1e9},
        {"prefill_product_gops_per_s", prefillOps / prefillSeconds / 1e9},
    };
    if (limits) {
        result["machine"] = {
            {"read_gb_per_s", limits->readBytesPerSecond / 1e9},
            {"read_gb_per_s_one_thread", limits->readBytesPerSecondOneThread / 1e9},
            {"kernels", limits->kernels},
            {"int8_instruction", limits->instruction},
            {"int8_peak_gops_per_s", limits->int8OpsPerSecond / 1e9},
            {"int8_peak_gops_per_s_one_thread", limits->int8OpsPerSecondOneThread / 1e9},
        };
        result["decode_fraction_of_read_bandwidth"] = fractionOfLimit(
            double(bench.weightBytes), genTokens > 1 ? 1 / decodeTokensPerSecond : 0,
            limits->readBytesPerSecond);
        result["prefill_fraction_of_int8_peak"] =
            fractionOfLimit(prefillOps, prefillSeconds, limits->int8OpsPerSecond);
    }
    if (args.flag("json")) {
        std::printf("%s\n", result.dump().c_str());
    } else {
        std::printf("device:  %s (%s attention)\n", device.c_str(),
                    attentionKernelName(options.attention));
        std::printf("open:    %.1f ms (%.0f MB of weights)\n", result["open_ms"].get<double>(),
                    double(bench.weightBytes) / 1e6);
        if (limits)
            std::printf(
                "machine: read bandwidth %.1f GB/s on %d thread(s) (%.1f on 1); int8 peak "
                "%.1f Gop/s on %d thread(s) (%.1f on 1; %s, %s)\n",
                limits->readBytesPerSecond / 1e9, limits->threads,
                limits->readBytesPerSecondOneThread / 1e9, limits->int8OpsPerSecond / 1e9,
                limits->threads, limits->int8OpsPerSecondOneThread / 1e9, limits->kernels,
                limits->instruction);
        std::printf("prefill: %lld tokens, %.2f tokens/s (time to first token %.1f ms%s)\n",
                    static_cast<long long>(promptTokens),
                    result["prefill_tokens_per_s"].get<double>(), result["ttft_ms"].get<double>(),
                    warmup ? ", after an untimed warm-up run" : ", a cold start");
        if (limits)
            std::printf("         %.1f Gop/s in the weight products = %.3f of the int8 peak\n",
                        result["prefill_product_gops_per_s"].get<double>(),
                        result["prefill_fraction_of_int8_peak"].get<double>());
        std::printf("decode:  %lld tokens, %.2f tokens/s%s\n",
                    static_cast<long long>(genTokens - 1),
                    result["decode_tokens_per_s"].get<double>(),
                    args.flag("capture-attention") ? " (every attention head captured)" : "");
        if (limits && bench.weightBytes > 0)
            std::printf("         %.2f GB/s of weights read = %.3f of the read bandwidth%s\n",
                        result["decode_weight_gb_per_s"].get<double>(),
                        result["decode_fraction_of_read_bandwidth"].get<double>(),
                        result["decode_fraction_of_read_bandwidth"].get<double>() > 1
                            ? " (above 1: the weights stay in the CPU's caches)"
                            : "");
        std::printf("KV cache: %s, %lld tokens held, %.1f MB used, %.1f MB allocated%s\n",
                    kvTypeName(cache.type), static_cast<long long>(cache.tokens),
                    double(cache.bytesUsed) / 1e6, double(cache.bytesAllocated) / 1e6,
                    window > 0 ? " (sliding window)" : "");
        std::printf("peak resident memory: %.0f MB\n", result["peak_rss_mb"].get<double>());
    }
    return 0;
}

}  // namespace inferlens::cli
