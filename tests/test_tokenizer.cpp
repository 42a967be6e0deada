// The Tokenizer and the StreamingDetokenizer, on a sentencepiece model trained for these tests
// (tests/data/tokenizer: BPE, byte fallback, 2,000 pieces, made by tools/make_test_tokenizer.sh).
// The model sits in tiny synthetic models: a ChatGLM one (9 specials and 7 padding rows after the
// pieces) and a LLaMA one, each as a Hugging Face directory and converted to GGUF, so that the
// GGUF-vocabulary path is checked against the original tokenizer.model. sentencepiece itself is the
// oracle for decoding.

#include <sentencepiece_processor.h>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <optional>
#include <random>

#include "convert/model_converter.h"
#include "core/error.h"
#include "core/utf8.h"
#include "io/gguf_file.h"
#include "io/gguf_writer.h"
#include "models/model_files.h"
#include "support/test_models.h"
#include "tokenizer/streaming_detokenizer.h"
#include "tokenizer/tokenizer.h"

using namespace inferlens;

namespace {

const QString kTestModel = QStringLiteral(INFERLENS_TEST_DATA "/tokenizer/test.model");
const QString kCorpus = QStringLiteral(INFERLENS_TEST_DATA "/tokenizer/corpus.txt");
constexpr int64_t kPieces = 2000;  // pieces of test.model
constexpr int64_t kGlmPadding = 7;
constexpr int32_t kGMask = kPieces + 1, kSop = kPieces + 3;  // ChatGLM's specials by id

// A synthetic Hugging Face model of `architecture` whose tokenizer.model is the trained test model.
std::string modelWithTestTokenizer(const QTemporaryDir& dir, const std::string& architecture) {
    SyntheticModelOptions options;
    options.architecture = architecture;
    options.layers = 1;
    options.hidden = 32;
    options.ffn = 64;
    options.vocab = architecture == "chatglm" ? kPieces + 9 + kGlmPadding : kPieces;
    options.format = ModelFormat::HuggingFace;
    const std::string path = test::writeSynthetic(dir, architecture + "-hf", options);
    const QString tokenizerPath = QString::fromStdString(path) + "/tokenizer.model";
    if (!QFile::remove(tokenizerPath) || !QFile::copy(kTestModel, tokenizerPath))
        qFatal("cannot install %s", qPrintable(kTestModel));
    return path;
}

std::string readCorpus() {
    QFile file(kCorpus);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(kCorpus));
    return file.readAll().toStdString();
}

// Texts of every kind the tokenizer meets: English, Chinese (in the corpus and not), digits,
// punctuation, emoji (a piece, byte fallback, ZWJ sequences), whitespace runs, tabs, newlines,
// special-token names as plain text, the empty string.
void addVariedRows() {
    QTest::addColumn<QByteArray>("text");
    const char* const rows[][2] = {
        {"english", "The quick brown fox jumps over the lazy dog."},
        {"greeting", "Hello, world!"},
        {"poem", "床前明月光，疑是地上霜。举头望明月，低头思故乡。"},
        {"chinese", "你好，世界！今天天气怎么样？"},
        {"mixed", "今天 is Monday 😀, 明天 is Tuesday."},
        {"digits", "On 2024-03-15 the temperature reached 23.5 degrees; 1,000,000 and 0x1F."},
        {"punctuation", "Wow!!! Really?? (Maybe.) [x] {y} <z> a|b ~ ^ & * -- ... \"q\" 'r'"},
        {"chinese punctuation", "“引号”、《书名》——省略……！？"},
        {"space runs", "Spaces    can    repeat,  twice  or   thrice."},
        {"edge spaces", "   leading and trailing   "},
        {"one space", " "},
        {"tabs", "a\tb\t\tc\t"},
        {"newlines", "line one\nline two\n\nline four\n"},
        {"only newlines", "\n\n"},
        {"chatglm2 prompt", "[Round 1]\n\n问：你好\n\n答："},
        {"unknown chinese", "龘靐齉 鱻 is rare"},
        {"unknown emoji", "🦜🦩 and 🪐"},
        {"zwj emoji", "👩‍💻 codes, ❤️ loves"},
        {"special names", "<s>[gMASK]sop</s><|user|><unk>[MASK]"},
        {"code", "int main(void) { printf(\"hi\\n\"); return 0; }"},
        {"empty", ""},
    };
    for (const auto& [name, text] : rows)
        QTest::newRow(name) << QByteArray(text);
}

}  // namespace

class TestTokenizer : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    std::optional<ModelFiles> glmHfFiles_, glmGgufFiles_, llamaHfFiles_, llamaGgufFiles_;
    std::unique_ptr<Tokenizer> glmHf_, glmGguf_, llamaHf_, llamaGguf_;

    // Checks the spans of info.tokens: in order, without gaps or overlaps, covering all of
    // info.text, each holding the text its piece stands for.
    void checkSpans(const TokenizationInfo& info, const Tokenizer& tokenizer) {
        int64_t at = 0;
        bool first = true;
        for (const TokenInfo& token : info.tokens) {
            const QByteArray where = QByteArray("token ") + token.piece.c_str();
            QVERIFY2(token.begin == at && token.end >= token.begin, where);
            const std::string surface =
                info.text.substr(size_t(token.begin), size_t(token.end - token.begin));
            if (token.special) {
                QVERIFY2(surface.empty(), where);
            } else if (token.byteFallback) {
                QCOMPARE(surface, std::string(1, char(*tokenizer.byteValue(token.id))));
            } else {
                std::string expected = test::pieceAsText(token.piece);
                if (first && expected.starts_with(' '))
                    expected.erase(0, 1);  // the dummy-prefix space stands for no source text
                QCOMPARE(surface, expected);
                first = false;
            }
            at = token.end;
        }
        QCOMPARE(at, int64_t(info.text.size()));
    }

    static std::string streamed(const Tokenizer& tokenizer, const std::vector<int32_t>& ids,
                                SpecialTokens specials = SpecialTokens::Skip) {
        StreamingDetokenizer detokenizer(tokenizer, specials);
        std::string text;
        for (const int32_t id : ids) {
            const std::string chunk = detokenizer.push(id);
            if (!isValidUtf8(chunk))
                QTest::qFail("a chunk is not valid UTF-8", __FILE__, __LINE__);
            text += chunk;
        }
        return text + detokenizer.flush();
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const std::string glmHf = modelWithTestTokenizer(dir_, "chatglm");
        const std::string llamaHf = modelWithTestTokenizer(dir_, "llama");
        const std::string glmGguf = dir_.filePath("chatglm.gguf").toStdString();
        const std::string llamaGguf = dir_.filePath("llama.gguf").toStdString();
        glmHfFiles_ = openModelFiles(glmHf);
        llamaHfFiles_ = openModelFiles(llamaHf);
        convertModel(*glmHfFiles_, ModelFormat::Gguf, std::nullopt, glmGguf);
        convertModel(*llamaHfFiles_, ModelFormat::Gguf, std::nullopt, llamaGguf);
        glmGgufFiles_ = openModelFiles(glmGguf);
        llamaGgufFiles_ = openModelFiles(llamaGguf);
        glmHf_ = std::make_unique<Tokenizer>(*glmHfFiles_);
        glmGguf_ = std::make_unique<Tokenizer>(*glmGgufFiles_);
        llamaHf_ = std::make_unique<Tokenizer>(*llamaHfFiles_);
        llamaGguf_ = std::make_unique<Tokenizer>(*llamaGgufFiles_);
    }

    // Ids from `spm_encode --model=tests/data/tokenizer/test.model --output_format=id` (one text
    // a line), each checked by hand against `spm_export_vocab` (id = line number − 1); the last
    // two rows hold newlines, which spm_encode cannot take: their ids were printed by this
    // tokenizer once and checked piece by piece the same way ("\n" has no piece: byte <0x0A> = 13,
    // as in ChatGLM's vocabulary).
    void knownEncodings_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QList<int>>("ids");
        QTest::newRow("Hello, world!")
            << QByteArray("Hello, world!") << QList<int>{1024, 1138, 1048, 1184};
        QTest::newRow("你好") << QByteArray("你好") << QList<int>{1115, 402};  // ▁ 你好
        QTest::newRow("poem line")
            << QByteArray("床前明月光，疑是地上霜。") << QList<int>{1115, 1018, 1127, 1019, 1129};
        // ▁The ▁model ▁has ▁ 2 8 ▁layers . (digits are split)
        QTest::newRow("digits") << QByteArray("The model has 28 layers.")
                                << QList<int>{297, 492, 482, 1115, 1147, 1185, 1060, 1133};
        // ▁ <0xE9> <0xBE> <0x98> ▁ <0xF0> <0x9F> <0xA6> <0x9C>: byte id = 3 + byte value
        QTest::newRow("byte fallback")
            << QByteArray("龘 🦜") << QList<int>{1115, 236, 193, 155, 1115, 243, 162, 169, 159};
        // ▁S p aces ▁▁▁ ▁repeat: whitespace runs are kept
        QTest::newRow("space run")
            << QByteArray("Spaces    repeat") << QList<int>{458, 1131, 646, 443, 691};
        // ▁[ Round ▁ 1 ]
        QTest::newRow("[Round 1]")
            << QByteArray("[Round 1]") << QList<int>{505, 666, 1115, 1143, 1349};
        // ▁今天 ▁is ▁Monday ▁😀 (this emoji is in the corpus and has a piece)
        QTest::newRow("emoji piece")
            << QByteArray("今天 is Monday 😀") << QList<int>{891, 295, 1056, 586};
        // ▁[ Round ▁ 1 ] \n \n 问 ： 你好 \n \n 答 ：
        QTest::newRow("chatglm2 round")
            << QByteArray("[Round 1]\n\n问：你好\n\n答：")
            << QList<int>{505, 666, 1115, 1143, 1349, 13, 13, 1156, 1149, 402, 13, 13, 1166, 1149};
        // ▁ \n: how "\n" encodes on its own (ChatGLM3's role line)
        QTest::newRow("newline") << QByteArray("\n") << QList<int>{1115, 13};
    }

    void knownEncodings() {
        QFETCH(QByteArray, text);
        QFETCH(QList<int>, ids);
        for (const Tokenizer* tokenizer : {glmHf_.get(), glmGguf_.get(), llamaHf_.get()}) {
            const auto encoded = tokenizer->encode(text.toStdString(), false);
            QCOMPARE(QList<int>(encoded.begin(), encoded.end()), ids);
        }
    }

    void spansPartitionTheText_data() { addVariedRows(); }
    void spansPartitionTheText() {
        QFETCH(QByteArray, text);
        checkSpans(glmHf_->tokenize(text.toStdString(), false), *glmHf_);
        checkSpans(llamaGguf_->tokenize(text.toStdString(), true), *llamaGguf_);
    }

    void bytePiecesPartitionTheirCharacter() {
        // "a龘🦜": ▁a, then 3 bytes of 龘 covering one byte each, then 4 bytes of 🦜.
        const std::string text = "a龘🦜";
        const TokenizationInfo info = glmHf_->tokenize(text, true);
        QCOMPARE(info.tokens.size(), size_t(2 + 1 + 3 + 4));
        QVERIFY(info.tokens[0].special && info.tokens[1].special);
        QCOMPARE(info.tokens[0].begin, 0);
        QCOMPARE(info.tokens[0].end, 0);
        QCOMPARE(info.tokens[2].begin, 0);
        QCOMPARE(info.tokens[2].end, 1);
        for (int i = 0; i < 7; ++i) {
            const TokenInfo& token = info.tokens[size_t(3 + i)];
            QVERIFY(token.byteFallback && !token.special);
            QCOMPARE(token.begin, 1 + i);
            QCOMPARE(token.end, 2 + i);
            QCOMPARE(token.piece, glmHf_->piece(token.id));
        }
        QCOMPARE(info.tokens[3].piece, std::string("<0xE9>"));
        QCOMPARE(info.tokens[6].piece, std::string("<0xF0>"));
    }

    void generatedTokensAppendTheBytesTheyStandFor() {
        // A generated sequence rebuilt token by token: its text is what the tokens decode to
        // (with the leading "▁" kept: the text continues a prompt), and the spans partition it.
        const TokenizationInfo encoded = glmHf_->tokenize("a龘 hello", true);
        TokenizationInfo rebuilt;
        for (const TokenInfo& token : encoded.tokens)
            glmHf_->appendGenerated(rebuilt, token.id);
        QCOMPARE(rebuilt.tokens.size(), encoded.tokens.size());
        QCOMPARE(rebuilt.text, std::string(" a龘 hello"));
        int64_t at = 0;
        for (size_t i = 0; i < rebuilt.tokens.size(); ++i) {
            const TokenInfo& token = rebuilt.tokens[i];
            QCOMPARE(token.id, encoded.tokens[i].id);
            QCOMPARE(token.piece, encoded.tokens[i].piece);
            QCOMPARE(token.special, encoded.tokens[i].special);
            QCOMPARE(token.byteFallback, encoded.tokens[i].byteFallback);
            QCOMPARE(token.begin, at);
            at = token.end;
        }
        QCOMPARE(at, int64_t(rebuilt.text.size()));
        QCOMPARE(rebuilt.tokens[0].end, rebuilt.tokens[0].begin);               // [gMASK]: nothing
        QCOMPARE(rebuilt.tokens[3].end - rebuilt.tokens[3].begin, int64_t(1));  // a byte of 龘
    }

    void decodeInvertsEncode_data() { addVariedRows(); }
    void decodeInvertsEncode() {
        QFETCH(QByteArray, text);
        for (const Tokenizer* tokenizer :
             {glmHf_.get(), glmGguf_.get(), llamaHf_.get(), llamaGguf_.get()})
            for (const bool prefix : {false, true})
                QCOMPARE(tokenizer->decode(tokenizer->encode(text.toStdString(), prefix)),
                         text.toStdString());
    }

    void awkwardTextIsEncodedNotRefused() {
        // Invalid UTF-8 (stray continuation and lead bytes, a cut character) becomes U+FFFD, as
        // sentencepiece does; control characters and a 100,000-character text are encoded like
        // any other; what decodes is always valid UTF-8.
        const std::string invalid = "ab\xff\xfe cd \xe4\xb8 ef \x80";
        const std::string controls = std::string("a\x01\x02 b\x7f c\x1b[0m d");
        std::string longText;
        while (longText.size() < 100000)
            longText += "床前明月光，疑是地上霜。The quick brown fox. ";
        for (const Tokenizer* tokenizer :
             {glmHf_.get(), glmGguf_.get(), llamaHf_.get(), llamaGguf_.get()}) {
            const std::string decoded = tokenizer->decode(tokenizer->encode(invalid, false));
            QVERIFY(isValidUtf8(decoded));
            QVERIFY2(decoded.find("\xef\xbf\xbd") != std::string::npos, decoded.c_str());
            QVERIFY(decoded.find("ab") == 0 && decoded.find("cd") != std::string::npos);
            QVERIFY(isValidUtf8(tokenizer->decode(tokenizer->encode(controls, false))));
            QElapsedTimer timer;
            timer.start();
            const std::vector<int32_t> ids = tokenizer->encode(longText, false);
            QVERIFY(ids.size() > 1000);
            QVERIFY(timer.elapsed() < 10000);
            QCOMPARE(tokenizer->decode(ids), longText);
        }
    }

    void decodeInvertsEncodeOnTheCorpus() {
        const std::string corpus = readCorpus();
        QCOMPARE(glmHf_->decode(glmHf_->encode(corpus)), corpus);
        QCOMPARE(llamaGguf_->decode(llamaGguf_->encode(corpus)), corpus);
    }

    // The GGUF file carries the vocabulary only; the processor rebuilt from it must encode
    // exactly like the original tokenizer.model: ids, pieces, spans, flags.
    void ggufVocabularyEncodesLikeTokenizerModel_data() {
        addVariedRows();
        const std::string corpus = readCorpus();
        QTest::newRow("whole corpus") << QByteArray::fromStdString(corpus);
        int line = 0;
        for (const QByteArray& text : QByteArray::fromStdString(corpus).split('\n'))
            QTest::addRow("corpus line %d", ++line) << text;
    }
    void ggufVocabularyEncodesLikeTokenizerModel() {
        QFETCH(QByteArray, text);
        for (const auto& [hf, gguf] : {std::pair{glmHf_.get(), glmGguf_.get()},
                                       std::pair{llamaHf_.get(), llamaGguf_.get()}}) {
            const TokenizationInfo a = hf->tokenize(text.toStdString());
            const TokenizationInfo b = gguf->tokenize(text.toStdString());
            QCOMPARE(b.ids(), a.ids());
            for (size_t i = 0; i < a.tokens.size(); ++i) {
                QCOMPARE(b.tokens[i].piece, a.tokens[i].piece);
                QCOMPARE(b.tokens[i].begin, a.tokens[i].begin);
                QCOMPARE(b.tokens[i].end, a.tokens[i].end);
                QCOMPARE(b.tokens[i].special, a.tokens[i].special);
                QCOMPARE(b.tokens[i].byteFallback, a.tokens[i].byteFallback);
            }
        }
    }

    void ggufAndHfAgreeOnEveryId() {
        for (const auto& [hf, gguf] : {std::pair{glmHf_.get(), glmGguf_.get()},
                                       std::pair{llamaHf_.get(), llamaGguf_.get()}}) {
            QCOMPARE(gguf->pieceCount(), hf->pieceCount());
            QCOMPARE(gguf->tokenCount(), hf->tokenCount());
            QCOMPARE(gguf->vocabularySize(), hf->vocabularySize());
            QCOMPARE(gguf->prefixIds(), hf->prefixIds());
            QCOMPARE(gguf->bosId(), hf->bosId());
            QCOMPARE(gguf->eosIds(), hf->eosIds());
            QCOMPARE(gguf->addsDummyPrefix(), hf->addsDummyPrefix());
            QCOMPARE(gguf->removesExtraWhitespaces(), hf->removesExtraWhitespaces());
            for (int32_t id = 0; id < hf->vocabularySize(); ++id) {
                QCOMPARE(gguf->piece(id), hf->piece(id));
                QCOMPARE(gguf->isSpecial(id), hf->isSpecial(id));
                QCOMPARE(gguf->isByte(id), hf->isByte(id));
                QCOMPARE(gguf->isUnknown(id), hf->isUnknown(id));
            }
        }
    }

    void prefixes() {
        const std::vector<int32_t> body = glmHf_->encode("你好", false);
        std::vector<int32_t> expected{kGMask, kSop};
        expected.insert(expected.end(), body.begin(), body.end());
        QCOMPARE(glmHf_->encode("你好"), expected);  // DESIGN.md §4: [gMASK] sop, no BOS/EOS
        QCOMPARE(glmGguf_->encode("你好"), expected);
        QCOMPARE(llamaHf_->prefixIds(), std::vector<int32_t>{1});  // <s>
        QCOMPARE(llamaGguf_->encode("Hello").front(), 1);
        QCOMPARE(llamaGguf_->encode("", true), std::vector<int32_t>{1});
    }

    void specialNamesInTextArePlainText() {
        const std::string text = "<s>[gMASK]sop</s><|user|>";
        for (const Tokenizer* tokenizer : {glmHf_.get(), glmGguf_.get(), llamaGguf_.get()}) {
            for (const TokenInfo& token : tokenizer->tokenize(text, false).tokens)
                QVERIFY2(!token.special, token.piece.c_str());
            QCOMPARE(tokenizer->decode(tokenizer->encode(text, false)), text);
        }
    }

    void lookups() {
        const char* const names[] = {"[MASK]",   "[gMASK]",       "[sMASK]",
                                     "sop",      "eop",           "<|system|>",
                                     "<|user|>", "<|assistant|>", "<|observation|>"};
        for (const Tokenizer* tokenizer : {glmHf_.get(), glmGguf_.get()}) {
            for (int i = 0; i < 9; ++i) {
                QCOMPARE(tokenizer->specialId(names[i]), int32_t(kPieces + i));
                QCOMPARE(tokenizer->piece(int32_t(kPieces + i)), std::string(names[i]));
                QVERIFY(tokenizer->isSpecial(int32_t(kPieces + i)));
            }
            QCOMPARE(tokenizer->pieceCount(), kPieces);
            QCOMPARE(tokenizer->tokenCount(), kPieces + 9);
            QCOMPARE(tokenizer->vocabularySize(), kPieces + 9 + kGlmPadding);
            const int32_t pad = int32_t(kPieces + 9);
            QCOMPARE(tokenizer->piece(pad), "[PAD" + std::to_string(pad) + "]");
            QVERIFY(tokenizer->isSpecial(pad) && !tokenizer->isByte(pad));
            QCOMPARE(tokenizer->specialId("</s>"), 2);
            QCOMPARE(tokenizer->eosIds(), std::vector<int32_t>{2});
            QCOMPARE(tokenizer->bosId(), std::optional<int32_t>(1));
            QVERIFY(tokenizer->isUnknown(0) && !tokenizer->isSpecial(0));
            QVERIFY(tokenizer->isSpecial(1) && tokenizer->isSpecial(2));
            for (int32_t id = 3; id < 3 + 256; ++id) {
                QVERIFY(tokenizer->isByte(id) && !tokenizer->isSpecial(id));
                QCOMPARE(*tokenizer->byteValue(id), uint8_t(id - 3));
            }
            QVERIFY(!tokenizer->isByte(259) && !tokenizer->isSpecial(259));
            QCOMPARE(tokenizer->piece(1115), std::string("\xE2\x96\x81"));  // "▁"
            QVERIFY(!tokenizer->findSpecial("<|nothing|>"));
            QVERIFY(!tokenizer->findSpecial("\xE2\x96\x81"));  // a piece, not a special
        }
        QCOMPARE(llamaGguf_->tokenCount(), kPieces);
        QCOMPARE(llamaGguf_->vocabularySize(), kPieces);
        QVERIFY(llamaGguf_->addsDummyPrefix());
        QVERIFY(!llamaGguf_->removesExtraWhitespaces());
        QCOMPARE(llamaGguf_->unknownSurface(), std::string(" \xE2\x81\x87 "));
    }

    void lookupErrorsNameTheModel() {
        try {
            glmHf_->specialId("<|nothing|>");
            QFAIL("an unknown special was found");
        } catch (const Error& error) {
            QVERIFY2(QString(error.what()).contains(QString::fromStdString(glmHfFiles_->path)) &&
                         QString(error.what()).contains("<|nothing|>"),
                     error.what());
        }
        QVERIFY_THROWS_EXCEPTION(Error, glmHf_->piece(int32_t(kPieces + 9 + kGlmPadding)));
        QVERIFY_THROWS_EXCEPTION(Error, glmHf_->piece(-1));
        QVERIFY_THROWS_EXCEPTION(Error, glmHf_->decode(std::vector<int32_t>{5, 99999}));
    }

    void decodeSkipsOrRendersSpecials() {
        const std::vector<int32_t> ids = glmHf_->encode("Hello, world!");
        QCOMPARE(glmHf_->decode(ids), std::string("Hello, world!"));
        QCOMPARE(glmHf_->decode(ids, SpecialTokens::Render),
                 std::string("[gMASK]sop Hello, world!"));  // a written name is text
        std::vector<int32_t> withEnd = ids;
        withEnd.push_back(2);
        withEnd.push_back(int32_t(kPieces + 9));  // padding
        QCOMPARE(glmGguf_->decode(withEnd), std::string("Hello, world!"));
        QCOMPARE(glmGguf_->decode(withEnd, SpecialTokens::Render),
                 "[gMASK]sop Hello, world!</s>[PAD" + std::to_string(kPieces + 9) + "]");
    }

    // Streaming: a character arrives only with its last byte; the chunks make up decode().
    void streamingWaitsForTheLastByte() {
        const std::vector<int32_t> ids = glmHf_->encode("龘🦜a", false);
        // ▁ (the dummy prefix, dropped), E9 BE 98, F0 9F A6 9C, then "a" (a byte or a piece).
        StreamingDetokenizer detokenizer(*glmHf_);
        std::vector<std::string> chunks;
        for (const int32_t id : ids)
            chunks.push_back(detokenizer.push(id));
        QCOMPARE(detokenizer.flush(), std::string());
        QVERIFY(chunks.size() >= 9);
        const std::vector<std::string> expected{"", "", "", "龘", "", "", "", "🦜"};
        QCOMPARE(std::vector<std::string>(chunks.begin(), chunks.begin() + 8), expected);
    }

    void streamingEqualsDecode_data() { addVariedRows(); }
    void streamingEqualsDecode() {
        QFETCH(QByteArray, text);
        for (const Tokenizer* tokenizer : {glmHf_.get(), llamaGguf_.get()}) {
            const std::vector<int32_t> ids = tokenizer->encode(text.toStdString(), false);
            QCOMPARE(streamed(*tokenizer, ids), text.toStdString());
            QCOMPARE(streamed(*tokenizer, ids), tokenizer->decode(ids));
            // sentencepiece's own decode of the same pieces
            const std::vector<int> pieceIds(ids.begin(), ids.end());
            QCOMPARE(streamed(*tokenizer, ids), glmHfFiles_->tokenizer->DecodeIds(pieceIds));
        }
    }

    void leadingSpaceOnlyAtTheStart() {
        const int32_t hello = 1024, world = 1048, space = 1115;  // ▁Hello ▁world ▁
        StreamingDetokenizer detokenizer(*glmHf_);
        QCOMPARE(detokenizer.push(kGMask), std::string());  // a special does not end the start
        QCOMPARE(detokenizer.push(hello), std::string("Hello"));
        QCOMPARE(detokenizer.push(world), std::string(" world"));
        detokenizer.flush();  // a new sequence starts
        QCOMPARE(detokenizer.push(space), std::string());
        QCOMPARE(detokenizer.push(space), std::string(" "));
        QCOMPARE(detokenizer.push(hello), std::string(" Hello"));
    }

    void flushTurnsIncompleteBytesIntoReplacementCharacters() {
        const int32_t e9 = 3 + 0xE9, be = 3 + 0xBE, x = 1024;
        StreamingDetokenizer detokenizer(*glmHf_);
        QCOMPARE(detokenizer.push(e9), std::string());
        QCOMPARE(detokenizer.push(be), std::string());
        QCOMPARE(detokenizer.flush(), std::string("\xEF\xBF\xBD\xEF\xBF\xBD"));  // one per byte
        // An invalid byte is replaced as soon as that is certain; a piece ends a byte run.
        QCOMPARE(detokenizer.push(3 + 0x80), std::string("\xEF\xBF\xBD"));
        QCOMPARE(detokenizer.push(e9), std::string());
        QCOMPARE(detokenizer.push(x), std::string("\xEF\xBF\xBD Hello"));
        QCOMPARE(glmHfFiles_->tokenizer->DecodeIds(std::vector<int>{3 + 0x80, e9, x}),
                 std::string("\xEF\xBF\xBD\xEF\xBF\xBD Hello"));
    }

    // Random sequences of piece ids, rich in byte pieces (lead bytes, continuation bytes, invalid
    // ones) and controls: the streamed text equals sentencepiece's decode byte for byte, and no
    // chunk ever holds part of a character.
    void streamingMatchesSentencePieceOnRandomIds() {
        std::mt19937 random(1234);
        const int32_t leads[] = {0x41, 0xC3, 0xE4, 0xE9, 0xF0, 0xF4, 0xC0, 0xED, 0xF8, 0x0A};
        for (const auto& [tokenizer, files] : {std::pair{glmHf_.get(), &*glmHfFiles_},
                                               std::pair{llamaGguf_.get(), &*llamaGgufFiles_}}) {
            for (int trial = 0; trial < 3000; ++trial) {
                std::vector<int32_t> ids(size_t(1 + random() % 12));
                for (int32_t& id : ids) {
                    const unsigned kind = random() % 6;
                    if (kind == 0)
                        id = leads[random() % std::size(leads)] + 3;
                    else if (kind <= 2)
                        id = int32_t(3 + 0x80 + random() % 0x40);  // continuation bytes
                    else if (kind == 3)
                        id = int32_t(random() % 3);  // <unk> <s> </s>
                    else
                        id = int32_t(259 + random() % (kPieces - 259));
                }
                const std::vector<int> pieceIds(ids.begin(), ids.end());
                const std::string expected = files->tokenizer->DecodeIds(pieceIds);
                const std::string actual = streamed(*tokenizer, ids);
                if (actual != expected)
                    QFAIL(qPrintable("ids " + QString::number(trial) + ": " +
                                     QByteArray::fromStdString(actual).toHex() + " vs " +
                                     QByteArray::fromStdString(expected).toHex()));
            }
        }
    }

    void specialsWhileStreaming() {
        StreamingDetokenizer skip(*glmHf_);
        StreamingDetokenizer render(*glmHf_, SpecialTokens::Render);
        QCOMPARE(skip.push(int32_t(kPieces + 6)), std::string());
        QCOMPARE(render.push(int32_t(kPieces + 6)), std::string("<|user|>"));
        QCOMPARE(render.push(1024), std::string(" Hello"));
        QVERIFY_THROWS_EXCEPTION(Error, skip.push(int32_t(kPieces + 9 + kGlmPadding)));
    }

    void aModelWithoutTokenizerIsRefused() {
        ModelFiles files = *glmHfFiles_;
        files.tokenizer.reset();
        try {
            Tokenizer tokenizer(files);
            QFAIL("a tokenizer was made without one");
        } catch (const Error& error) {
            QVERIFY2(QString(error.what()).startsWith(QString::fromStdString(files.path) + ": ") &&
                         QString(error.what()).contains("no tokenizer"),
                     error.what());
        }
    }

    // GGUF vocabularies of kinds InferLens does not read (RWKV, BERT's WordPiece, ...) are
    // refused when the model is opened, with a message naming the file and the kind; a "gpt2"
    // (byte-level BPE) one without its merges names the missing key.
    void otherVocabularyKindsAreRefused_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("rwkv") << "rwkv" << QStringList{"rwkv", "not supported"};
        QTest::newRow("gpt2 without merges") << "gpt2" << QStringList{"tokenizer.ggml.merges"};
    }

    void otherVocabularyKindsAreRefused() {
        QFETCH(QString, kind);
        QFETCH(QStringList, expected);
        const GgufFile source(glmGgufFiles_->path);
        GgufWriter writer;
        for (const GgufKeyValue& entry : source.metadata())
            writer.set(entry.key, entry.key == "tokenizer.ggml.model"
                                      ? GgufValue{kind.toStdString()}
                                      : entry.value);
        for (const TensorView& tensor : source.tensors())
            writer.addTensor(
                {tensor.name, tensor.dtype, tensor.shape, [&tensor](std::span<std::byte> out) {
                     std::copy_n(tensor.data, out.size(), out.begin());
                 }});
        const std::string path = dir_.filePath(kind + ".gguf").toStdString();
        writer.write(path);
        try {
            openModelFiles(path);
            QFAIL("the vocabulary was accepted");
        } catch (const Error& error) {
            const QString message = error.what();
            QVERIFY2(message.startsWith(QString::fromStdString(path)), error.what());
            for (const QString& part : expected)
                QVERIFY2(message.contains(part), error.what());
        }
    }
};

QTEST_APPLESS_MAIN(TestTokenizer)
#include "test_tokenizer.moc"
