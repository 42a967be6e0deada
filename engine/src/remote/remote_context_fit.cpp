#include "remote/remote_context_fit.h"

#include <algorithm>

#include "core/error.h"

namespace inferlens::remote {

namespace {

bool isUser(const ChatMessage& message) {
    return message.role == "user";
}

// Removes the oldest round: the first user message after any leading system messages, and every
// message up to the next user message. False when the last user turn is all that is left.
bool dropOldestRound(std::vector<ChatMessage>& messages) {
    const auto first = std::find_if(messages.begin(), messages.end(), isUser);
    if (first == messages.end())
        return false;
    const auto next = std::find_if(first + 1, messages.end(), isUser);
    if (next == messages.end())
        return false;
    messages.erase(first, next);
    return true;
}

std::optional<int64_t> promptTokensOf(const RemoteConnection& connection,
                                      const std::vector<ChatMessage>& messages) {
    const std::optional<std::string> prompt = connection.renderChat(messages);
    if (!prompt)
        return std::nullopt;
    const std::optional<TokenizationInfo> tokens = connection.tokenize(*prompt, false);
    if (!tokens)
        return std::nullopt;
    return int64_t(tokens->tokens.size());
}

}  // namespace

FittedConversation fitToServerContext(const RemoteConnection& connection,
                                      std::vector<ChatMessage> messages, int64_t reserve) {
    FittedConversation fitted;
    fitted.messages = std::move(messages);
    const std::optional<int64_t> context = connection.contextLength();
    if (!context)
        return fitted;
    while (true) {
        fitted.promptTokens = promptTokensOf(connection, fitted.messages);
        if (!fitted.promptTokens || *fitted.promptTokens + reserve <= *context)
            return fitted;
        if (!dropOldestRound(fitted.messages))
            throw Error("the question takes " + std::to_string(*fitted.promptTokens) +
                        " tokens of the server's context of " + std::to_string(*context) +
                        ", leaving less than the " + std::to_string(reserve) +
                        " asked for the answer: shorten it or ask for fewer tokens");
        ++fitted.droppedRounds;
    }
}

}  // namespace inferlens::remote
