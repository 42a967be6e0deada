#include <cstdio>
#include <memory>

#include "commands.h"
#include "core/error.h"
#include "generation_setup.h"
#include "remote_setup.h"
#include "sampling/sampler.h"
#include "sampling/sampler_chooser.h"
#include "token_printer.h"
#include "trace/trace_writer.h"

namespace inferlens::cli {
namespace {

// "all", "none", or a list of LAYER:HEAD pairs where either may be '*': "0:*,3:5".
std::function<bool(int64_t, int64_t)> attentionSelection(const std::string& spec) {
    if (spec == "none")
        return {};
    if (spec == "all")
        return [](int64_t, int64_t) { return true; };
    std::vector<std::pair<int64_t, int64_t>> pairs;  // -1: any
    size_t start = 0;
    while (start <= spec.size()) {
        const size_t comma = std::min(spec.find(',', start), spec.size());
        const std::string item = spec.substr(start, comma - start);
        const size_t colon = item.find(':');
        if (colon == std::string::npos)
            throw UsageError("--attention: '" + item + "' is not LAYER:HEAD");
        const auto part = [&](const std::string& text) -> int64_t {
            if (text == "*")
                return -1;
            try {
                size_t used = 0;
                const long long value = std::stoll(text, &used);
                if (used == text.size() && value >= 0)
                    return value;
            } catch (const std::exception&) {
            }
            throw UsageError("--attention: '" + text + "' is not a layer or head number or '*'");
        };
        pairs.emplace_back(part(item.substr(0, colon)), part(item.substr(colon + 1)));
        start = comma + 1;
    }
    return [pairs](int64_t layer, int64_t head) {
        for (const auto& [l, h] : pairs)
            if ((l < 0 || l == layer) && (h < 0 || h == head))
                return true;
        return false;
    };
}

}  // namespace

// Every probe event of one generation as JSON lines: the tokenization, each step's begin and end,
// each layer, the selected attention blocks, the KV cache, the sampling trace, the finish.
int runTrace(const Words& words) {
    const Arguments args(
        words,
        with(with(generationValueOptions(), {"prompt", "system", "template", "attention", "out"}),
             remoteValueOptions()),
        with(generationFlags(), {"chat"}));
    if (const std::optional<int> code = runOnServer("trace", args))
        return *code;
    const std::string text = args.required("prompt");
    GenerationSetup setup(args, /*attentionIsKernel=*/false);
    const PromptTokens prompt = tokenizePrompt(text, args, setup);

    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(nullptr, std::fclose);
    if (const auto path = args.value("out")) {
        file.reset(std::fopen(path->c_str(), "w"));
        if (!file)
            throw Error(*path + ": cannot create the trace file");
    }
    TraceWriter writer(file ? file.get() : stdout,
                       attentionSelection(args.value("attention").value_or("all")),
                       &setup.tokenizer);
    ProbeSet probes;
    probes.add(&writer);
    probes.tokenized(prompt.info);
    Generator generator(setup.makeBackend(), setup.generator.useKvCache, &probes);
    Sampler sampler = setup.makeSampler(prompt.stopIds);
    // Prints nothing (the trace is the output) but ends the generation at a --stop string, or
    // (--chat) where the template's next turn would begin.
    std::vector<std::string> stopStrings = setup.stopStrings;
    stopStrings.insert(stopStrings.end(), prompt.stopStrings.begin(), prompt.stopStrings.end());
    TokenPrinter chooser(sampler, setup.tokenizer, nullptr, false, std::move(stopStrings));
    const std::vector<int32_t> ids = prompt.info.ids();
    requirePromptFits(ids, generator);
    generator.generate(ids, setup.maxTokens, chooser,
                       {prompt.stopIds.begin(), prompt.stopIds.end()});
    return 0;
}

}  // namespace inferlens::cli
