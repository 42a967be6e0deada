#pragma once
// Chat templates: a conversation → the ids the model was trained to see, and the rendered prompt
// with one entry per token for the tokenization panel. Four layouts, written out in code rather
// than by running the model's Jinja template (which we only read for hints):
//
//   chatglm2  [gMASK] sop "[Round 1]\n\n问：{q1}\n\n答：{a1}\n\n[Round 2]\n\n问：{q2}\n\n答："
//             one text, rounds numbered from 1; no system prompt (render() refuses one).
//   chatglm3  [gMASK] sop, per message <|role|> "\n" "{content}" (the "\n" and the content encoded
//             separately, each with sentencepiece's dummy-prefix space, as ChatGLM3's
//             build_chat_input does), then <|assistant|>.
//   llama2    <s> "[INST] <<SYS>>\n{system}\n<</SYS>>\n\n{q1} [/INST] {a1} " </s>
//             <s> "[INST] {q2} [/INST]"   (Meta's reference chat_completion, contents as given)
//   zephyr    [<s>] "<|system|>\n{system}" </s> "\n<|user|>\n{q1}" </s> "\n<|assistant|>\n{a1}"
//             </s> ... "\n<|assistant|>\n"   (TinyLlama-Chat; <s> when the vocabulary adds BOS)
//
// Quoted parts are text, encoded one part at a time (so each starts with the dummy-prefix space, as
// Hugging Face's tokenizers do between special tokens); the others are special tokens, written by
// name in the rendered text.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace inferlens {

struct ModelFiles;

enum class ChatRole { System, User, Assistant };

struct ChatMessage {
    ChatRole role = ChatRole::User;
    std::string content;
};

enum class ChatTemplateKind { ChatGlm2, ChatGlm3, Llama2, Zephyr };

std::string_view chatTemplateName(ChatTemplateKind kind);  // "chatglm2", "chatglm3", ...
// Throws Error listing the valid names when `name` is none of them.
ChatTemplateKind chatTemplateByName(std::string_view name);

struct ChatTemplateChoice {
    ChatTemplateKind kind = ChatTemplateKind::Llama2;
    std::string reason;  // why, for the user: "tokenizer.chat_template contains '[INST]'"
};

// Picks the template from the model, first rule that applies, hints only counted when they fit the
// architecture (a ChatGLM layout for "chatglm", a LLaMA one for "llama"):
//   1. the Jinja chat template: "[Round" → chatglm2; "[gMASK]", "<|user|>" or "<|assistant|>"
//      → chatglm3; "[INST]" → llama2; "<|user|>" → zephyr;
//   2. the model's name: chatglm3, chatglm2, tinyllama / zephyr, llama-2 / llama2;
//   3. the architecture: chatglm → chatglm2, llama → llama2.
// Throws Error for any other architecture.
ChatTemplateChoice detectChatTemplate(std::string_view architecture, std::string_view modelName,
                                      std::string_view jinjaTemplate);
ChatTemplateChoice detectChatTemplate(const ModelFiles& files);
// `forcedName` empty: detectChatTemplate(files); otherwise chatTemplateByName(forcedName).
ChatTemplateChoice chooseChatTemplate(const ModelFiles& files, std::string_view forcedName);

struct RenderedPrompt {
    std::vector<int32_t> ids;  // what the model is fed
    TokenizationInfo info;     // the rendered text (specials by name) and a span per id
};

class ChatTemplate {
  public:
    // Throws Error naming the model when its tokenizer lacks a special token the layout needs
    // (e.g. forcing chatglm3 onto a LLaMA model). `tokenizer` must outlive this object.
    ChatTemplate(ChatTemplateKind kind, const Tokenizer& tokenizer);

    ChatTemplateKind kind() const { return kind_; }
    std::string_view name() const { return chatTemplateName(kind_); }
    bool supportsSystemPrompt() const { return kind_ != ChatTemplateKind::ChatGlm2; }

    // `messages`: an optional system message, then user and assistant turns alternating, starting
    // and ending with a user turn (the prompt asks for the next assistant turn). Throws Error
    // otherwise, and for a system message with chatglm2.
    RenderedPrompt render(std::span<const ChatMessage> messages) const;

    // Ids that end the assistant's turn. chatglm2: </s>; chatglm3: </s>, <|user|>,
    // <|observation|>; llama2, zephyr: </s>.
    const std::vector<int32_t>& stopIds() const { return stopIds_; }

  private:
    struct Ids {
        int32_t bos = -1, eos = -1;
        int32_t gMask = -1, sop = -1, system = -1, user = -1, assistant = -1, observation = -1;
    };
    void renderChatGlm2(std::span<const ChatMessage> turns, TokenizationInfo& info) const;
    void renderChatGlm3(std::span<const ChatMessage> messages, TokenizationInfo& info) const;
    void renderLlama2(std::span<const ChatMessage> messages, TokenizationInfo& info) const;
    void renderZephyr(std::span<const ChatMessage> messages, TokenizationInfo& info) const;

    ChatTemplateKind kind_;
    const Tokenizer& tokenizer_;
    Ids ids_;
    std::vector<int32_t> stopIds_;
};

}  // namespace inferlens
