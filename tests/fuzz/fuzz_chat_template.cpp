// Chat templates rendering arbitrary conversations: the input is split at NUL bytes into messages
// whose first byte chooses the role; every template renders them with the bundled tokenizer.

#include <string>
#include <vector>

#include "core/error.h"
#include "models/default_model.h"
#include "models/model_files.h"
#include "tokenizer/chat_template.h"
#include "tokenizer/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace inferlens;
    static const ModelFiles files = openModelFiles(findDefaultModel());
    static const Tokenizer tokenizer(files);
    std::vector<ChatMessage> messages;
    size_t at = 0;
    while (at < size && messages.size() < 64) {
        const auto role = ChatRole(data[at++] % 3);
        std::string text;
        while (at < size && data[at] != 0)
            text.push_back(char(data[at++]));
        ++at;
        messages.push_back({role, std::move(text)});
    }
    for (const ChatTemplateKind kind : {ChatTemplateKind::ChatGlm2, ChatTemplateKind::ChatGlm3,
                                        ChatTemplateKind::Llama2, ChatTemplateKind::Zephyr}) {
        try {
            const ChatTemplate chat(kind, tokenizer);
            chat.render(messages);
        } catch (const Error&) {
        }
    }
    return 0;
}
