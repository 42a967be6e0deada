#include "tokenizer/chat_template_jinja.h"

#include <algorithm>

#include "tokenizer/chat_template.h"

namespace inferlens {
namespace {

jinja::Value messageValue(const ChatMessage& message) {
    const char* role = message.role == ChatRole::System ? "system"
                       : message.role == ChatRole::User ? "user"
                                                        : "assistant";
    auto dict = std::make_shared<jinja::Dict>();
    dict->set("role", jinja::Value(jinja::TaggedText(role)));
    dict->set("content", jinja::Value(jinja::TaggedText(message.content, true)));
    return jinja::Value(std::move(dict));
}

}  // namespace

JinjaChatTemplate::JinjaChatTemplate(const std::string& source, const Tokenizer& tokenizer)
    : template_(source, "the model's chat template"), tokenizer_(tokenizer) {
    for (int32_t id = 0; id < int32_t(tokenizer.tokenCount()); ++id)
        if (tokenizer.isSpecial(id))
            if (std::string name = tokenizer.piece(id); !name.empty())
                specialsByFirstByte_[static_cast<unsigned char>(name[0])].emplace_back(
                    std::move(name), id);
    for (auto& specials : specialsByFirstByte_)
        std::stable_sort(specials.begin(), specials.end(), [](const auto& a, const auto& b) {
            return a.first.size() > b.first.size();
        });
    if (const auto bos = tokenizer.bosId())
        bosToken_ = tokenizer.piece(*bos);
    if (!tokenizer.eosIds().empty())
        eosToken_ = tokenizer.piece(tokenizer.eosIds().front());
}

TokenizationInfo JinjaChatTemplate::render(std::span<const ChatMessage> messages) const {
    jinja::List list;
    for (const ChatMessage& message : messages)
        list.push_back(messageValue(message));
    const jinja::Variables variables{{"messages", jinja::Value(std::move(list))},
                                     {"bos_token", jinja::Value(jinja::TaggedText(bosToken_))},
                                     {"eos_token", jinja::Value(jinja::TaggedText(eosToken_))},
                                     {"add_generation_prompt", jinja::Value(true)}};
    jinja::RenderOptions options;
    options.now = jinja::localTimeNow();
    TokenizationInfo info;
    appendTokens(template_.render(variables, options), info);
    return info;
}

void JinjaChatTemplate::appendTokens(const jinja::TaggedText& rendered,
                                     TokenizationInfo& info) const {
    const std::string& text = rendered.text();
    const auto templateOwns = [&](size_t begin, size_t length) {
        for (size_t i = begin; i < begin + length; ++i)
            if (rendered.userAt(i))
                return false;
        return true;
    };
    size_t pending = 0;  // start of the text not yet appended
    size_t at = 0;
    while (at < text.size()) {
        const auto& candidates = specialsByFirstByte_[static_cast<unsigned char>(text[at])];
        const auto special = std::find_if(candidates.begin(), candidates.end(), [&](const auto& s) {
            return text.compare(at, s.first.size(), s.first) == 0 &&
                   templateOwns(at, s.first.size());
        });
        if (special == candidates.end()) {
            ++at;
            continue;
        }
        if (at > pending)
            tokenizer_.appendText(info, std::string_view(text).substr(pending, at - pending));
        tokenizer_.appendSpecial(info, special->second, true);
        at += special->first.size();
        pending = at;
    }
    if (text.size() > pending)
        tokenizer_.appendText(info, std::string_view(text).substr(pending));
}

}  // namespace inferlens
