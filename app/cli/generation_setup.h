#pragma once
// What generate, chat, trace and kv-experiment share: the model, its tokenizer, the sampling
// parameters and the generator options, all from the common flags.

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "arguments.h"
#include "device_choice.h"
#include "generator.h"
#include "sampling/sampler.h"
#include "sampling/sampling_params.h"
#include "tokenizer/tokenizer.h"

namespace inferlens::cli {

// --model --threads --device --attention --seed --temperature --top-k --top-p --min-p
// --repeat-penalty
// --repeat-last-n --frequency-penalty --presence-penalty --max-tokens --ctx-size, and the logit
// processors --logit-bias ID=V, --ban TEXT, --min-tokens N, with --stop TEXT (the first three and
// --stop may be repeated)
std::set<std::string> generationValueOptions();
// --no-cache
std::set<std::string> generationFlags();

// The sampling flags, --stop and --max-tokens, read without a model: `tokenCount`, when known,
// bounds the ids of --logit-bias (a server checks them itself).
struct SamplingFlags {
    SamplingParams sampling;
    std::vector<std::string> stopStrings;  // --stop: end the generation there, not printed
    int64_t maxTokens = 256;
};
SamplingFlags samplingFlagsFrom(const Arguments& args, std::optional<int64_t> tokenCount);

struct GenerationSetup {
    // `attentionIsKernel`: --attention chooses the attention kernel (trace's chooses the heads to
    // record instead).
    explicit GenerationSetup(const Arguments& args, bool attentionIsKernel = true);
    static GeneratorOptions optionsFrom(const Arguments& args, bool attentionIsKernel);
    // The generator's backend, on --device (device_choice.h).
    std::unique_ptr<ForwardBackend> makeBackend() { return cli::makeBackend(model, generator); }

    // Before the model: the device and context decide how the model is opened.
    GeneratorOptions generator;
    Model model;
    Tokenizer tokenizer;
    SamplingParams sampling;
    std::vector<std::string> stopStrings;  // --stop: end the generation there, not printed
    int64_t maxTokens = 256;

    // A sampler for these parameters, knowing what its logit processors need: the token texts
    // (for --ban and --grammar) and `stopIds`, the tokens that end the turn (for --min-tokens).
    Sampler makeSampler(std::vector<int32_t> stopIds) const;
};

// The prompt's tokens: `text` as given (with the tokenizer's prefix), or with --chat as a user
// message (after --system, if given) in the model's chat template (--template auto, the default:
// the model's own Jinja template; or a built-in name). A template that fails is reported on stderr
// with the built-in one used instead.
// Callers read --prompt before loading the model, so that a missing one fails at once.
struct PromptTokens {
    TokenizationInfo info;
    std::vector<int32_t> stopIds;  // what ends the reply: the template's, else end of sequence
    std::vector<std::string> stopStrings;  // where the template's next turn would begin
};
PromptTokens tokenizePrompt(const std::string& text, const Arguments& args,
                            const GenerationSetup& setup);

// Throws Error with the numbers when `ids` leave no room in the generator's context (instead of a
// generation that ends before it starts).
void requirePromptFits(std::span<const int32_t> ids, const Generator& generator);

// A set of option names plus more.
std::set<std::string> with(std::set<std::string> names, std::initializer_list<const char*> more);
std::set<std::string> with(std::set<std::string> names, const std::set<std::string>& more);

}  // namespace inferlens::cli
