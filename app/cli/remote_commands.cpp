// generate, chat, trace and bench on a server (--remote URL): the same output as on a local
// model, as far as the API reveals it (see remote_generator.h).

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/error.h"
#include "remote/remote_context_fit.h"
#include "remote/remote_error.h"
#include "remote_setup.h"
#include "trace/trace_json.h"
#include "trace/trace_writer.h"
#include "user_lines.h"

namespace inferlens::cli {

namespace {

using remote::ChatMessage;
using remote::RemoteGeneration;
using remote::RemoteGenerator;

std::string dumped(const nlohmann::json& value) {
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The text as it streams in.
void printAsItArrives(RemoteGenerator& generator) {
    generator.onText([](std::string_view text) {
        std::fwrite(text.data(), 1, text.size(), stdout);
        std::fflush(stdout);
    });
}

// generate --json: one object per token as it arrives (its wait, text and the sampling trace from
// the server's top log-probabilities), as the local path prints one per step.
class StepPrinter final : public Probe {
  public:
    ProbeInterest interest() const override {
        ProbeInterest wanted;
        wanted.steps = wanted.sampling = true;
        return wanted;
    }
    void onSampling(int64_t, const SamplingTrace& trace) override { trace_ = trace; }
    void onStepEnd(const StepEvent& step) override {
        nlohmann::json line{{"step", step.index}, {"seconds", step.seconds}};
        if (trace_) {
            line["token"] = trace_->chosenId;
            line["text"] = trace_->server ? trace_->server->chosenText : std::string();
            line["sampling"] = toJson(*trace_);
        }
        std::printf("%s\n", dumped(line).c_str());
        std::fflush(stdout);
        trace_.reset();
    }

  private:
    std::optional<SamplingTrace> trace_;
};

double median(std::vector<double> values) {
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const size_t middle = values.size() / 2;
    return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

// What the server and the clock said about a finished generation.
nlohmann::json summaryOf(const RemoteGeneration& result) {
    nlohmann::json summary = toJson(FinishedEvent{result.reason, int64_t(result.tokens.size())});
    summary["prompt_tokens"] = result.promptTokens;
    summary["time_to_first_token_ms"] = result.firstTokenSeconds * 1000;
    summary["inter_token_ms_median"] = median(result.interTokenSeconds) * 1000;
    if (result.usage)
        summary["usage"] = {{"prompt_tokens", result.usage->promptTokens},
                            {"completion_tokens", result.usage->completionTokens}};
    if (result.timings) {
        const remote::ServerTimings& t = *result.timings;
        nlohmann::json timings = nlohmann::json::object();
        if (t.promptPerSecond)
            timings["prompt_per_second"] = *t.promptPerSecond;
        if (t.predictedPerSecond)
            timings["predicted_per_second"] = *t.predictedPerSecond;
        summary["server_timings"] = timings;
    }
    return summary;
}

void describeConnection(const remote::RemoteConnection& connection) {
    const std::optional<int64_t> context = connection.contextLength();
    std::fprintf(stderr, "%s, model %s%s; end with Ctrl-D\n",
                 std::string(remote::flavourName(connection.flavour())).c_str(),
                 connection.model().c_str(),
                 context ? (", context " + std::to_string(*context) + " tokens").c_str() : "");
}

}  // namespace

int runRemoteGenerate(const Arguments& args) {
    const std::string prompt = args.required("prompt");
    RemoteSetup setup(args);
    const bool json = args.flag("json");
    StepPrinter steps;
    ProbeSet probes;
    if (json)
        probes.add(&steps);
    RemoteGenerator generator(setup.connection, &probes);
    if (!json)
        printAsItArrives(generator);
    const RemoteGeneration result = generator.complete(prompt, setup.settings);
    if (json)
        std::printf("%s\n", dumped(summaryOf(result)).c_str());
    else if (isatty(STDOUT_FILENO))
        std::printf("\n");
    return 0;
}

// Each stdin line is a user message; the server renders the conversation with its own template.
// A failed turn is reported and left out of the conversation, which goes on.
int runRemoteChat(const Arguments& args) {
    RemoteSetup setup(args);
    std::vector<ChatMessage> messages;
    if (const auto system = args.value("system"))
        messages.push_back({"system", *system});
    RemoteGenerator generator(setup.connection);
    printAsItArrives(generator);
    const bool interactive = isatty(STDIN_FILENO);
    if (interactive)
        describeConnection(setup.connection);
    const int64_t context = setup.connection.contextLength().value_or(0);
    const int64_t reserve =
        context > 0 ? std::min(setup.settings.maxTokens, context / 2) : setup.settings.maxTokens;
    std::string line;
    while (nextUserLine(line)) {
        messages.push_back({"user", line});
        try {
            const remote::FittedConversation fitted =
                remote::fitToServerContext(setup.connection, messages, reserve);
            if (fitted.droppedRounds > 0)
                std::fprintf(stderr,
                             "inferlens-cli: the conversation is longer than the server's "
                             "context; the oldest %d round(s) are left out of the prompt\n",
                             fitted.droppedRounds);
            const RemoteGeneration result = generator.chat(fitted.messages, setup.settings);
            messages.push_back({"assistant", result.text});
            std::printf("\n");
            std::fflush(stdout);
        } catch (const Error& error) {
            std::printf("\n");
            std::fflush(stdout);
            std::fprintf(stderr, "inferlens-cli: %s\n", error.what());
            messages.pop_back();  // the conversation stays as it was before this turn
        }
    }
    return 0;
}

// The probe events a server allows: its tokenization, a step per token with its wait, the
// sampling trace from the top log-probabilities, the finish. No layers, attention or KV cache.
int runRemoteTrace(const Arguments& args) {
    const std::string text = args.required("prompt");
    RemoteSetup setup(args);
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(nullptr, std::fclose);
    if (const auto path = args.value("out")) {
        file.reset(std::fopen(path->c_str(), "w"));
        if (!file)
            throw Error(*path + ": cannot create the trace file");
    }
    TraceWriter writer(file ? file.get() : stdout, {});
    ProbeSet probes;
    probes.add(&writer);
    RemoteGenerator generator(setup.connection, &probes);
    if (!args.flag("chat")) {
        generator.complete(text, setup.settings);
        return 0;
    }
    std::vector<ChatMessage> messages;
    if (const auto system = args.value("system"))
        messages.push_back({"system", *system});
    messages.push_back({"user", text});
    generator.chat(messages, setup.settings);
    return 0;
}

// Time to first token and decode speed as a client sees them (network and queueing included),
// beside the server's own timings where it reports them, as medians of --runs runs.
int runRemoteBench(const Arguments& args) {
    RemoteSetup setup(args);
    const int64_t promptWords = args.integer("prompt-tokens", 128);
    const int64_t runs = args.integer("runs", 3);
    if (promptWords < 1 || runs < 1)
        throw UsageError("--prompt-tokens and --runs must be at least 1");
    setup.settings.maxTokens = args.integer("gen-tokens", 32);
    if (setup.settings.maxTokens < 1)
        throw UsageError("--gen-tokens must be at least 1");
    setup.settings.sampling.temperature = 0;
    // Words of a few letters are about a token each in the tokenizers of today's models; the
    // server's own count (usage) is what is reported. Each run's prompt begins differently, so
    // that no run finds the previous one's prompt in the server's cache.
    const auto promptOfRun = [promptWords](int64_t run) {
        std::string prompt = "Run " + std::to_string(run + 1) + ":";
        for (int64_t i = 1; i < promptWords; ++i)
            prompt += i % 7 == 0 ? ". one" : " one";
        return prompt;
    };
    std::vector<double> firstToken, decode, serverPrompt, serverDecode;
    int64_t promptTokens = 0, generated = 0;
    for (int64_t run = 0; run < runs; ++run) {
        RemoteGenerator generator(setup.connection);
        const RemoteGeneration result = generator.complete(promptOfRun(run), setup.settings);
        promptTokens = result.promptTokens;
        generated = int64_t(result.tokens.size());
        firstToken.push_back(result.firstTokenSeconds * 1000);
        double decodeSeconds = 0;
        for (const double seconds : result.interTokenSeconds)
            decodeSeconds += seconds;
        if (decodeSeconds > 0)
            decode.push_back(double(result.interTokenSeconds.size()) / decodeSeconds);
        if (result.timings && result.timings->promptPerSecond)
            serverPrompt.push_back(*result.timings->promptPerSecond);
        if (result.timings && result.timings->predictedPerSecond)
            serverDecode.push_back(*result.timings->predictedPerSecond);
    }
    nlohmann::json out{{"server", std::string(remote::flavourName(setup.connection.flavour()))},
                       {"model", setup.connection.model()},
                       {"runs", runs},
                       {"prompt_tokens", promptTokens},
                       {"gen_tokens", generated},
                       {"ttft_ms", median(firstToken)},
                       {"decode_tokens_per_s", median(decode)}};
    if (!serverPrompt.empty())
        out["server_prefill_tokens_per_s"] = median(serverPrompt);
    if (!serverDecode.empty())
        out["server_decode_tokens_per_s"] = median(serverDecode);
    if (args.flag("json")) {
        std::printf("%s\n", dumped(out).c_str());
        return 0;
    }
    std::printf("server:  %s, model %s (medians of %lld runs)\n",
                out["server"].get<std::string>().c_str(), setup.connection.model().c_str(),
                static_cast<long long>(runs));
    std::printf("prefill: %lld tokens, time to first token %.1f ms (network and queue included)",
                static_cast<long long>(promptTokens), median(firstToken));
    if (!serverPrompt.empty())
        std::printf("; the server reports %.2f tokens/s", median(serverPrompt));
    std::printf("\ndecode:  %lld tokens, %.2f tokens/s as they arrived",
                static_cast<long long>(generated), median(decode));
    if (!serverDecode.empty())
        std::printf("; the server reports %.2f tokens/s", median(serverDecode));
    std::printf("\n");
    return 0;
}

}  // namespace inferlens::cli
