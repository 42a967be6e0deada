#pragma once
// What generate, chat and trace share: the model, its tokenizer, the sampling parameters and the
// generator options, all from the common flags.

#include <memory>
#include <set>
#include <string>

#include "arguments.h"
#include "generator.h"
#include "sampling/sampling_params.h"
#include "tokenizer/tokenizer.h"

namespace inferlens::cli {

// --model --threads --device --seed --temperature --top-k --top-p --min-p --repeat-penalty
// --repeat-last-n --frequency-penalty --presence-penalty --max-tokens --ctx-size
std::set<std::string> generationValueOptions();
// --no-cache
std::set<std::string> generationFlags();

struct GenerationSetup {
    explicit GenerationSetup(const Arguments& args);

    Model model;
    Tokenizer tokenizer;
    SamplingParams sampling;
    GeneratorOptions generator;
    int64_t maxTokens = 256;
};

// A set of option names plus more.
std::set<std::string> with(std::set<std::string> names, std::initializer_list<const char*> more);

}  // namespace inferlens::cli
