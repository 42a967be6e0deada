#pragma once
// Chat templates: a conversation → the ids the model was trained to see, and the rendered prompt
// with one entry per token for the tokenization panel. By default ("auto") the model's own Jinja
// template (GGUF tokenizer.chat_template, HF tokenizer_config.json chat_template), run by our
// interpreter (chat_template_jinja.h); when the model has none, or by name, one of four built-in
// layouts written out in code:
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
//   plain     [<s>] "{m1}\n\n{m2}\n\n{m3}"   (no roles: for base models without a template, of
//             an architecture no other layout belongs to; the model continues the text)
//
// Quoted parts are text, encoded one part at a time (so each starts with the dummy-prefix space, as
// Hugging Face's tokenizers do between special tokens); the others are special tokens, written by
// name in the rendered text.
//
// When the model's Jinja template fails (it does not parse, or raises an error on this
// conversation), the built-in layout its hints point to is used instead, and the prompt says so.
//
// A turn ends at an end-of-generation token (stopIds) and, as llama.cpp's reverse prompts do,
// where the model starts the template's next turn: each rendering also returns that turn's header
// (rendered with one more exchange) as a stop string, e.g. "[Round 2]" for chatglm2.

#include <cstdint>
#include <memory>
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

enum class ChatTemplateKind { ChatGlm2, ChatGlm3, Llama2, Zephyr, Plain };

std::string_view chatTemplateName(ChatTemplateKind kind);  // "chatglm2", "chatglm3", ...
// Throws Error listing the valid names when `name` is none of them.
ChatTemplateKind chatTemplateByName(std::string_view name);

struct ChatTemplateChoice {
    ChatTemplateKind kind = ChatTemplateKind::Llama2;  // the built-in layout (or the fallback)
    std::string reason;  // why, for the user: "tokenizer.chat_template contains '[INST]'"
    // "auto" on a model that ships a Jinja template: its source, rendered in preference to
    // `kind`, which is then only the fallback.
    std::string jinja;
};

// Picks the template from the model, first rule that applies, hints only counted when they fit the
// architecture (a ChatGLM layout for "chatglm", a LLaMA one for "llama"):
//   1. the Jinja chat template: "[Round" → chatglm2; "[gMASK]", "<|user|>" or "<|assistant|>"
//      → chatglm3; "[INST]" → llama2; "<|user|>" → zephyr;
//   2. the model's name: chatglm3, chatglm2, tinyllama / zephyr, llama-2 / llama2;
//   3. the architecture: chatglm → chatglm2, llama → llama2, any other → plain.
ChatTemplateChoice detectChatTemplate(std::string_view architecture, std::string_view modelName,
                                      std::string_view jinjaTemplate);
ChatTemplateChoice detectChatTemplate(const ModelFiles& files);
// `name` empty or "auto": the model's Jinja template when it has one (with detectChatTemplate's
// layout as the fallback, when there is one), else detectChatTemplate(files); otherwise the
// built-in layout chatTemplateByName(name).
ChatTemplateChoice chooseChatTemplate(const ModelFiles& files, std::string_view name);

struct RenderedPrompt {
    std::vector<int32_t> ids;  // what the model is fed
    TokenizationInfo info;     // the rendered text (specials by name) and a span per id
    // Where the model would start the template's next turn: stop the reply there.
    std::vector<std::string> stopStrings;
    // Not empty when the model's template failed on this conversation and the built-in fallback
    // rendered it: what failed (line, column) and which layout was used.
    std::string warning;
};

class JinjaChatTemplate;
class ChatTemplate;

// One line for `info` and the app: which template `name` ("" = auto) chooses for the model, and
// whether it renders a one-turn conversation (if not: the error with its line and column, and
// the built-in template used instead). Never throws.
std::string describeChatTemplate(const ModelFiles& files, std::string_view name = {});

class ChatTemplate {
  public:
    // Throws Error naming the model when its tokenizer lacks a special token the layout needs
    // (e.g. forcing chatglm3 onto a LLaMA model). `tokenizer` must outlive this object.
    ChatTemplate(ChatTemplateKind kind, const Tokenizer& tokenizer);
    // The model's Jinja template when `choice` has one. Throws Error when it does not parse and
    // there is no fallback (a parse failure with a fallback is reported by description()).
    ChatTemplate(const ChatTemplateChoice& choice, const Tokenizer& tokenizer);
    ~ChatTemplate();

    bool usesJinja() const { return jinja_ != nullptr; }
    ChatTemplateKind kind() const { return kind_; }  // the built-in layout, or the fallback
    // "model's own Jinja" or a built-in name ("chatglm2"): "the <name> chat template".
    std::string name() const;
    // What the app and `info` show: the name, the fallback, and why a Jinja template is not used.
    std::string description() const;
    bool supportsSystemPrompt() const { return usesJinja() || kind_ != ChatTemplateKind::ChatGlm2; }

    // `messages`: an optional system message, then user and assistant turns alternating, starting
    // and ending with a user turn (the prompt asks for the next assistant turn). Throws Error
    // otherwise, and for a system message with chatglm2.
    RenderedPrompt render(std::span<const ChatMessage> messages) const;

    // Ids that end the assistant's turn: the vocabulary's end-of-generation ids; the special
    // token the template writes right after an answer (<|im_end|>, <end_of_turn>); and the one
    // that starts its next turn (<|im_start|>, <|user|>). chatglm3 also stops at <|observation|>.
    const std::vector<int32_t>& stopIds() const { return stopIds_; }

  private:
    void initBuiltIn();
    RenderedPrompt renderBuiltIn(std::span<const ChatMessage> messages) const;
    RenderedPrompt renderOnce(std::span<const ChatMessage> messages) const;
    void addTurnBoundaryStops();
    std::vector<std::string> nextTurnStopStrings(std::span<const ChatMessage> messages) const;
    bool endsTurn(int32_t id) const;

    struct Ids {
        int32_t bos = -1, eos = -1;
        int32_t gMask = -1, sop = -1, system = -1, user = -1, assistant = -1, observation = -1;
    };
    void renderChatGlm2(std::span<const ChatMessage> turns, TokenizationInfo& info) const;
    void renderChatGlm3(std::span<const ChatMessage> messages, TokenizationInfo& info) const;
    void renderLlama2(std::span<const ChatMessage> messages, TokenizationInfo& info) const;
    void renderZephyr(std::span<const ChatMessage> messages, TokenizationInfo& info) const;
    void renderPlain(std::span<const ChatMessage> messages, TokenizationInfo& info) const;

    ChatTemplateKind kind_;
    const Tokenizer& tokenizer_;
    Ids ids_;
    std::vector<int32_t> stopIds_;
    std::vector<int32_t>
        turnEndIds_;  // end of sequence, and what the template writes after answers
    std::string reason_;
    std::unique_ptr<const JinjaChatTemplate> jinja_;
    bool hasBuiltIn_ = true;    // false: a Jinja template without a fallback
    std::string jinjaProblem_;  // why the model's template is not used, when it is not
};

}  // namespace inferlens
