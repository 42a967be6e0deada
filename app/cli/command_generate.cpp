#include <unistd.h>

#include <cstdio>

#include "commands.h"
#include "core/error.h"
#include "decoding/beam_search.h"
#include "generation_setup.h"
#include "remote_setup.h"
#include "sampling/sampler.h"
#include "token_printer.h"
#include "trace/trace_json.h"

namespace inferlens::cli {

namespace {

nlohmann::json beamNodeJson(const BeamNode& node, const Tokenizer& tokenizer) {
    constexpr const char* fates[] = {"kept", "pruned", "finished"};
    return {{"id", node.id},
            {"parent", node.parent},
            {"step", node.step},
            {"token", node.token},
            {"piece", tokenizer.piece(node.token)},
            {"token_log_probability", node.tokenLogProbability},
            {"log_probability", node.logProbability},
            {"fate", fates[int(node.fate)]}};
}

// --beams K: beam search instead of sampling (the sampling flags do not apply). stdout carries the
// best hypothesis's text, or with --json one object with every hypothesis and the search tree.
int runBeamSearch(const Arguments& args, GenerationSetup& setup, const std::vector<int32_t>& ids) {
    BeamSearchOptions options;
    options.width = int(args.integer("beams", 4));
    if (options.width < 1 || options.width > 64)
        throw UsageError("--beams must be between 1 and 64");
    options.nBest = int(args.integer("nbest", options.width));
    if (options.nBest < 1)
        throw UsageError("--nbest must be at least 1");
    options.lengthPenalty = args.number("length-penalty", 1.0);
    options.earlyStopping = !args.flag("no-early-stopping");
    options.maxNewTokens = setup.maxTokens;
    options.stopIds = setup.tokenizer.eosIds();
    options.sampleableCount = setup.tokenizer.tokenCount();
    const std::unique_ptr<ForwardBackend> backend = setup.makeBackend();
    if (backend->slidingWindow() > 0)
        throw UsageError(
            "--beams keeps every beam's whole KV cache: it cannot be combined with "
            "--window");
    if (int64_t(ids.size()) + setup.maxTokens > backend->contextSize())
        throw Error("the prompt (" + std::to_string(ids.size()) + " tokens) and --max-tokens " +
                    std::to_string(setup.maxTokens) + " do not fit the context of " +
                    std::to_string(backend->contextSize()) + " tokens");
    BackendBeamScorer scorer(*backend);
    const BeamSearchResult result = beamSearch(scorer, ids, options);
    const auto textOf = [&setup](const BeamHypothesis& h) {
        std::vector<int32_t> tokens = h.tokens;
        if (h.finished)
            tokens.pop_back();  // the stop token
        return setup.tokenizer.decode(tokens);
    };
    if (!args.flag("json")) {
        if (!result.hypotheses.empty())
            std::fputs(textOf(result.hypotheses.front()).c_str(), stdout);
        if (isatty(STDOUT_FILENO))
            std::printf("\n");
        return 0;
    }
    nlohmann::json hypotheses = nlohmann::json::array(), nodes = nlohmann::json::array();
    for (const BeamHypothesis& h : result.hypotheses)
        hypotheses.push_back({{"text", textOf(h)},
                              {"tokens", h.tokens},
                              {"log_probability", h.logProbability},
                              {"score", h.score},
                              {"finished", h.finished},
                              {"node", h.node}});
    for (const BeamNode& node : result.nodes)
        nodes.push_back(beamNodeJson(node, setup.tokenizer));
    const nlohmann::json out{{"event", "beam_search"},
                             {"width", options.width},
                             {"length_penalty", options.lengthPenalty},
                             {"steps", result.steps},
                             {"kv_cache_slots", result.slotsUsed},
                             {"hypotheses", hypotheses},
                             {"nodes", nodes}};
    std::printf("%s\n", out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return 0;
}

}  // namespace

// Continues --prompt as given: the tokenizer's own prefix ([gMASK] sop, or <s>) is added, no chat
// template. stdout carries only the generated text (up to a --stop string, which is left out), or
// with --json one object per step.
int runGenerate(const Words& words) {
    const Arguments args(
        words,
        with(with(generationValueOptions(), {"prompt", "beams", "nbest", "length-penalty"}),
             remoteValueOptions()),
        with(generationFlags(), {"json", "no-early-stopping"}));
    if (const std::optional<int> code = runOnServer("generate", args))
        return *code;
    const std::string prompt = args.required("prompt");
    GenerationSetup setup(args);
    const std::vector<int32_t> ids = setup.tokenizer.encode(prompt);
    if (args.value("beams"))
        return runBeamSearch(args, setup, ids);
    Generator generator(setup.makeBackend(), setup.generator.useKvCache);
    requirePromptFits(ids, generator);
    const std::vector<int32_t> stops = setup.tokenizer.eosIds();
    Sampler sampler = setup.makeSampler(stops);
    const bool json = args.flag("json");
    TokenPrinter printer(sampler, setup.tokenizer, stdout, json, setup.stopStrings);
    const Generation result =
        generator.generate(ids, setup.maxTokens, printer, {stops.begin(), stops.end()});
    printer.finish();
    if (json)
        std::printf(
            "%s\n",
            toJson(FinishedEvent{result.reason, int64_t(result.tokens.size())}).dump().c_str());
    else if (isatty(STDOUT_FILENO))
        std::printf("\n");
    return 0;
}

}  // namespace inferlens::cli
