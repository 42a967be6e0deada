#include "generation_setup.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "core/error.h"
#include "device_choice.h"
#include "grammar/json_schema.h"
#include "tokenizer/chat_template.h"

namespace inferlens::cli {

std::set<std::string> generationValueOptions() {
    return {"model",
            "threads",
            "device",
            "attention",
            "seed",
            "temperature",
            "top-k",
            "top-p",
            "min-p",
            "repeat-penalty",
            "repeat-last-n",
            "frequency-penalty",
            "presence-penalty",
            "max-tokens",
            "ctx-size",
            "kv-type",
            "window",
            "sinks",
            "logit-bias",
            "ban",
            "min-tokens",
            "grammar",
            "json-schema",
            "stop"};
}

namespace {

// --logit-bias ID=V, with the id inside the vocabulary.
std::pair<int32_t, float> logitBiasArgument(const std::string& text,
                                            std::optional<int64_t> tokenCount) {
    std::pair<int32_t, float> bias;
    try {
        bias = parseLogitBias(text);
    } catch (const Error& error) {
        throw UsageError(std::string("--") + error.what());
    }
    if (tokenCount && bias.first >= *tokenCount)
        throw UsageError("--logit-bias " + text + ": the id is outside the vocabulary (0 … " +
                         std::to_string(*tokenCount - 1) + ")");
    return bias;
}

std::string readTextFile(const std::string& path, const std::string& what) {
    std::ifstream file(path, std::ios::binary);
    if (!file)
        throw Error(path + ": cannot read the " + what + " file");
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

}  // namespace

std::set<std::string> generationFlags() {
    return {"no-cache"};
}

void requirePromptFits(std::span<const int32_t> ids, const Generator& generator) {
    if (generator.slidingWindow() > 0 || int64_t(ids.size()) < generator.contextSize())
        return;
    throw Error("the prompt is " + std::to_string(ids.size()) +
                " tokens long and the context holds " + std::to_string(generator.contextSize()) +
                " (--ctx-size; the model's own is " +
                std::to_string(generator.config().contextLength) +
                "): shorten the prompt or choose a larger context");
}

std::set<std::string> with(std::set<std::string> names, std::initializer_list<const char*> more) {
    names.insert(more.begin(), more.end());
    return names;
}

std::set<std::string> with(std::set<std::string> names, const std::set<std::string>& more) {
    names.insert(more.begin(), more.end());
    return names;
}

GeneratorOptions GenerationSetup::optionsFrom(const Arguments& args, bool attentionIsKernel) {
    GeneratorOptions options = backendOptions(args, attentionIsKernel);
    options.useKvCache = !args.flag("no-cache");
    return options;
}

SamplingFlags samplingFlagsFrom(const Arguments& args, std::optional<int64_t> tokenCount) {
    SamplingFlags flags;
    SamplingParams& sampling = flags.sampling;
    sampling.seed = uint64_t(args.integer("seed", 0));
    sampling.temperature = float(args.number("temperature", sampling.temperature));
    sampling.topK = int32_t(args.integer("top-k", sampling.topK));
    sampling.topP = float(args.number("top-p", sampling.topP));
    sampling.minP = float(args.number("min-p", sampling.minP));
    sampling.repetitionPenalty = float(args.number("repeat-penalty", sampling.repetitionPenalty));
    sampling.penaltyLastN = int32_t(args.integer("repeat-last-n", sampling.penaltyLastN));
    sampling.frequencyPenalty = float(args.number("frequency-penalty", sampling.frequencyPenalty));
    sampling.presencePenalty = float(args.number("presence-penalty", sampling.presencePenalty));
    for (const std::string& bias : args.values("logit-bias"))
        sampling.logitBias.push_back(logitBiasArgument(bias, tokenCount));
    sampling.bannedTexts = args.values("ban");
    sampling.minNewTokens = int32_t(args.integer("min-tokens", 0));
    if (args.value("grammar") && args.value("json-schema"))
        throw UsageError("--grammar and --json-schema cannot be combined");
    if (const auto path = args.value("grammar"))
        sampling.grammar = readTextFile(*path, "grammar");
    if (const auto path = args.value("json-schema"))
        sampling.grammar = grammarFromJsonSchema(readTextFile(*path, "JSON schema"));
    validate(sampling);
    flags.stopStrings = args.values("stop");
    for (const std::string& stop : flags.stopStrings)
        if (stop.empty())
            throw UsageError("--stop needs a non-empty text");
    flags.maxTokens = args.integer("max-tokens", flags.maxTokens);
    if (flags.maxTokens < 1)
        throw UsageError("--max-tokens must be at least 1");
    return flags;
}

GenerationSetup::GenerationSetup(const Arguments& args, bool attentionIsKernel)
    : generator(optionsFrom(args, attentionIsKernel)),
      model(openModel(args.modelPath(), generator)),
      tokenizer(model.files()) {
    SamplingFlags flags = samplingFlagsFrom(args, tokenizer.tokenCount());
    sampling = std::move(flags.sampling);
    stopStrings = std::move(flags.stopStrings);
    maxTokens = flags.maxTokens;
}

Sampler GenerationSetup::makeSampler(std::vector<int32_t> stopIds) const {
    Sampler sampler(sampling, tokenizer.tokenCount());
    if (!sampling.bannedTexts.empty() || !sampling.grammar.empty())
        sampler.setTokenTexts(
            std::make_shared<const std::vector<std::string>>(tokenizer.textsOfAll()));
    sampler.setStopIds(std::move(stopIds));
    return sampler;
}

PromptTokens tokenizePrompt(const std::string& text, const Arguments& args,
                            const GenerationSetup& setup) {
    if (!args.flag("chat"))
        return {setup.tokenizer.tokenize(text), setup.tokenizer.eosIds(), {}};
    const ChatTemplate chatTemplate(
        chooseChatTemplate(setup.model.files(), args.value("template").value_or("")),
        setup.tokenizer);
    std::vector<ChatMessage> messages;
    if (const auto system = args.value("system"))
        messages.push_back({ChatRole::System, *system});
    messages.push_back({ChatRole::User, text});
    RenderedPrompt prompt = chatTemplate.render(messages);
    if (!prompt.warning.empty())
        std::fprintf(stderr, "inferlens-cli: %s\n", prompt.warning.c_str());
    return {std::move(prompt.info), chatTemplate.stopIds(), std::move(prompt.stopStrings)};
}

}  // namespace inferlens::cli
