// Time to first token of later chat turns, with the conversation's KV cache kept between turns
// (Generator::keepCommonPrefix: only the turn's new tokens are prefilled) against a full prefill
// of the re-rendered conversation (what a chat did before, and what the app's "Keep the KV cache
// between turns" switched off does). A conversation of `--turns` turns is built from fixed ids:
// each turn adds `--question` user tokens, and the model answers greedily with `--answer` tokens.
// For every turn both ways run alternately `--rounds` times, on the same synthetic model; the
// medians are printed.
//
// usage: bench_chat_turn_latency [--rounds N] [--turns N] [--question N] [--answer N]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include "convert/synthetic_model.h"
#include "generator.h"

using namespace inferlens;

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

std::vector<int32_t> questionIds(int64_t count, int turn) {
    std::vector<int32_t> ids;
    for (int64_t i = 0; i < count; ++i)
        ids.push_back(int32_t(3 + (turn * 131 + i * 17) % 4000));
    return ids;
}

// Runs the conversation; for each turn after the first, the milliseconds from the turn's start to
// its first token's logits (kept cache: keepCommonPrefix and the new tokens; else: reset and the
// whole conversation).
std::vector<double> turnLatencies(const Model& model, bool keepCache, int turns, int64_t question,
                                  int64_t answer, std::vector<int64_t>* contextLengths,
                                  std::vector<int64_t>* prefilled) {
    Generator generator(model, {.threads = 0});
    GreedyChooser greedy;
    std::vector<int32_t> conversation;
    std::vector<double> latencies;
    std::vector<float> logits(size_t(model.config().vocabSize));
    for (int turn = 0; turn < turns; ++turn) {
        const auto question_ = questionIds(question, turn);
        conversation.insert(conversation.end(), question_.begin(), question_.end());
        const auto start = Clock::now();
        int64_t kept = 0;
        if (keepCache)
            kept = generator.keepCommonPrefix(conversation);
        else
            generator.reset();
        generator.step(std::span(conversation).subspan(size_t(kept)), logits);
        const std::chrono::duration<double, std::milli> elapsed = Clock::now() - start;
        if (turn > 0) {
            latencies.push_back(elapsed.count());
            if (contextLengths != nullptr)
                contextLengths->push_back(int64_t(conversation.size()));
            if (prefilled != nullptr)
                prefilled->push_back(int64_t(conversation.size()) - kept);
        }
        // The answer: greedy tokens, each run but the last (as a chat turn does).
        for (int64_t i = 0; i < answer; ++i) {
            const int32_t next = greedy.choose(logits, generator.history(), false);
            conversation.push_back(next);
            if (i + 1 < answer) {
                const int32_t token[] = {next};
                generator.step(token, logits);
            }
        }
    }
    return latencies;
}

}  // namespace

int main(int argc, char** argv) {
    int rounds = 5, turns = 6;
    int64_t question = 96, answer = 32;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--rounds") == 0)
            rounds = std::atoi(argv[i + 1]);
        else if (std::strcmp(argv[i], "--turns") == 0)
            turns = std::atoi(argv[i + 1]);
        else if (std::strcmp(argv[i], "--question") == 0)
            question = std::atoll(argv[i + 1]);
        else if (std::strcmp(argv[i], "--answer") == 0)
            answer = std::atoll(argv[i + 1]);
    }
    // A TinyLlama-like block (hidden 2048, 32 heads in 4 KV groups) with fewer layers, in F16.
    const auto path = std::filesystem::temp_directory_path() / "inferlens-bench-chat-turns.gguf";
    SyntheticModelOptions options;
    options.architecture = "llama";
    options.layers = 4;
    options.hidden = 2048;
    options.heads = 32;
    options.kvHeads = 4;
    options.ffn = 5632;
    options.vocab = 4096;
    options.context = 4096;
    options.dtype = DType::F16;
    writeSyntheticModel(options, path.string());
    const Model model = Model::open(path.string());

    std::vector<int64_t> contextLengths, prefilled;
    std::vector<std::vector<double>> kept(size_t(turns - 1)), full(size_t(turns - 1));
    for (int round = 0; round < rounds; ++round) {
        const auto withCache = turnLatencies(model, true, turns, question, answer,
                                             round == 0 ? &contextLengths : nullptr,
                                             round == 0 ? &prefilled : nullptr);
        const auto withoutCache =
            turnLatencies(model, false, turns, question, answer, nullptr, nullptr);
        for (size_t t = 0; t < withCache.size(); ++t) {
            kept[t].push_back(withCache[t]);
            full[t].push_back(withoutCache[t]);
        }
    }
    std::printf(
        "model: llama, 4 layers, hidden 2048, 32 heads / 4 KV groups, f16; %lld-token "
        "questions, %lld-token answers; medians of %d rounds\n",
        static_cast<long long>(question), static_cast<long long>(answer), rounds);
    std::printf(
        "| turn | conversation tokens | prefill, cache kept | first token, cache kept, ms "
        "| prefill, whole conversation | first token, whole conversation, ms |\n");
    std::printf("|---|---|---|---|---|---|\n");
    for (size_t t = 0; t < kept.size(); ++t)
        std::printf("| %zu | %lld | %lld | %.1f | %lld | %.1f |\n", t + 2,
                    static_cast<long long>(contextLengths[t]), static_cast<long long>(prefilled[t]),
                    median(kept[t]), static_cast<long long>(contextLengths[t]), median(full[t]));
    std::filesystem::remove(path);
    return 0;
}
