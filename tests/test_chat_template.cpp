// Chat templates: the layouts of DESIGN.md §4 (ChatGLM2, ChatGLM3) and of LLaMA-2-chat and
// Zephyr/TinyLlama, rebuilt with the ids of the sentencepiece model trained for the tests
// (tests/data/tokenizer/test.model inside tiny synthetic ChatGLM and LLaMA models); how a template
// is chosen from a model; the model's own Jinja template (which of its text becomes special tokens,
// the fallback when it fails); where a turn ends (stop ids, the next turn's header); names; errors.

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <memory>
#include <optional>

#include "core/error.h"
#include "models/model_files.h"
#include "support/test_models.h"
#include "tokenizer/chat_template.h"
#include "tokenizer/context_fit.h"
#include "tokenizer/tokenizer.h"

using namespace inferlens;

Q_DECLARE_METATYPE(ChatTemplateKind)

namespace {

const QString kTestModel = QStringLiteral(INFERLENS_TEST_DATA "/tokenizer/test.model");
constexpr int32_t kPieces = 2000;  // pieces of test.model; ChatGLM's specials follow
constexpr int32_t kGMask = kPieces + 1, kSop = kPieces + 3, kSystem = kPieces + 5,
                  kUser = kPieces + 6, kAssistant = kPieces + 7, kObservation = kPieces + 8;
constexpr int32_t kBos = 1, kEos = 2;

// A synthetic Hugging Face model of `architecture` whose tokenizer.model is the trained test model.
std::string modelWithTestTokenizer(const QTemporaryDir& dir, const std::string& architecture) {
    SyntheticModelOptions options;
    options.architecture = architecture;
    options.layers = 1;
    options.hidden = 32;
    options.ffn = 64;
    options.vocab = architecture == "chatglm" ? kPieces + 9 : kPieces;
    options.format = ModelFormat::HuggingFace;
    const std::string path = test::writeSynthetic(dir, architecture, options);
    const QString tokenizerPath = QString::fromStdString(path) + "/tokenizer.model";
    if (!QFile::remove(tokenizerPath) || !QFile::copy(kTestModel, tokenizerPath))
        qFatal("cannot install %s", qPrintable(kTestModel));
    return path;
}

std::vector<ChatMessage> conversation(
    std::initializer_list<std::pair<ChatRole, const char*>> turns) {
    std::vector<ChatMessage> messages;
    for (const auto& [role, content] : turns)
        messages.push_back({role, content});
    return messages;
}

std::vector<int32_t> sorted(std::vector<int32_t> ids) {
    std::sort(ids.begin(), ids.end());
    return ids;
}

// ids = a, then b, ... (vectors and single ids)
struct Ids {
    std::vector<int32_t> ids;
    Ids& operator<<(int32_t id) {
        ids.push_back(id);
        return *this;
    }
    Ids& operator<<(const std::vector<int32_t>& more) {
        ids.insert(ids.end(), more.begin(), more.end());
        return *this;
    }
};

}  // namespace

class TestChatTemplate : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    std::optional<ModelFiles> glmFiles_, llamaFiles_;
    std::unique_ptr<Tokenizer> glm_, llama_;

    // The rendered text is covered by the tokens in order; a special's span holds its name, a
    // byte piece's its byte, any other piece's its text (less a dummy-prefix space).
    static void checkRendering(const RenderedPrompt& prompt, const Tokenizer& tokenizer) {
        QCOMPARE(prompt.info.ids(), prompt.ids);
        int64_t at = 0;
        for (const TokenInfo& token : prompt.info.tokens) {
            QCOMPARE(token.begin, at);
            const std::string surface =
                prompt.info.text.substr(size_t(token.begin), size_t(token.end - token.begin));
            if (token.special) {
                QCOMPARE(surface, tokenizer.piece(token.id));
            } else if (token.byteFallback) {
                QCOMPARE(surface, std::string(1, char(*tokenizer.byteValue(token.id))));
            } else {
                const std::string text = test::pieceAsText(token.piece);
                QVERIFY2(surface == text || (text.starts_with(' ') && surface == text.substr(1)),
                         token.piece.c_str());
            }
            at = token.end;
        }
        QCOMPARE(at, int64_t(prompt.info.text.size()));
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        glmFiles_ = openModelFiles(modelWithTestTokenizer(dir_, "chatglm"));
        llamaFiles_ = openModelFiles(modelWithTestTokenizer(dir_, "llama"));
        glm_ = std::make_unique<Tokenizer>(*glmFiles_);
        llama_ = std::make_unique<Tokenizer>(*llamaFiles_);
    }

    // DESIGN.md §4: "[Round 1]\n\n问：你好\n\n答：" after [gMASK] sop; with the real tokenizer
    // [64790, 64792, 790, 30951, 517, 30910, 30939, 30996, 13, 13, 54761, 31211, 39701, 13, 13,
    // 55437, 31211]. The same structure with the test model's pieces (its "Round" is one piece):
    void chatGlm2FirstRound() {
        const ChatTemplate chat(ChatTemplateKind::ChatGlm2, *glm_);
        const RenderedPrompt prompt = chat.render(conversation({{ChatRole::User, "你好"}}));
        // [gMASK] sop ▁[ Round ▁ 1 ] \n \n 问 ： 你好 \n \n 答 ：
        const std::vector<int32_t> expected{kGMask, kSop, 505,  666, 1115, 1143, 1349, 13,
                                            13,     1156, 1149, 402, 13,   13,   1166, 1149};
        QCOMPARE(prompt.ids, expected);
        QCOMPARE(prompt.info.text, std::string("[gMASK]sop[Round 1]\n\n问：你好\n\n答："));
        checkRendering(prompt, *glm_);
        QCOMPARE(chat.stopIds(), std::vector<int32_t>{kEos});
        QVERIFY(!chat.supportsSystemPrompt());
    }

    void chatGlm2RoundsAreNumberedFromOne() {
        const ChatTemplate chat(ChatTemplateKind::ChatGlm2, *glm_);
        const RenderedPrompt prompt =
            chat.render(conversation({{ChatRole::User, "你好"},
                                      {ChatRole::Assistant, "你好！"},
                                      {ChatRole::User, "今天天气怎么样？"}}));
        const std::string text =
            "[Round 1]\n\n问：你好\n\n答：你好！\n\n[Round 2]\n\n问：今天天气怎么样？\n\n答：";
        QCOMPARE(prompt.info.text, "[gMASK]sop" + text);
        QCOMPARE(prompt.ids, (Ids() << kGMask << kSop << glm_->encode(text, false)).ids);
        checkRendering(prompt, *glm_);
    }

    void chatGlm2RefusesASystemPrompt() {
        const ChatTemplate chat(ChatTemplateKind::ChatGlm2, *glm_);
        try {
            chat.render(conversation({{ChatRole::System, "Be brief."}, {ChatRole::User, "hi"}}));
            QFAIL("a system prompt was accepted");
        } catch (const Error& error) {
            QVERIFY2(QString(error.what()).contains("chatglm2") &&
                         QString(error.what()).contains("no system prompt"),
                     error.what());
        }
    }

    // DESIGN.md §4: "你好" as user → [64790, 64792, 64795, 30910, 13, 36474, 54591, 64796]: the
    // role token, "\n" encoded alone (▁ <0x0A>), the content encoded alone, <|assistant|>.
    void chatGlm3SingleMessage() {
        const ChatTemplate chat(ChatTemplateKind::ChatGlm3, *glm_);
        const RenderedPrompt prompt = chat.render(conversation({{ChatRole::User, "你好"}}));
        const std::vector<int32_t> expected{kGMask, kSop, kUser, 1115, 13, 1115, 402, kAssistant};
        QCOMPARE(prompt.ids, expected);
        QCOMPARE(prompt.info.text, std::string("[gMASK]sop<|user|>\n你好<|assistant|>"));
        checkRendering(prompt, *glm_);
        QCOMPARE(sorted(chat.stopIds()), (std::vector<int32_t>{kEos, kUser, kObservation}));
        QVERIFY(chat.supportsSystemPrompt());
        QVERIFY(prompt.stopStrings.empty());  // the next turn starts with <|user|>, a stop id
    }

    void chatGlm3SystemAndTurns() {
        const ChatTemplate chat(ChatTemplateKind::ChatGlm3, *glm_);
        const RenderedPrompt prompt =
            chat.render(conversation({{ChatRole::System, "你是一个助手。"},
                                      {ChatRole::User, "你好"},
                                      {ChatRole::Assistant, "你好！"},
                                      {ChatRole::User, "1 + 1 = ?"}}));
        const auto newline = glm_->encode("\n", false);
        const auto expected = Ids() << kGMask << kSop << kSystem << newline
                                    << glm_->encode("你是一个助手。", false) << kUser << newline
                                    << glm_->encode("你好", false) << kAssistant << newline
                                    << glm_->encode("你好！", false) << kUser << newline
                                    << glm_->encode("1 + 1 = ?", false) << kAssistant;
        QCOMPARE(prompt.ids, expected.ids);
        QCOMPARE(
            prompt.info.text,
            std::string("[gMASK]sop<|system|>\n你是一个助手。<|user|>\n你好<|assistant|>\n你好！"
                        "<|user|>\n1 + 1 = ?<|assistant|>"));
        checkRendering(prompt, *glm_);
    }

    // Meta's chat_completion: <s>[INST] <<SYS>>\n{system}\n<</SYS>>\n\n{user} [/INST] {answer} </s>
    // then <s>[INST] {user} [/INST] for the open round.
    void llama2Layout() {
        const ChatTemplate chat(ChatTemplateKind::Llama2, *llama_);
        const RenderedPrompt prompt =
            chat.render(conversation({{ChatRole::System, "Be brief."},
                                      {ChatRole::User, "Hello!"},
                                      {ChatRole::Assistant, "Hi."},
                                      {ChatRole::User, "Why is the sky blue?"}}));
        const std::string first = "[INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nHello! [/INST] Hi. ";
        const std::string second = "[INST] Why is the sky blue? [/INST]";
        QCOMPARE(prompt.info.text, "<s>" + first + "</s><s>" + second);
        const auto expected = Ids() << kBos << llama_->encode(first, false) << kEos << kBos
                                    << llama_->encode(second, false);
        QCOMPARE(prompt.ids, expected.ids);
        checkRendering(prompt, *llama_);
        // </s> ends an answer; the next round starts with <s>.
        QCOMPARE(chat.stopIds(), (std::vector<int32_t>{kEos, kBos}));
        QVERIFY(prompt.stopStrings.empty());
        // Without a system prompt there is no <<SYS>> block.
        QCOMPARE(chat.render(conversation({{ChatRole::User, "Hello!"}})).info.text,
                 std::string("<s>[INST] Hello! [/INST]"));
    }

    // TinyLlama-Chat: <|system|>\n{system}</s>\n<|user|>\n{user}</s>\n<|assistant|>\n, after <s>
    // when the vocabulary adds BOS.
    void zephyrLayout() {
        const ChatTemplate chat(ChatTemplateKind::Zephyr, *llama_);
        const RenderedPrompt prompt = chat.render(conversation({{ChatRole::System, "Be brief."},
                                                                {ChatRole::User, "Hello!"},
                                                                {ChatRole::Assistant, "Hi."},
                                                                {ChatRole::User, "And you?"}}));
        QCOMPARE(prompt.info.text,
                 std::string("<s><|system|>\nBe brief.</s>\n<|user|>\nHello!</s>\n<|assistant|>\n"
                             "Hi.</s>\n<|user|>\nAnd you?</s>\n<|assistant|>\n"));
        const auto expected = Ids() << kBos << llama_->encode("<|system|>\nBe brief.", false)
                                    << kEos << llama_->encode("\n<|user|>\nHello!", false) << kEos
                                    << llama_->encode("\n<|assistant|>\nHi.", false) << kEos
                                    << llama_->encode("\n<|user|>\nAnd you?", false) << kEos
                                    << llama_->encode("\n<|assistant|>\n", false);
        QCOMPARE(prompt.ids, expected.ids);
        checkRendering(prompt, *llama_);
        QCOMPARE(chat.stopIds(), std::vector<int32_t>{kEos});
        // The next turn starts with "<|user|>" written as text (TinyLlama has no such token).
        QCOMPARE(prompt.stopStrings, std::vector<std::string>{"<|user|>"});
    }

    // The reverse prompt of chatglm2 (issue 23): the bundled model ran on into a made-up
    // "[Round 2]\n\n问：" inside its answers, in round 2 as well. The next round's header, up to
    // its number, is the stop string.
    void chatGlm2StopsWhereItsNextRoundWouldBegin() {
        const ChatTemplate chat(ChatTemplateKind::ChatGlm2, *glm_);
        QCOMPARE(chat.render(conversation({{ChatRole::User, "你好"}})).stopStrings,
                 std::vector<std::string>{"[Round"});
        QCOMPARE(chat.render(conversation({{ChatRole::User, "你好"},
                                           {ChatRole::Assistant, "你好！"},
                                           {ChatRole::User, "再见"}}))
                     .stopStrings,
                 std::vector<std::string>{"[Round"});
        QCOMPARE(chat.stopIds(), std::vector<int32_t>{kEos});
    }

    // --template auto (the default): a model that ships a Jinja template is rendered with it.
    // The template's own special-token names become specials; what a person typed never does;
    // the text between two specials is encoded as one text, whoever wrote it.
    void autoRendersTheModelsOwnJinjaTemplate() {
        ModelFiles files = *llamaFiles_;
        files.chatTemplate =
            "{{ bos_token }}{% for m in messages %}[{{ m.role }}] {{ m.content }}{{ eos_token }}"
            "{% endfor %}{% if add_generation_prompt %}[assistant]{% endif %}";
        const ChatTemplateChoice choice = chooseChatTemplate(files, "");
        QCOMPARE(choice.jinja, files.chatTemplate);
        QCOMPARE(choice.kind, ChatTemplateKind::Llama2);
        QCOMPARE(chooseChatTemplate(files, "auto").jinja, files.chatTemplate);
        QVERIFY(chooseChatTemplate(files, "zephyr").jinja.empty());

        const ChatTemplate chat(choice, *llama_);
        QVERIFY(chat.usesJinja());
        QVERIFY(QString::fromStdString(chat.description()).contains("Jinja"));
        const RenderedPrompt prompt =
            chat.render(conversation({{ChatRole::User, "hi </s><s> there"}}));
        QCOMPARE(prompt.info.text, std::string("<s>[user] hi </s><s> there</s>[assistant]"));
        const auto expected = Ids() << kBos << llama_->encode("[user] hi </s><s> there", false)
                                    << kEos << llama_->encode("[assistant]", false);
        QCOMPARE(prompt.ids, expected.ids);
        checkRendering(prompt, *llama_);
        QVERIFY(prompt.warning.empty());
        // </s> follows an answer; "[user]", text, starts the next turn.
        QCOMPARE(chat.stopIds(), std::vector<int32_t>{kEos});
        QCOMPARE(prompt.stopStrings, std::vector<std::string>{"[user]"});
    }

    // A ChatGLM3-style Jinja template on the ChatGLM vocabulary: its role tokens are specials,
    // <|user|> after an answer both ends the turn and starts the next, and a user who types
    // "<|user|>" gets text.
    void jinjaRoleTokensBecomeSpecialsAndStopTheTurn() {
        ModelFiles files = *glmFiles_;
        files.chatTemplate =
            "[gMASK]sop{% for m in messages %}<|{{ m.role }}|>\n{{ m.content }}{% endfor %}"
            "{% if add_generation_prompt %}<|assistant|>{% endif %}";
        const ChatTemplate chat(chooseChatTemplate(files, ""), *glm_);
        const RenderedPrompt prompt = chat.render(conversation({{ChatRole::User, "<|user|>你好"}}));
        const auto expected = Ids() << kGMask << kSop << kUser
                                    << glm_->encode("\n<|user|>你好", false) << kAssistant;
        QCOMPARE(prompt.ids, expected.ids);
        checkRendering(prompt, *glm_);
        // The vocabulary's end-of-generation ids, and <|user|>.
        std::vector<int32_t> expectedStops = glm_->eosIds();
        expectedStops.push_back(kUser);
        QCOMPARE(sorted(chat.stopIds()), sorted(expectedStops));
        QVERIFY(prompt.stopStrings.empty());
    }

    // The model's template fails on a conversation (raise_exception): the built-in layout its
    // hints name renders it instead, and the prompt says what failed, where.
    void aJinjaTemplateThatFailsFallsBackToTheBuiltInLayout() {
        ModelFiles files = *llamaFiles_;
        files.chatTemplate =
            "{% if messages[0].role == 'system' %}\n"
            "  {{ raise_exception('System role not supported') }}\n"
            "{% endif %}{% for m in messages %}[INST] {{ m.content }} [/INST]{% endfor %}";
        const ChatTemplate chat(chooseChatTemplate(files, ""), *llama_);
        QVERIFY(chat.usesJinja());
        QCOMPARE(chat.render(conversation({{ChatRole::User, "Hello!"}})).info.text,
                 std::string("[INST] Hello! [/INST]"));
        const RenderedPrompt prompt = chat.render(
            conversation({{ChatRole::System, "Be brief."}, {ChatRole::User, "Hello!"}}));
        QCOMPARE(prompt.info.text,
                 std::string("<s>[INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nHello! [/INST]"));
        const QString warning = QString::fromStdString(prompt.warning);
        QVERIFY2(warning.contains("line 2, column 6") &&
                     warning.contains("System role not supported") &&
                     warning.contains("built-in llama2"),
                 qPrintable(warning));
    }

    // A template that does not parse: the built-in layout is used, and description() names the
    // problem; without a fallback the error is thrown.
    void aJinjaTemplateThatDoesNotParse() {
        ModelFiles files = *llamaFiles_;
        files.chatTemplate = "{% for m in messages %}\n{{ m.content }}";
        const ChatTemplate chat(chooseChatTemplate(files, ""), *llama_);
        QVERIFY(!chat.usesJinja());
        QCOMPARE(chat.kind(), ChatTemplateKind::Llama2);
        const QString description = QString::fromStdString(chat.description());
        QVERIFY2(description.startsWith("llama2") && description.contains("line 1, column 4") &&
                     description.contains("not closed"),
                 qPrintable(description));
        QVERIFY2(QString::fromStdString(describeChatTemplate(files)).contains("line 1, column 4"),
                 describeChatTemplate(files).c_str());
    }

    void zephyrWithoutBosWhenTheVocabularyAddsNone() {
        ModelFiles files = *llamaFiles_;
        files.vocabulary->addBos = false;
        const Tokenizer tokenizer(files);
        const ChatTemplate chat(ChatTemplateKind::Zephyr, tokenizer);
        const RenderedPrompt prompt = chat.render(conversation({{ChatRole::User, "Hello!"}}));
        QCOMPARE(prompt.info.text, std::string("<|user|>\nHello!</s>\n<|assistant|>\n"));
        QVERIFY(prompt.ids.front() != kBos);
    }

    // A user who types a special token's name gets text, never the token.
    void aConversationLongerThanTheContextDropsItsOldestRounds() {
        const ChatTemplate chat(ChatTemplateKind::ChatGlm3, *glm_);
        std::vector<ChatMessage> messages{{ChatRole::System, "Be brief."}};
        for (int round = 0; round < 6; ++round) {
            messages.push_back({ChatRole::User, "question number " + std::to_string(round)});
            messages.push_back({ChatRole::Assistant, "answer number " + std::to_string(round)});
        }
        messages.push_back({ChatRole::User, "the last question"});
        const auto whole = int64_t(chat.render(messages).ids.size());
        // Fits: nothing dropped, the same ids as a plain render.
        const FittedPrompt all = renderToFit(chat, messages, whole + 10, 10);
        QCOMPARE(all.droppedRounds, 0);
        QCOMPARE(all.prompt.ids, chat.render(messages).ids);
        // One token short: the oldest round goes, the system message and the last question stay.
        const FittedPrompt fitted = renderToFit(chat, messages, whole + 9, 10);
        QVERIFY(fitted.droppedRounds >= 1);
        QVERIFY(int64_t(fitted.prompt.ids.size()) + 10 <= whole + 9);
        const std::string text = fitted.prompt.info.text;
        QVERIFY(text.find("Be brief.") != std::string::npos);
        QVERIFY(text.find("the last question") != std::string::npos);
        QVERIFY(text.find("question number 0") == std::string::npos);
        QVERIFY(text.find("question number 5") != std::string::npos);
        std::vector<ChatMessage> expected{messages[0]};
        expected.insert(expected.end(), messages.begin() + 1 + 2 * fitted.droppedRounds,
                        messages.end());
        QCOMPARE(fitted.prompt.ids, chat.render(expected).ids);
        // Too small even for the last question: an error that says so.
        try {
            renderToFit(chat, messages, 12, 10);
            QFAIL("a prompt that cannot fit was accepted");
        } catch (const Error& error) {
            QVERIFY2(QString(error.what()).contains("context holds 12"), error.what());
        }
    }

    void specialNamesInMessagesStayText() {
        for (const ChatTemplateKind kind :
             {ChatTemplateKind::ChatGlm2, ChatTemplateKind::ChatGlm3}) {
            const RenderedPrompt prompt =
                ChatTemplate(kind, *glm_)
                    .render(conversation({{ChatRole::User, "</s><|user|>[gMASK]"}}));
            int specials = 0;
            for (const TokenInfo& token : prompt.info.tokens)
                specials += token.special;
            QCOMPARE(specials, kind == ChatTemplateKind::ChatGlm2 ? 2 : 4);
        }
        const RenderedPrompt prompt = ChatTemplate(ChatTemplateKind::Llama2, *llama_)
                                          .render(conversation({{ChatRole::User, "</s>[/INST]"}}));
        QCOMPARE(std::count(prompt.ids.begin(), prompt.ids.end(), kEos), 0);
    }

    void conversationsOfTheWrongShapeAreRefused_data() {
        QTest::addColumn<int>("shape");
        QTest::newRow("empty") << 0;
        QTest::newRow("ends with the assistant") << 1;
        QTest::newRow("two user turns") << 2;
        QTest::newRow("system in the middle") << 3;
        QTest::newRow("only a system message") << 4;
    }
    void conversationsOfTheWrongShapeAreRefused() {
        QFETCH(int, shape);
        const std::vector<std::vector<ChatMessage>> shapes{
            {},
            conversation({{ChatRole::User, "a"}, {ChatRole::Assistant, "b"}}),
            conversation({{ChatRole::User, "a"}, {ChatRole::User, "b"}, {ChatRole::User, "c"}}),
            conversation({{ChatRole::User, "a"}, {ChatRole::System, "b"}, {ChatRole::User, "c"}}),
            conversation({{ChatRole::System, "a"}}),
        };
        for (const ChatTemplateKind kind : {ChatTemplateKind::ChatGlm3, ChatTemplateKind::Llama2}) {
            const Tokenizer& tokenizer = kind == ChatTemplateKind::ChatGlm3 ? *glm_ : *llama_;
            QVERIFY_THROWS_EXCEPTION(Error,
                                     ChatTemplate(kind, tokenizer).render(shapes[size_t(shape)]));
        }
    }

    void detection_data() {
        QTest::addColumn<QString>("architecture");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("jinja");
        QTest::addColumn<ChatTemplateKind>("expected");
        using K = ChatTemplateKind;
        // Templates as the models ship them (shortened where the rest does not matter).
        const QString glm3 =
            "{% for message in messages %}{% if loop.first %}[gMASK]sop<|{{ message['role'] }}|>\n "
            "{{ message['content'] }}{% else %}<|{{ message['role'] }}|>\n {{ message['content'] "
            "}}{% endif %}{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}";
        const QString glm2 = "{% for message in messages %}[Round {{ loop.index }}]\n\n问：...";
        const QString llama2 = "{{ bos_token + '[INST] ' + content.strip() + ' [/INST]' }}";
        const QString zephyr =
            "{% for message in messages %}\n{% if message['role'] == 'user' %}\n{{ '<|user|>\n' + "
            "message['content'] + eos_token }}\n{% endif %}{% endfor %}";
        QTest::newRow("chatglm3 template") << "chatglm"
                                           << "" << glm3 << K::ChatGlm3;
        QTest::newRow("chatglm2 template") << "chatglm"
                                           << "chatglm3" << glm2 << K::ChatGlm2;
        QTest::newRow("llama2 template") << "llama"
                                         << "" << llama2 << K::Llama2;
        QTest::newRow("zephyr template") << "llama"
                                         << "llama-2" << zephyr << K::Zephyr;
        QTest::newRow("chatglm3 name") << "chatglm"
                                       << "THUDM/chatglm3-6b"
                                       << "" << K::ChatGlm3;
        QTest::newRow("chatglm2 name") << "chatglm"
                                       << "ChatGLM2-6B"
                                       << "" << K::ChatGlm2;
        QTest::newRow("tinyllama name") << "llama"
                                        << "TinyLlama/TinyLlama-1.1B-Chat-v1.0"
                                        << "" << K::Zephyr;
        QTest::newRow("zephyr name") << "llama"
                                     << "HuggingFaceH4/zephyr-7b-beta"
                                     << "" << K::Zephyr;
        QTest::newRow("llama-2 name") << "llama"
                                      << "meta-llama/Llama-2-7b-chat-hf"
                                      << "" << K::Llama2;
        QTest::newRow("chatglm fallback") << "chatglm"
                                          << "my-model"
                                          << "" << K::ChatGlm2;
        QTest::newRow("llama fallback") << "llama"
                                        << ""
                                        << "" << K::Llama2;
        // Hints of the other family are ignored.
        QTest::newRow("llama template on chatglm") << "chatglm"
                                                   << "" << llama2 << K::ChatGlm2;
        QTest::newRow("chatglm3 name on llama") << "llama"
                                                << "chatglm3-6b"
                                                << "" << K::Llama2;
        QTest::newRow("chatglm3 template on llama, zephyr name")
            << "llama"
            << "tinyllama" << glm3 << K::Zephyr;
        // The template outranks the name.
        QTest::newRow("template over name") << "llama"
                                            << "TinyLlama-Chat" << llama2 << K::Llama2;
    }
    void detection() {
        QFETCH(QString, architecture);
        QFETCH(QString, name);
        QFETCH(QString, jinja);
        QFETCH(ChatTemplateKind, expected);
        const ChatTemplateChoice choice =
            detectChatTemplate(architecture.toStdString(), name.toStdString(), jinja.toStdString());
        QCOMPARE(chatTemplateName(choice.kind), chatTemplateName(expected));
        QVERIFY(!choice.reason.empty());
    }

    void detectionFromModelFiles() {
        ModelFiles files = *glmFiles_;
        QCOMPARE(detectChatTemplate(files).kind, ChatTemplateKind::ChatGlm2);
        files.modelName = "THUDM/chatglm3-6b";
        QCOMPARE(detectChatTemplate(files).kind, ChatTemplateKind::ChatGlm3);
        files.chatTemplate = "[Round {{ i }}]";
        const ChatTemplateChoice choice = detectChatTemplate(files);
        QCOMPARE(choice.kind, ChatTemplateKind::ChatGlm2);
        QVERIFY2(QString::fromStdString(choice.reason).contains("[Round"), choice.reason.c_str());
        QCOMPARE(chooseChatTemplate(files, "chatglm3").kind, ChatTemplateKind::ChatGlm3);
        QCOMPARE(chooseChatTemplate(*llamaFiles_, "").kind, ChatTemplateKind::Llama2);
        // An architecture no layout belongs to, without a template: plain text.
        QCOMPARE(detectChatTemplate("gemma3", "", "").kind, ChatTemplateKind::Plain);
    }

    // plain: a base model without a template (Gemma 3 270M) continues the conversation's text:
    // the prefix, then the messages a blank line apart, no roles, no markers.
    void plainLayout() {
        const ChatTemplate chat(ChatTemplateKind::Plain, *llama_);
        const RenderedPrompt prompt =
            chat.render(conversation({{ChatRole::System, "A story."},
                                      {ChatRole::User, "Once upon a time"},
                                      {ChatRole::Assistant, " there was a king."},
                                      {ChatRole::User, "He had <|user|> three sons"}}));
        const std::string text =
            "A story.\n\nOnce upon a time\n\n there was a king.\n\nHe had "
            "<|user|> three sons";
        QCOMPARE(prompt.info.text, "<s>" + text);
        const auto expected = Ids() << kBos << llama_->encode(text, false);
        QCOMPARE(prompt.ids, expected.ids);
        checkRendering(prompt, *llama_);
        QCOMPARE(chat.stopIds(), std::vector<int32_t>{kEos});
        QVERIFY(prompt.stopStrings.empty());
        QCOMPARE(chatTemplateByName("plain"), ChatTemplateKind::Plain);
    }

    void forcedNames() {
        for (const ChatTemplateKind kind :
             {ChatTemplateKind::ChatGlm2, ChatTemplateKind::ChatGlm3, ChatTemplateKind::Llama2,
              ChatTemplateKind::Zephyr, ChatTemplateKind::Plain})
            QCOMPARE(chatTemplateByName(chatTemplateName(kind)), kind);
        QCOMPARE(chatTemplateName(ChatTemplateKind::Llama2), std::string_view("llama2"));
        try {
            chatTemplateByName("vicuna");
            QFAIL("an unknown template name was accepted");
        } catch (const Error& error) {
            QVERIFY2(
                QString(error.what()).contains("'vicuna'") &&
                    QString(error.what()).contains("chatglm2, chatglm3, llama2, zephyr, plain"),
                error.what());
        }
        QVERIFY_THROWS_EXCEPTION(Error, chooseChatTemplate(*glmFiles_, "ChatGLM3"));  // exact names
    }

    // Forcing a layout onto a model that lacks its special tokens fails when the template is
    // made, naming the model and the token.
    void forcingAChatGlmLayoutOntoLlamaFails() {
        for (const ChatTemplateKind kind :
             {ChatTemplateKind::ChatGlm2, ChatTemplateKind::ChatGlm3}) {
            try {
                ChatTemplate chat(kind, *llama_);
                QFAIL("a ChatGLM layout was made for a LLaMA tokenizer");
            } catch (const Error& error) {
                const QString message = error.what();
                QVERIFY2(message.startsWith(QString::fromStdString(llamaFiles_->path)) &&
                             message.contains("no special token") &&
                             message.contains(QString::fromUtf8(chatTemplateName(kind))),
                         error.what());
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestChatTemplate)
#include "test_chat_template.moc"
