#pragma once
// A conversation longer than the server's context, fitted as the local path fits one
// (tokenizer/context_fit.h): the oldest rounds leave the prompt, a leading system message and the
// newest question stay, and the caller says how many went.

#include <cstdint>
#include <optional>
#include <vector>

#include "remote/remote_generator.h"

namespace inferlens::remote {

struct FittedConversation {
    std::vector<ChatMessage> messages;
    int droppedRounds = 0;                // oldest rounds (a user turn and the replies after it)
    std::optional<int64_t> promptTokens;  // as the server counted them, when it could
};

// Leaves out the oldest rounds until the prompt the server renders for `messages` leaves `reserve`
// tokens of its context free, counting with the server's own chat template and tokenizer
// (llama-server's /apply-template and /tokenize). A server that does not say its context, or
// cannot render a chat for counting, gets the conversation unchanged: its own error then says
// when it is too long. Throws Error when even the system message and the last user turn leave
// too little room, RemoteError when counting fails.
FittedConversation fitToServerContext(const RemoteConnection& connection,
                                      std::vector<ChatMessage> messages, int64_t reserve);

}  // namespace inferlens::remote
