#include <unistd.h>

#include <cstdio>

#include "commands.h"
#include "generation_setup.h"
#include "sampling/sampler.h"
#include "token_printer.h"
#include "trace/trace_json.h"

namespace inferlens::cli {

// Continues --prompt as given: the tokenizer's own prefix ([gMASK] sop, or <s>) is added, no chat
// template. stdout carries only the generated text (up to a --stop string, which is left out), or
// with --json one object per step.
int runGenerate(const Words& words) {
    const Arguments args(words, with(generationValueOptions(), {"prompt"}),
                         with(generationFlags(), {"json"}));
    const std::string prompt = args.required("prompt");
    GenerationSetup setup(args);
    const std::vector<int32_t> ids = setup.tokenizer.encode(prompt);
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
