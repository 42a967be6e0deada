#include "tokenizer/chat_template.h"

#include <algorithm>
#include <array>
#include <optional>
#include <utility>

#include "core/error.h"
#include "jinja/jinja_error.h"
#include "models/model_files.h"
#include "tokenizer/chat_template_jinja.h"

namespace inferlens {
namespace {

struct NamedKind {
    std::string_view name;
    ChatTemplateKind kind;
    std::string_view architecture;  // the family the layout belongs to
};

constexpr std::array kKinds{
    NamedKind{"chatglm2", ChatTemplateKind::ChatGlm2, "chatglm"},
    NamedKind{"chatglm3", ChatTemplateKind::ChatGlm3, "chatglm"},
    NamedKind{"llama2", ChatTemplateKind::Llama2, "llama"},
    NamedKind{"zephyr", ChatTemplateKind::Zephyr, "llama"},
    NamedKind{"plain", ChatTemplateKind::Plain, ""},
};

const NamedKind& describe(ChatTemplateKind kind) {
    return *std::find_if(kKinds.begin(), kKinds.end(),
                         [kind](const NamedKind& entry) { return entry.kind == kind; });
}

std::string lowercase(std::string_view text) {
    std::string result(text);
    std::transform(result.begin(), result.end(), result.begin(),
                   [](unsigned char c) { return char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); });
    return result;
}

ChatTemplateChoice builtIn(ChatTemplateKind kind, std::string reason) {
    ChatTemplateChoice choice;
    choice.kind = kind;
    choice.reason = std::move(reason);
    return choice;
}

bool contains(std::string_view text, std::string_view part) {
    return text.find(part) != std::string_view::npos;
}

// Rule 1: what the model's own Jinja template writes. ChatGLM3's writes its role tokens as
// "<|{{ message['role'] }}|>", so any of these markers in a ChatGLM model's template means
// ChatGLM3.
std::optional<ChatTemplateChoice> fromJinja(std::string_view jinja, std::string_view architecture) {
    const auto because = [](ChatTemplateKind kind, std::string_view marker) {
        return builtIn(kind, "the model's chat template contains '" + std::string(marker) + "'");
    };
    if (contains(jinja, "[Round"))
        return because(ChatTemplateKind::ChatGlm2, "[Round");
    if (architecture == "chatglm")
        for (const std::string_view marker : {"[gMASK]", "<|user|>", "<|assistant|>"})
            if (contains(jinja, marker))
                return because(ChatTemplateKind::ChatGlm3, marker);
    if (contains(jinja, "[INST]"))
        return because(ChatTemplateKind::Llama2, "[INST]");
    if (contains(jinja, "<|user|>"))
        return because(ChatTemplateKind::Zephyr, "<|user|>");
    return std::nullopt;
}

// Rule 2: the model's name ("THUDM/chatglm3-6b", "TinyLlama-1.1B-Chat-v1.0", "Llama-2-7b-chat"),
// first marker that it contains, compared in lower case.
constexpr std::pair<std::string_view, ChatTemplateKind> kNameMarkers[] = {
    {"chatglm3", ChatTemplateKind::ChatGlm3}, {"chatglm2", ChatTemplateKind::ChatGlm2},
    {"tinyllama", ChatTemplateKind::Zephyr},  {"zephyr", ChatTemplateKind::Zephyr},
    {"llama-2", ChatTemplateKind::Llama2},    {"llama2", ChatTemplateKind::Llama2},
    {"llama_2", ChatTemplateKind::Llama2},
};

std::optional<ChatTemplateChoice> fromName(std::string_view modelName) {
    const std::string name = lowercase(modelName);
    for (const auto& [marker, kind] : kNameMarkers)
        if (contains(name, marker))
            return builtIn(kind, "the model's name '" + std::string(modelName) + "' contains '" +
                                     std::string(marker) + "'");
    return std::nullopt;
}

}  // namespace

std::string_view chatTemplateName(ChatTemplateKind kind) {
    return describe(kind).name;
}

ChatTemplateKind chatTemplateByName(std::string_view name) {
    for (const NamedKind& entry : kKinds)
        if (entry.name == name)
            return entry.kind;
    std::string valid;
    for (const NamedKind& entry : kKinds)
        valid += (valid.empty() ? "" : ", ") + std::string(entry.name);
    throw Error("unknown chat template '" + std::string(name) + "'; valid: " + valid +
                ", or auto (the model's own, the default)");
}

ChatTemplateChoice detectChatTemplate(std::string_view architecture, std::string_view modelName,
                                      std::string_view jinjaTemplate) {
    const auto fits = [&](const std::optional<ChatTemplateChoice>& choice) {
        return choice && describe(choice->kind).architecture == architecture;
    };
    if (auto choice = fromJinja(jinjaTemplate, architecture); fits(choice))
        return *choice;
    if (auto choice = fromName(modelName); fits(choice))
        return *choice;
    if (architecture == "chatglm")
        return builtIn(ChatTemplateKind::ChatGlm2,
                       "a ChatGLM model without hints of ChatGLM3: ChatGLM2's layout");
    if (architecture == "llama")
        return builtIn(ChatTemplateKind::Llama2,
                       "a LLaMA model without other hints: LLaMA-2's layout");
    // A base model (Gemma 3 270M ships no template) is still worth opening: it continues text.
    return builtIn(ChatTemplateKind::Plain,
                   "no chat template in the model and no built-in layout for '" +
                       std::string(architecture) + "': the conversation as plain text");
}

ChatTemplateChoice detectChatTemplate(const ModelFiles& files) {
    const std::string_view architecture =
        files.architecture != nullptr ? files.architecture->name() : std::string_view();
    return detectChatTemplate(architecture, files.modelName, files.chatTemplate);
}

ChatTemplateChoice chooseChatTemplate(const ModelFiles& files, std::string_view name) {
    if (!name.empty() && name != "auto")
        return builtIn(chatTemplateByName(name), "chosen by name");
    if (files.chatTemplate.empty())
        return detectChatTemplate(files);
    ChatTemplateChoice choice;
    choice.jinja = files.chatTemplate;
    choice.reason = "the model's own chat template";
    choice.kind = detectChatTemplate(files).kind;
    return choice;
}

std::string describeChatTemplate(const ModelFiles& files, std::string_view name) {
    try {
        const Tokenizer tokenizer(files);
        const ChatTemplate chat(chooseChatTemplate(files, name), tokenizer);
        const std::vector<ChatMessage> hello{{ChatRole::User, "Hello"}};
        const RenderedPrompt prompt = chat.render(hello);
        return prompt.warning.empty() ? chat.description()
                                      : chat.description() + "; " + prompt.warning;
    } catch (const Error& error) {
        return std::string("none usable: ") + error.what();
    }
}

ChatTemplate::ChatTemplate(ChatTemplateKind kind, const Tokenizer& tokenizer)
    : kind_(kind), tokenizer_(tokenizer), reason_("chosen by name") {
    initBuiltIn();
    addTurnBoundaryStops();
}

ChatTemplate::ChatTemplate(const ChatTemplateChoice& choice, const Tokenizer& tokenizer)
    : kind_(choice.kind), tokenizer_(tokenizer), reason_(choice.reason) {
    if (!choice.jinja.empty()) {
        try {
            jinja_ = std::make_unique<const JinjaChatTemplate>(choice.jinja, tokenizer);
        } catch (const jinja::JinjaError& error) {
            jinjaProblem_ = error.what();
        }
    }
    try {
        initBuiltIn();
    } catch (const Error&) {
        if (!jinja_)
            throw;
        hasBuiltIn_ = false;  // the layout the hints name does not fit this vocabulary
    }
    if (jinja_) {  // the model's template decides where turns end, not the fallback's layout
        stopIds_ = tokenizer.eosIds();
        turnEndIds_ = stopIds_;
    }
    addTurnBoundaryStops();
}

ChatTemplate::~ChatTemplate() = default;

std::string ChatTemplate::name() const {
    return usesJinja() ? "model's own Jinja" : std::string(chatTemplateName(kind_));
}

std::string ChatTemplate::description() const {
    if (usesJinja())
        return "the model's own Jinja template (" +
               (hasBuiltIn_ ? "if it fails: the built-in " + std::string(chatTemplateName(kind_))
                            : std::string("no built-in fallback")) +
               ")";
    if (!jinjaProblem_.empty())
        return std::string(chatTemplateName(kind_)) +
               " (built-in; the model's own template fails: " + jinjaProblem_ + ")";
    return std::string(chatTemplateName(kind_)) + " (built-in; " + reason_ + ")";
}

void ChatTemplate::initBuiltIn() {
    const std::string needs =
        " (the " + std::string(chatTemplateName(kind_)) + " chat template needs it)";
    const auto required = [&](std::string_view special) {
        if (const auto id = tokenizer_.findSpecial(special))
            return *id;
        throwFileError(tokenizer_.source(),
                       "the tokenizer has no special token '" + std::string(special) + "'" + needs);
    };
    const std::vector<int32_t> eos = tokenizer_.eosIds();
    if (eos.empty())
        throwFileError(tokenizer_.source(), "the tokenizer has no end-of-sequence token" + needs);
    ids_.eos = eos.front();
    stopIds_ = eos;
    switch (kind_) {
        case ChatTemplateKind::ChatGlm3:
            ids_.system = required("<|system|>");
            ids_.user = required("<|user|>");
            ids_.assistant = required("<|assistant|>");
            ids_.observation = required("<|observation|>");
            if (std::find(stopIds_.begin(), stopIds_.end(), ids_.observation) == stopIds_.end())
                stopIds_.push_back(ids_.observation);
            [[fallthrough]];
        case ChatTemplateKind::ChatGlm2:
            ids_.gMask = required("[gMASK]");
            ids_.sop = required("sop");
            break;
        case ChatTemplateKind::Llama2:
            if (!tokenizer_.bosId())
                throwFileError(tokenizer_.source(),
                               "the tokenizer has no beginning-of-sequence token" + needs);
            ids_.bos = *tokenizer_.bosId();
            break;
        case ChatTemplateKind::Zephyr:
        case ChatTemplateKind::Plain:
            break;
    }
    turnEndIds_ = eos;
}

namespace {

// What a model never writes, standing for an answer and the next question, to find the template's
// turn boundary in a rendering.
constexpr std::string_view kAnswerMark = "INFERLENS_ANSWER_MARK";
constexpr std::string_view kQuestionMark = "INFERLENS_QUESTION_MARK";

struct BoundaryPiece {
    bool special = false;
    int32_t id = -1;
    std::string text;
};

// The rendering between the end of the marked answer and the start of the marked question, as
// special tokens and text; empty when the template dropped either mark.
std::vector<BoundaryPiece> turnBoundary(const TokenizationInfo& info) {
    const size_t answer = info.text.rfind(kAnswerMark);
    if (answer == std::string::npos)
        return {};
    const size_t begin = answer + kAnswerMark.size();
    const size_t end = info.text.find(kQuestionMark, begin);
    if (end == std::string::npos)
        return {};
    std::vector<BoundaryPiece> pieces;
    size_t at = begin;
    for (const TokenInfo& token : info.tokens) {
        if (!token.special || token.begin == token.end || size_t(token.begin) < at ||
            size_t(token.end) > end)
            continue;
        if (size_t(token.begin) > at)
            pieces.push_back({false, -1, info.text.substr(at, size_t(token.begin) - at)});
        pieces.push_back({true, token.id, {}});
        at = size_t(token.end);
    }
    if (end > at)
        pieces.push_back({false, -1, info.text.substr(at, end - at)});
    return pieces;
}

bool isBlank(const std::string& text) {
    return text.find_first_not_of(" \t\r\n") == std::string::npos;
}

void addOnce(std::vector<int32_t>& ids, int32_t id) {
    if (std::find(ids.begin(), ids.end(), id) == ids.end())
        ids.push_back(id);
}

}  // namespace

bool ChatTemplate::endsTurn(int32_t id) const {
    return std::find(turnEndIds_.begin(), turnEndIds_.end(), id) != turnEndIds_.end();
}

void ChatTemplate::addTurnBoundaryStops() {
    const std::vector<ChatMessage> exchange{{ChatRole::User, "Hello"},
                                            {ChatRole::Assistant, std::string(kAnswerMark)},
                                            {ChatRole::User, std::string(kQuestionMark)}};
    std::vector<BoundaryPiece> pieces;
    try {
        pieces = turnBoundary(renderOnce(exchange).info);
    } catch (const Error&) {
        return;  // a template that refuses this exchange implies nothing
    }
    // The first special token after an answer ends the turn (<|im_end|>, <|eot_id|>); the first
    // one after that and after blank text starts the next (<|im_start|>, <|user|>).
    size_t i = 0;
    while (i < pieces.size() && !pieces[i].special && isBlank(pieces[i].text))
        ++i;
    if (i < pieces.size() && pieces[i].special) {
        addOnce(turnEndIds_, pieces[i].id);
        addOnce(stopIds_, pieces[i].id);
    }
    while (i < pieces.size() &&
           (pieces[i].special ? endsTurn(pieces[i].id) : isBlank(pieces[i].text)))
        ++i;
    if (i < pieces.size() && pieces[i].special)
        addOnce(stopIds_, pieces[i].id);
}

std::vector<std::string> ChatTemplate::nextTurnStopStrings(
    std::span<const ChatMessage> messages) const {
    std::vector<ChatMessage> extended(messages.begin(), messages.end());
    extended.push_back({ChatRole::Assistant, std::string(kAnswerMark)});
    extended.push_back({ChatRole::User, std::string(kQuestionMark)});
    std::vector<BoundaryPiece> pieces;
    try {
        pieces = turnBoundary(renderOnce(extended).info);
    } catch (const Error&) {
        return {};
    }
    // When the next turn's header starts with text ("[Round 2]", "<|user|>" written as text),
    // its first line, up to any number in it, is the stop string: a model that runs on into a
    // made-up turn numbers it as it likes ("[Round 2]" inside the answer of round 2). A header
    // that starts with a special token is stopped by that token (stopIds) instead.
    size_t i = 0;
    while (i < pieces.size() &&
           (pieces[i].special ? endsTurn(pieces[i].id) : isBlank(pieces[i].text)))
        ++i;
    if (i >= pieces.size() || pieces[i].special)
        return {};
    std::string header = pieces[i].text;
    header.erase(0, header.find_first_not_of(" \t\r\n"));
    header = header.substr(0, std::min(header.find('\n'), header.find_first_of("0123456789")));
    header.erase(header.find_last_not_of(" \t\r") + 1);
    if (header.size() < 2)
        return {};
    return {header};
}

RenderedPrompt ChatTemplate::render(std::span<const ChatMessage> messages) const {
    // Check the shape of the conversation once, for every layout.
    const bool hasSystem = !messages.empty() && messages.front().role == ChatRole::System;
    if (hasSystem && !supportsSystemPrompt())
        throw Error("the " + name() +
                    " chat template has no system prompt; leave it empty or choose chatglm3, "
                    "llama2 or zephyr");
    const std::span<const ChatMessage> turns = messages.subspan(hasSystem ? 1 : 0);
    if (turns.empty() || turns.size() % 2 == 0)
        throw Error(
            "a chat prompt needs user and assistant turns in turn, ending with a user turn");
    for (size_t i = 0; i < turns.size(); ++i) {
        const ChatRole expected = i % 2 == 0 ? ChatRole::User : ChatRole::Assistant;
        if (turns[i].role != expected)
            throw Error("chat message " + std::to_string(i + (hasSystem ? 1 : 0) + 1) +
                        ": expected a " + (expected == ChatRole::User ? "user" : "assistant") +
                        " turn (a system message may only come first)");
    }
    RenderedPrompt prompt = renderOnce(messages);
    prompt.stopStrings = nextTurnStopStrings(messages);
    return prompt;
}

RenderedPrompt ChatTemplate::renderOnce(std::span<const ChatMessage> messages) const {
    if (!jinja_)
        return renderBuiltIn(messages);
    try {
        RenderedPrompt prompt;
        prompt.info = jinja_->render(messages);
        prompt.ids = prompt.info.ids();
        return prompt;
    } catch (const jinja::JinjaError& error) {
        if (!hasBuiltIn_)
            throw;
        RenderedPrompt prompt = renderBuiltIn(messages);
        prompt.warning = std::string(error.what()) + "; the built-in " +
                         std::string(chatTemplateName(kind_)) + " template is used instead";
        return prompt;
    }
}

RenderedPrompt ChatTemplate::renderBuiltIn(std::span<const ChatMessage> messages) const {
    const bool hasSystem = !messages.empty() && messages.front().role == ChatRole::System;
    if (hasSystem && kind_ == ChatTemplateKind::ChatGlm2)
        throw Error("the chatglm2 chat template has no system prompt");
    RenderedPrompt prompt;
    switch (kind_) {
        case ChatTemplateKind::ChatGlm2:
            renderChatGlm2(messages.subspan(hasSystem ? 1 : 0), prompt.info);
            break;
        case ChatTemplateKind::ChatGlm3:
            renderChatGlm3(messages, prompt.info);
            break;
        case ChatTemplateKind::Llama2:
            renderLlama2(messages, prompt.info);
            break;
        case ChatTemplateKind::Zephyr:
            renderZephyr(messages, prompt.info);
            break;
        case ChatTemplateKind::Plain:
            renderPlain(messages, prompt.info);
            break;
    }
    prompt.ids = prompt.info.ids();
    return prompt;
}

void ChatTemplate::renderChatGlm2(std::span<const ChatMessage> turns,
                                  TokenizationInfo& info) const {
    // ChatGLM2's build_prompt: the whole conversation is one text.
    std::string text;
    for (size_t i = 0; i < turns.size(); i += 2) {
        text += "[Round " + std::to_string(i / 2 + 1) + "]\n\n问：" + turns[i].content + "\n\n答：";
        if (i + 1 < turns.size())
            text += turns[i + 1].content + "\n\n";
    }
    tokenizer_.appendSpecial(info, ids_.gMask, true);
    tokenizer_.appendSpecial(info, ids_.sop, true);
    tokenizer_.appendText(info, text);
}

void ChatTemplate::renderChatGlm3(std::span<const ChatMessage> messages,
                                  TokenizationInfo& info) const {
    tokenizer_.appendSpecial(info, ids_.gMask, true);
    tokenizer_.appendSpecial(info, ids_.sop, true);
    for (const ChatMessage& message : messages) {
        const int32_t role = message.role == ChatRole::System ? ids_.system
                             : message.role == ChatRole::User ? ids_.user
                                                              : ids_.assistant;
        tokenizer_.appendSpecial(info, role, true);
        tokenizer_.appendText(info, "\n");  // the role's metadata (empty) and "\n"
        tokenizer_.appendText(info, message.content);
    }
    tokenizer_.appendSpecial(info, ids_.assistant, true);
}

void ChatTemplate::renderLlama2(std::span<const ChatMessage> messages,
                                TokenizationInfo& info) const {
    // Meta's chat_completion: the system prompt goes into the first user turn; every completed
    // round is <s> "[INST] {user} [/INST] {answer} " </s>; the open round has no </s>.
    std::string system;
    if (!messages.empty() && messages.front().role == ChatRole::System) {
        system = "<<SYS>>\n" + messages.front().content + "\n<</SYS>>\n\n";
        messages = messages.subspan(1);
    }
    for (size_t i = 0; i < messages.size(); i += 2) {
        std::string text =
            "[INST] " + (i == 0 ? system : std::string()) + messages[i].content + " [/INST]";
        tokenizer_.appendSpecial(info, ids_.bos, true);
        if (i + 1 < messages.size()) {
            tokenizer_.appendText(info, text + " " + messages[i + 1].content + " ");
            tokenizer_.appendSpecial(info, ids_.eos, true);
        } else {
            tokenizer_.appendText(info, text);
        }
    }
}

void ChatTemplate::renderZephyr(std::span<const ChatMessage> messages,
                                TokenizationInfo& info) const {
    // TinyLlama-Chat's Jinja template: "<|role|>\n{content}</s>\n" per message, then
    // "<|assistant|>\n". Each message's text starts with the "\n" that followed the previous </s>.
    for (const int32_t id : tokenizer_.prefixIds())
        tokenizer_.appendSpecial(info, id, true);
    std::string newline;
    for (const ChatMessage& message : messages) {
        const char* role = message.role == ChatRole::System ? "<|system|>"
                           : message.role == ChatRole::User ? "<|user|>"
                                                            : "<|assistant|>";
        tokenizer_.appendText(info, newline + role + "\n" + message.content);
        tokenizer_.appendSpecial(info, ids_.eos, true);
        newline = "\n";
    }
    tokenizer_.appendText(info, "\n<|assistant|>\n");
}

void ChatTemplate::renderPlain(std::span<const ChatMessage> messages,
                               TokenizationInfo& info) const {
    // No roles, no markers: the model's prefix (BOS), then the messages' texts one after another,
    // a blank line apart, which a base model continues.
    for (const int32_t id : tokenizer_.prefixIds())
        tokenizer_.appendSpecial(info, id, true);
    std::string text;
    for (const ChatMessage& message : messages)
        text += (text.empty() ? "" : "\n\n") + message.content;
    tokenizer_.appendText(info, text);
}

}  // namespace inferlens
