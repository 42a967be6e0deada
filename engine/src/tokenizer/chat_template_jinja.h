#pragma once
// A model's own Jinja chat template, rendered and tokenized: the conversation goes in as
// `messages` (role, content), with bos_token, eos_token and add_generation_prompt=True as Hugging
// Face passes them, and strftime_now giving the local date. In the rendered text, the template's
// own special-token names ("<|im_start|>") become special tokens (the longest name wins); text
// that came from a message never does, so a person typing "<|im_end|>" gets text. Everything
// between two special tokens is encoded as one text, whoever wrote it.

#include <array>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "jinja/template.h"
#include "tokenizer/tokenizer.h"

namespace inferlens {

struct ChatMessage;

class JinjaChatTemplate {
  public:
    // Throws jinja::JinjaError naming the line and column when `source` does not parse.
    JinjaChatTemplate(const std::string& source, const Tokenizer& tokenizer);

    // Throws jinja::JinjaError when rendering fails (raise_exception included).
    TokenizationInfo render(std::span<const ChatMessage> messages) const;

  private:
    void appendTokens(const jinja::TaggedText& rendered, TokenizationInfo& info) const;

    jinja::Template template_;
    const Tokenizer& tokenizer_;
    // Every special token's name, by its first byte, longest first.
    std::array<std::vector<std::pair<std::string, int32_t>>, 256> specialsByFirstByte_;
    std::string bosToken_;
    std::string eosToken_;
};

}  // namespace inferlens
