// Grammar-constrained decoding. Bad grammars are refused with the line and the reason. The
// recognizer agrees with a regular expression for the same language on every string of up to five
// characters (whole sentences, and prefixes that can still be completed); UTF-8 is checked a byte
// at a time, an impossible character dropped at its first byte, overlong forms refused. The token
// mask agrees with a brute-force check of every token of a small vocabulary after random prefixes,
// and lets the end token through exactly when the text is a whole sentence; a grammar no token can
// continue is an error. 200 seeded generations of a random model under a JSON grammar all parse as
// JSON with the fields the grammar promises.

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <optional>
#include <random>
#include <regex>
#include <set>

#include "core/error.h"
#include "generator.h"
#include "grammar/grammar.h"
#include "grammar/grammar_matcher.h"
#include "grammar/grammar_stage.h"
#include "grammar/json_schema.h"
#include "sampling/sampler.h"
#include "sampling/sampler_chooser.h"
#include "support/test_models.h"
#include "tokenizer/tokenizer.h"

using namespace inferlens;

namespace {

// A list of items ending with a full stop, and the same language as a regular expression.
// (Plain string literals: moc does not read raw ones.)
constexpr const char* kListGrammar =
    "root ::= (item \",\")* item \".\"   # a comment\n"
    "item ::= \"a\" | \"b\" [c-d]* | \"ab\"\n";
const std::regex kListLanguage("((a|b[c-d]*|ab),)*(a|b[c-d]*|ab)\\.");
const std::string kAlphabet = "abcd,.";

bool inLanguage(const std::string& text) {
    return std::regex_match(text, kListLanguage);
}

// Some completion of at most three characters makes a sentence (every viable prefix of this
// language has one of at most two).
bool viable(const std::string& text) {
    if (inLanguage(text))
        return true;
    std::vector<std::string> frontier{text};
    for (int added = 0; added < 3; ++added) {
        std::vector<std::string> next;
        for (const std::string& t : frontier)
            for (char c : kAlphabet) {
                if (inLanguage(t + c))
                    return true;
                next.push_back(t + c);
            }
        frontier = std::move(next);
    }
    return false;
}

void allStrings(size_t length, std::string& current, std::vector<std::string>& out) {
    out.push_back(current);
    if (current.size() == length)
        return;
    for (char c : kAlphabet) {
        current.push_back(c);
        allStrings(length, current, out);
        current.pop_back();
    }
}

// A random (synthetic) model generating under a grammar: what the generation tests share.
class RandomModel {
  public:
    RandomModel() {
        SyntheticModelOptions options;
        options.architecture = "chatglm";
        options.layers = 2;
        options.vocab = 330;
        model_.emplace(Model::open(test::writeSynthetic(dir_, "glm.gguf", options)));
        tokenizer_.emplace(model_->files());
        texts_ = std::make_shared<const std::vector<std::string>>(tokenizer_->textsOfAll());
        stops_ = tokenizer_->eosIds();
        GeneratorOptions generatorOptions;
        generatorOptions.threads = 1;
        generatorOptions.contextSize = 256;
        generator_.emplace(*model_, generatorOptions);
        prompt_ = tokenizer_->encode("the");
    }

    struct Output {
        QByteArray text;  // the end token left out
        FinishReason reason;
    };
    // One seeded generation of at most `budget` tokens; an Error names what was generated before
    // it.
    Output generate(const std::string& grammar, uint64_t seed, int64_t budget) {
        SamplingParams params = test::neutralSampling(seed);
        params.grammar = grammar;
        Sampler sampler(params, tokenizer_->tokenCount());
        sampler.setTokenTexts(texts_);
        sampler.setStopIds(stops_);
        SamplerChooser chooser(sampler);
        generator_->reset();
        try {
            const Generation result =
                generator_->generate(prompt_, budget, chooser, {stops_.begin(), stops_.end()});
            std::vector<int32_t> tokens = result.tokens;
            if (result.reason == FinishReason::EndOfSequence)
                tokens.pop_back();
            return {QByteArray::fromStdString(tokenizer_->decode(tokens)), result.reason};
        } catch (const Error& error) {
            const std::vector<int32_t>& history = generator_->history();
            throw Error(std::string(error.what()) + " after '" +
                        tokenizer_->decode(std::vector<int32_t>(
                            history.begin() + ptrdiff_t(prompt_.size()), history.end())) +
                        "'");
        }
    }

  private:
    QTemporaryDir dir_;
    std::optional<Model> model_;
    std::optional<Tokenizer> tokenizer_;
    std::shared_ptr<const std::vector<std::string>> texts_;
    std::vector<int32_t> stops_;
    std::optional<Generator> generator_;
    std::vector<int32_t> prompt_;
};

}  // namespace

class TestGrammar : public QObject {
    Q_OBJECT

  private slots:
    void badGrammarsAreRefused_data() {
        QTest::addColumn<QString>("grammar");
        QTest::addColumn<QString>("message");
        QTest::newRow("undefined rule") << "root ::= item"
                                        << "'item' is used (line 1)";
        QTest::newRow("no root") << "start ::= \"a\""
                                 << "no 'root' rule";
        QTest::newRow("left recursion") << "root ::= list\nlist ::= list \",\" \"a\" | \"a\""
                                        << "left-recursive";
        QTest::newRow("nullable left recursion") << "root ::= \"x\"? root \"a\" | \"b\""
                                                 << "left-recursive";
        QTest::newRow("open literal") << "root ::= \"abc"
                                      << "not closed with \"";
        QTest::newRow("open class") << "root ::= [abc"
                                    << "not closed with ]";
        QTest::newRow("open group") << "root ::= (\"a\" | \"b\""
                                    << "not closed with )";
        QTest::newRow("bad escape") << "root ::= \"\\q\""
                                    << "unknown escape";
        QTest::newRow("twice") << "root ::= \"a\"\nroot ::= \"b\""
                               << "defined twice";
        QTest::newRow("backwards range") << "root ::= [z-a]"
                                         << "backwards";
        QTest::newRow("stray character, line 3") << "root ::= x\n\nx ::= \"a\" @"
                                                 << "line 3";
        QTest::newRow("no ::=") << "root = \"a\""
                                << "expected ::=";
    }

    void badGrammarsAreRefused() {
        QFETCH(QString, grammar);
        QFETCH(QString, message);
        try {
            compileGrammar(grammar.toStdString());
            QFAIL("no error");
        } catch (const Error& error) {
            QVERIFY2(QString::fromUtf8(error.what()).contains(message), error.what());
        }
    }

    void theRecognizerAgreesWithARegularExpression() {
        const Grammar grammar = compileGrammar(kListGrammar);
        const GrammarMatcher matcher(grammar);
        std::vector<std::string> strings;
        std::string current;
        allStrings(5, current, strings);
        int sentences = 0, prefixes = 0;
        for (const std::string& text : strings) {
            GrammarMatcher::State state = matcher.initial();
            const bool alive = matcher.advance(state, text);
            if (alive != viable(text))
                QFAIL(qPrintable(QString("'%1': recognizer says %2").arg(text.c_str()).arg(alive)));
            if (alive) {
                ++prefixes;
                QCOMPARE(GrammarMatcher::accepts(state), inLanguage(text));
                sentences += inLanguage(text) ? 1 : 0;
            }
        }
        qInfo("%zu strings: %d viable prefixes, %d sentences", strings.size(), prefixes, sentences);
        QVERIFY(sentences > 20 && prefixes > 100);
    }

    void utf8IsCheckedAByteAtATime() {
        const Grammar grammar = compileGrammar("root ::= \"你\" [一-龥]+ \"。\" | \"{\"");
        const GrammarMatcher matcher(grammar);
        const auto run = [&](const std::string& text, bool& accepts) {
            GrammarMatcher::State state = matcher.initial();
            const bool alive = matcher.advance(state, text);
            accepts = alive && GrammarMatcher::accepts(state);
            return alive;
        };
        bool accepts = false;
        QVERIFY(run("你好。", accepts) && accepts);
        QVERIFY(run("你好", accepts) && !accepts);
        QVERIFY(run("你\xe5", accepts) && !accepts);  // the first byte of 好 (E5 A5 BD)
        QVERIFY(!run("你\xc3", accepts));             // é's lead byte: no CJK character starts so
        QVERIFY(!run("你a", accepts));
        QVERIFY(run("{", accepts) && accepts);
        QVERIFY(!run("\xe0\x81\xbb", accepts));  // an overlong "{"
        QVERIFY(!run("你\xf0\x82", accepts));    // no 4-byte form starts F0 82 (overlong)
        QVERIFY(!run("你\xf4\x90", accepts));    // past U+10FFFF
        QVERIFY(!run("你\xed\xa0", accepts));    // a surrogate
        QVERIFY(!run("\xbb", accepts));          // a stray continuation byte
    }

    void theMaskAgreesWithBruteForce() {
        // A small vocabulary: every one- and two-character string, a few longer ones, a special
        // standing for nothing (id 0) and the end token (id 1).
        std::vector<std::string> texts{"", ""};
        for (char c : kAlphabet)
            texts.push_back(std::string(1, c));
        for (char c : kAlphabet)
            for (char d : kAlphabet)
                texts.push_back(std::string{c, d});
        for (const char* longer : {"abc", "a,a", "bcd.", "ab,b", "dd"})
            texts.push_back(longer);
        const std::vector<int32_t> stops{1};
        const GrammarStage stage(kListGrammar);
        std::mt19937 random(5);
        int checked = 0;
        for (int round = 0; round < 40; ++round) {
            // A random grammatical prefix of up to four tokens, chosen among the allowed ones.
            std::vector<int32_t> history{0, 0};  // a two-token prompt
            std::string text;
            for (int t = 0, n = round % 5; t < n; ++t) {
                const std::vector<uint8_t> allowed =
                    stage.allowedTokens({history, 2, stops, &texts});
                std::vector<int32_t> choices;
                for (size_t id = 2; id < texts.size(); ++id)
                    if (allowed[id] && text.size() + texts[id].size() <= 4)
                        choices.push_back(int32_t(id));
                if (choices.empty())
                    break;
                const int32_t id = choices[random() % choices.size()];
                history.push_back(id);
                text += texts[size_t(id)];
            }
            const std::vector<uint8_t> allowed = stage.allowedTokens({history, 2, stops, &texts});
            QCOMPARE(bool(allowed[0]), false);  // no text: never
            QCOMPARE(bool(allowed[1]), inLanguage(text));
            for (size_t id = 2; id < texts.size(); ++id) {
                if (bool(allowed[id]) != viable(text + texts[id]))
                    QFAIL(qPrintable(
                        QString("after '%1', token '%2'").arg(text.c_str(), texts[id].c_str())));
                ++checked;
            }
        }
        QVERIFY(checked > 1000);
    }

    void theMaskAgreesWithBruteForceInsideAString() {
        // A string-like language: inside the brackets a, b and space loop back to the same state,
        // so whole subtrees of the vocabulary are decided at once; with budgets of 1 and 2 tokens
        // left, a token must also leave room to close (one byte per token).
        const GrammarStage stage("root ::= \"<\" [ab ]* \">\"");
        const auto complete = [](const std::string& t) {
            return t.size() >= 2 && t.front() == '<' && t.back() == '>' &&
                   t.find_first_not_of("ab ", 1) == t.size() - 1;
        };
        const auto open = [](const std::string& t) {
            return !t.empty() && t.front() == '<' &&
                   t.find_first_not_of("ab ", 1) == std::string::npos;
        };
        const auto distance = [&](const std::string& t) {  // -1: not a prefix
            return complete(t) ? 0 : open(t) ? 1 : t.empty() ? 2 : -1;
        };
        std::vector<std::string> texts{"", ""};  // a special standing for nothing, the end token
        const std::string loop = "ab ";
        std::string current;
        std::vector<std::string> pure;
        const std::function<void()> strings = [&] {
            if (!current.empty())
                pure.push_back(current);
            if (current.size() == 4)
                return;
            for (char c : loop) {
                current.push_back(c);
                strings();
                current.pop_back();
            }
        };
        strings();
        texts.insert(texts.end(), pure.begin(), pure.end());
        for (const char* other : {"<", ">", "<a", "b>", "a>", "> ", "<<", "ab>", " <", "<ab b"})
            texts.push_back(other);
        const std::vector<int32_t> stops{1};
        std::mt19937 random(9);
        int checked = 0, allowedSeen = 0;
        for (int round = 0; round < 60; ++round) {
            std::vector<int32_t> history{0};  // a one-token prompt
            std::string text;
            for (int t = 0, n = round % 4; t < n; ++t) {
                const std::vector<uint8_t> allowed =
                    stage.allowedTokens({history, 1, stops, &texts});
                std::vector<int32_t> choices;
                for (size_t id = 2; id < texts.size(); ++id)
                    if (allowed[id] && !complete(text + texts[id]))
                        choices.push_back(int32_t(id));
                if (choices.empty())
                    break;
                history.push_back(choices[random() % choices.size()]);
                text += texts[size_t(history.back())];
            }
            for (const int64_t left : {int64_t(-1), int64_t(1), int64_t(2)}) {
                SamplerContext context{history, 1, stops, &texts};
                context.maxNewTokens = left < 0 ? -1 : context.newTokens() + left;
                const std::vector<uint8_t> allowed = stage.allowedTokens(context);
                for (size_t id = 2; id < texts.size(); ++id) {
                    const int d = distance(text + texts[id]);
                    const bool expected = d >= 0 && (left < 0 || d <= left - 1);
                    if (bool(allowed[id]) != expected)
                        QFAIL(qPrintable(QString("after '%1', token '%2', %3 left")
                                             .arg(text.c_str(), texts[id].c_str())
                                             .arg(left)));
                    allowedSeen += expected ? 1 : 0;
                    ++checked;
                }
            }
        }
        QVERIFY(checked > 10000);
        QVERIFY(allowedSeen > 1000);
    }

    void aGrammarNoTokenCanFollowIsAnError() {
        const std::vector<std::string> texts{"a", "b", "c"};
        CandidateSet candidates(std::vector<float>(3, 0.0f));
        const GrammarStage stage("root ::= \"x\"");
        try {
            stage.apply(candidates, {{}, 0, {}, &texts});
            QFAIL("no error");
        } catch (const Error& error) {
            QVERIFY2(QString(error.what()).contains("grammar stage masks every token"),
                     error.what());
        }
        // A history that left the grammar is reported too.
        const std::vector<int32_t> history{2};
        QVERIFY_THROWS_EXCEPTION(Error, stage.allowedTokens({history, 0, {}, &texts}));
    }

    void theOutputClosesBeforeTheBudgetEnds() {
        // Unbounded strings and lists: a random model would rarely close them by chance; with the
        // budget known, every output is a whole sentence however few tokens it may use.
        const std::string grammar =
            "root ::= \"{\\\"tags\\\":[\" (str (\",\" str)*)? \"]}\"\n"
            "str  ::= \"\\\"\" [a-z]* \"\\\"\"\n";
        RandomModel model;
        int cutByTheBudget = 0;
        for (uint64_t seed = 0; seed < 100; ++seed) {
            const auto [json, reason] = model.generate(grammar, seed, 12 + int64_t(seed % 30));
            cutByTheBudget += reason == FinishReason::MaxTokens ? 1 : 0;
            QJsonParseError error;
            const QJsonDocument document = QJsonDocument::fromJson(json, &error);
            QVERIFY2(error.error == QJsonParseError::NoError && document.object()["tags"].isArray(),
                     json.constData());
        }
        qInfo("%d of 100 outputs closed as the budget ran out", cutByTheBudget);
        QVERIFY(cutByTheBudget > 10);
    }

    void randomModelOutputUnderAJsonSchemaParsesAndValidates() {
        const char* schema = R"json({"type": "object",
            "properties": {
                "name": {"type": "string", "maxLength": 6},
                "age": {"type": "integer"},
                "tags": {"type": "array", "items": {"enum": ["poet", "monk", 3]},
                         "minItems": 1, "maxItems": 3},
                "alive": {"type": "boolean"},
                "home": {"type": "object", "properties": {"city": {"type": "string"}}},
                "score": {"type": ["number", "null"]}},
            "required": ["name", "age", "id"]})json";
        const std::string grammar = grammarFromJsonSchema(schema);
        RandomModel model;
        for (uint64_t seed = 0; seed < 200; ++seed) {
            const QByteArray json = model.generate(grammar, seed, 150).text;
            QJsonParseError error;
            const QJsonObject o = QJsonDocument::fromJson(json, &error).object();
            QVERIFY2(error.error == QJsonParseError::NoError, json.constData());
            // The schema, checked here by hand.
            QVERIFY2(o["name"].isString() && o["name"].toString().toUcs4().size() <= 6,
                     json.constData());
            QVERIFY(o["age"].isDouble() && o["age"].toDouble() == std::floor(o["age"].toDouble()));
            const QJsonArray tags = o["tags"].toArray();
            QVERIFY(tags.size() >= 1 && tags.size() <= 3);
            for (const QJsonValue& tag : tags)
                QVERIFY(tag == QJsonValue("poet") || tag == QJsonValue("monk") ||
                        tag == QJsonValue(3));
            QVERIFY(o["alive"].isBool());
            QVERIFY(o["home"].isObject() && o["home"].toObject()["city"].isString());
            QVERIFY(o["score"].isDouble() || o["score"].isNull());
            QVERIFY(o.contains("id"));  // required without a schema: any value
        }
    }

    void unsupportedSchemasAreRefused() {
        for (const char* schema :
             {R"({"$ref": "#/definitions/x"})", R"({"allOf": []})", R"({"type": "tuple"})",
              R"({"enum": []})", R"({"type": "array", "minItems": 3, "maxItems": 2})", "{not json",
              "false"}) {
            try {
                grammarFromJsonSchema(schema);
                QFAIL(schema);
            } catch (const Error& error) {
                QVERIFY2(QString(error.what()).startsWith("JSON schema"), error.what());
            }
        }
    }

    void randomModelOutputUnderAJsonGrammarAlwaysParses() {
        const std::string grammar =
            "root   ::= \"{\" ws \"\\\"id\\\"\" ws \":\" ws number ws \",\" ws "
            "\"\\\"tag\\\"\" ws \":\" ws string ws \"}\"\n"
            "number ::= \"-\"? [1-9] [0-9]? [0-9]?\n"
            "string ::= \"\\\"\" [a-z] [a-z]? [a-z]? [a-z]? \"\\\"\"\n"
            "ws     ::= \" \"?\n";
        RandomModel model;
        for (uint64_t seed = 0; seed < 200; ++seed) {
            const auto [json, reason] = model.generate(grammar, seed, 80);
            QCOMPARE(reason, FinishReason::EndOfSequence);
            QJsonParseError error;
            const QJsonDocument document = QJsonDocument::fromJson(json, &error);
            QVERIFY2(error.error == QJsonParseError::NoError, json.constData());
            const QJsonObject object = document.object();
            QVERIFY2(object["id"].isDouble() && object["tag"].isString(), json.constData());
            QVERIFY(std::abs(object["id"].toInt()) >= 1 && std::abs(object["id"].toInt()) <= 999);
        }
    }
};

QTEST_APPLESS_MAIN(TestGrammar)
#include "test_grammar.moc"
