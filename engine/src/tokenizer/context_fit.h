#pragma once
// A conversation that has grown longer than the context: the oldest rounds leave the prompt, the
// system message and the newest question stay, and the caller tells the user how many went
// (rather than the generation stopping at once with a full context).

#include <cstdint>
#include <span>

#include "tokenizer/chat_template.h"

namespace inferlens {

struct FittedPrompt {
    RenderedPrompt prompt;
    int droppedRounds = 0;  // oldest rounds (a user turn and the reply after it) left out
};

// Renders `messages` (as ChatTemplate::render takes them) so that the prompt leaves `reserve` of
// `contextSize` tokens free for the reply, dropping the oldest rounds one at a time as needed.
// Throws Error when even the system message and the last user turn leave too little room.
FittedPrompt renderToFit(const ChatTemplate& chat, std::span<const ChatMessage> messages,
                         int64_t contextSize, int64_t reserve);

}  // namespace inferlens
