#include "tokenizer/context_fit.h"

#include <vector>

#include "core/error.h"

namespace inferlens {

FittedPrompt renderToFit(const ChatTemplate& chat, std::span<const ChatMessage> messages,
                         int64_t contextSize, int64_t reserve) {
    const size_t system = !messages.empty() && messages[0].role == ChatRole::System ? 1 : 0;
    FittedPrompt fitted;
    // Turns alternate user, assistant, …, user: dropping two at a time keeps that shape.
    for (size_t first = system; first < messages.size(); first += 2) {
        std::vector<ChatMessage> kept(messages.begin(), messages.begin() + ptrdiff_t(system));
        kept.insert(kept.end(), messages.begin() + ptrdiff_t(first), messages.end());
        fitted.prompt = chat.render(kept);
        const auto length = int64_t(fitted.prompt.ids.size());
        if (length + reserve <= contextSize)
            return fitted;
        if (first + 1 >= messages.size())
            throw Error("the message is " + std::to_string(length) + " tokens long" +
                        (system != 0 ? " with the system prompt" : "") + "; the context holds " +
                        std::to_string(contextSize) + " with " + std::to_string(reserve) +
                        " kept for the reply: shorten it or choose a larger context");
        ++fitted.droppedRounds;
    }
    return fitted;  // no turns at all: render() has thrown already
}

}  // namespace inferlens
