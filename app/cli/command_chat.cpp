#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "commands.h"
#include "core/error.h"
#include "generation_setup.h"
#include "remote_setup.h"
#include "sampling/sampler.h"
#include "token_printer.h"
#include "tokenizer/chat_template.h"
#include "tokenizer/context_fit.h"
#include "user_lines.h"

namespace inferlens::cli {

// Interactive, multi-turn: each line read from stdin is a user message; the answer streams to
// stdout. The whole conversation is rendered with the model's chat template every turn; the KV
// cache keeps what the previous turns computed, so a turn prefills only its new tokens. A reply
// ends at an end-of-turn token or where the model starts the template's next turn.
int runChat(const Words& words) {
    const Arguments args(
        words, with(with(generationValueOptions(), {"system", "template"}), remoteValueOptions()),
        generationFlags());
    if (const std::optional<int> code = runOnServer("chat", args))
        return *code;
    GenerationSetup setup(args);
    const ChatTemplateChoice choice =
        chooseChatTemplate(setup.model.files(), args.value("template").value_or(""));
    const ChatTemplate chatTemplate(choice, setup.tokenizer);
    std::vector<ChatMessage> messages;
    if (const auto system = args.value("system")) {
        if (!chatTemplate.supportsSystemPrompt())
            throw UsageError("the " + chatTemplate.name() + " template has no system prompt");
        messages.push_back({ChatRole::System, *system});
    }
    const std::vector<int32_t>& stops = chatTemplate.stopIds();
    Generator generator(setup.makeBackend(), setup.generator.useKvCache);
    Sampler sampler = setup.makeSampler(stops);
    const bool interactive = isatty(STDIN_FILENO);
    if (interactive)
        std::fprintf(stderr, "chat template: %s; end with Ctrl-D\n",
                     chatTemplate.description().c_str());
    std::string line;
    while (nextUserLine(line)) {
        messages.push_back({ChatRole::User, line});
        // A sliding cache takes a conversation up to the model's context (in window-sized steps).
        const int64_t context = generator.slidingWindow() > 0 ? generator.config().contextLength
                                                              : generator.contextSize();
        FittedPrompt fitted;
        try {
            fitted = renderToFit(chatTemplate, messages, context,
                                 std::min(setup.maxTokens, context / 2));
        } catch (const Error& error) {
            std::fprintf(stderr, "inferlens-cli: %s\n", error.what());
            messages.pop_back();
            continue;
        }
        if (fitted.droppedRounds > 0)
            std::fprintf(stderr,
                         "inferlens-cli: the conversation is longer than the context; the oldest "
                         "%d round(s) are left out of the prompt\n",
                         fitted.droppedRounds);
        const RenderedPrompt& prompt = fitted.prompt;
        if (!prompt.warning.empty())
            std::fprintf(stderr, "inferlens-cli: %s\n", prompt.warning.c_str());
        // The cache keeps the conversation so far: only what is new since the last turn runs.
        const int64_t cached = generator.keepCommonPrefix(prompt.ids);
        if (interactive && cached > 0)
            std::fprintf(stderr, "(%lld of %zu prompt tokens already in the KV cache)\n",
                         static_cast<long long>(cached), prompt.ids.size());
        std::vector<std::string> stopStrings = setup.stopStrings;
        stopStrings.insert(stopStrings.end(), prompt.stopStrings.begin(), prompt.stopStrings.end());
        TokenPrinter printer(sampler, setup.tokenizer, stdout, false, std::move(stopStrings));
        const Generation result =
            generator.generate(std::span(prompt.ids).subspan(size_t(cached)), setup.maxTokens,
                               printer, {stops.begin(), stops.end()});
        messages.push_back({ChatRole::Assistant, printer.finish()});
        std::printf("\n");
        std::fflush(stdout);
        if (result.reason == FinishReason::ContextFull)
            std::fprintf(stderr,
                         "inferlens-cli: the reply filled the context; the next turn "
                         "leaves the oldest rounds out\n");
    }
    return 0;
}

}  // namespace inferlens::cli
