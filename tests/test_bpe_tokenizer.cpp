// Byte-level BPE on small hand-made vocabularies, where the expected ids follow from the
// definition of BPE (merge the adjacent pair listed first, until none applies) and GPT-2's byte
// alphabet, not from our code: merge order, the alphabet, added and control tokens (text a person
// types never becomes a control token), spans, streaming that never splits a character, the
// defaults llama.cpp gives to keys a file omits, and malformed vocabularies. llama.cpp's own
// vocabularies are test_llama_cpp_vocabularies' job.

#include <QTemporaryDir>
#include <QTest>

#include <QDir>
#include <QFile>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "io/gguf_writer.h"
#include "models/model_files.h"
#include "support/pypi_files.h"
#include "support/test_models.h"
#include "tokenizer/byte_level_alphabet.h"
#include "tokenizer/gguf_vocabulary.h"
#include "tokenizer/hf_tokenizer_json.h"
#include "tokenizer/regex_splitter.h"
#include "tokenizer/streaming_detokenizer.h"
#include "tokenizer/synthetic_vocabulary.h"
#include "tokenizer/tokenizer.h"

using namespace inferlens;

namespace {

// Ids 0..255: the 256 byte characters in byte order, so that id == byte value. Then the merged
// tokens, in the order given, and the added tokens.
struct HandVocabulary {
    std::vector<std::string> merges;  // "left right"
    std::vector<VocabEntry> added;
    std::string preTokenizer = "gpt-2";
    std::optional<bool> addBos;  // nullopt: the key is left out
    int64_t bosId = -1;
    int64_t eosId = -1;

    GgufVocabulary toGguf() const {
        GgufVocabulary vocabulary;
        vocabulary.kind = VocabularyKind::ByteLevelBpe;
        for (unsigned byte = 0; byte < 256; ++byte)
            vocabulary.entries.push_back(
                {byteLevelCharacter(uint8_t(byte)), 0.0f, PieceType::Normal});
        for (const std::string& merge : merges) {
            std::string merged = merge;
            merged.erase(merge.find(' '), 1);
            vocabulary.entries.push_back({merged, 0.0f, PieceType::Normal});
        }
        for (const VocabEntry& entry : added)
            vocabulary.entries.push_back(entry);
        vocabulary.merges = merges;
        vocabulary.preTokenizer = preTokenizer;
        vocabulary.addBos = addBos.value_or(false);
        vocabulary.bosId = bosId;
        vocabulary.eosId = eosId;
        return vocabulary;
    }
};

std::string writeVocabulary(const QTemporaryDir& dir, const std::string& name,
                            const GgufVocabulary& vocabulary, bool withAddBosKey = true) {
    GgufWriter writer;
    writer.set("general.architecture", {std::string("gpt2")});
    for (GgufKeyValue& entry : ggufVocabularyMetadata(vocabulary))
        if (withAddBosKey || entry.key != "tokenizer.ggml.add_bos_token")
            writer.set(entry.key, std::move(entry.value));
    const std::string path = dir.filePath(QString::fromStdString(name)).toStdString();
    writer.write(path);
    return path;
}

Tokenizer tokenizerOf(const QTemporaryDir& dir, const HandVocabulary& hand) {
    return Tokenizer(openTokenizerFiles(
        writeVocabulary(dir, "vocabulary.gguf", hand.toGguf(), hand.addBos.has_value())));
}

std::vector<int32_t> bytesOf(std::string_view text) {
    std::vector<int32_t> ids;
    for (const char byte : text)
        ids.push_back(int32_t(uint8_t(byte)));
    return ids;
}

}  // namespace

class TestBpeTokenizer : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

  private slots:
    // GPT-2's alphabet: printable Latin-1 bytes stand for themselves, the 68 others take U+0100
    // onwards in byte order: space is "Ġ" (U+0120), newline "Ċ" (U+010A), tab "ĉ" (U+0109),
    // 0x7F "ġ" (U+0121), the soft hyphen 0xAD "Ń" (U+0143).
    void byteAlphabet() {
        QCOMPARE(byteLevelCharacter(' '), std::string("\u0120"));
        QCOMPARE(byteLevelCharacter('\n'), std::string("\u010A"));
        QCOMPARE(byteLevelCharacter('\t'), std::string("\u0109"));
        QCOMPARE(byteLevelCharacter(0x7F), std::string("\u0121"));
        QCOMPARE(byteLevelCharacter(0xAD), std::string("\u0143"));
        QCOMPARE(byteLevelCharacter('A'), std::string("A"));
        QCOMPARE(byteLevelCharacter(0xE9), std::string("\u00E9"));
        std::string all;
        for (unsigned byte = 0; byte < 256; ++byte)
            all += char(byte);
        QCOMPARE(byteLevelDecode(byteLevelEncode(all)), std::optional<std::string>(all));
        QCOMPARE(byteLevelDecode("<|im_end|>"), std::optional<std::string>("<|im_end|>"));
        QCOMPARE(byteLevelDecode("\u4F60"), std::nullopt);  // not in the alphabet
    }

    // The pair listed first merges first, wherever it is in the word.
    void mergesApplyInListOrder() {
        HandVocabulary abFirst{{"a b", "b c"}};
        const Tokenizer first = tokenizerOf(dir_, abFirst);
        QCOMPARE(first.encode("abc"), (std::vector<int32_t>{256, 'c'}));  // "ab" "c"
        HandVocabulary bcFirst{{"b c", "a b"}};
        const Tokenizer second = tokenizerOf(dir_, bcFirst);
        QCOMPARE(second.encode("abc"), (std::vector<int32_t>{'a', 256}));  // "a" "bc"
        // Merges build on merges; a merge whose result is not a token leaves its bytes.
        HandVocabulary chain{{"h e", "l l", "he ll", "hell o"}};
        const Tokenizer hello = tokenizerOf(dir_, chain);
        QCOMPARE(hello.encode("hello"), (std::vector<int32_t>{259}));
        QCOMPARE(hello.encode("help"), (std::vector<int32_t>{256, 'l', 'p'}));
        // Equal pairs merge from the left: "aaa" → "aa" "a".
        HandVocabulary repeated{{"a a"}};
        QCOMPARE(tokenizerOf(dir_, repeated).encode("aaa"), (std::vector<int32_t>{256, 'a'}));
    }

    // Spaces and newlines are bytes of the alphabet ("Ġ", "Ċ") and merge like letters; the
    // pre-tokenizer keeps a leading space with its word, so "a b" is "a" "Ġb".
    void spacesAndWordsAndSpans() {
        HandVocabulary hand{{"\u0120 b", "a a"}};
        const Tokenizer tokenizer = tokenizerOf(dir_, hand);
        const TokenizationInfo info = tokenizer.tokenize("aa b\n", false);
        QCOMPARE(info.ids(), (std::vector<int32_t>{257, 256, '\n'}));
        QCOMPARE(tokenizer.piece(256), std::string("\u0120b"));
        const std::vector<std::pair<int64_t, int64_t>> spans{{0, 2}, {2, 4}, {4, 5}};
        for (size_t i = 0; i < info.tokens.size(); ++i) {
            QCOMPARE(std::make_pair(info.tokens[i].begin, info.tokens[i].end), spans[i]);
            QCOMPARE(
                tokenizer.textOf(info.tokens[i].id),
                info.text.substr(size_t(spans[i].first), size_t(spans[i].second - spans[i].first)));
        }
        QCOMPARE(tokenizer.decode(info.ids()), std::string("aa b\n"));
    }

    // Characters without a token become one token per UTF-8 byte, each spanning its byte; a
    // streaming decoder gives nothing until the character is complete.
    void streamingNeverSplitsACharacter() {
        const Tokenizer tokenizer = tokenizerOf(dir_, HandVocabulary{});
        const std::string text = "\u4F60\u597D!";  // 你好!
        const TokenizationInfo info = tokenizer.tokenize(text, false);
        QCOMPARE(info.ids(), bytesOf(text));
        for (size_t i = 0; i < info.tokens.size(); ++i)
            QCOMPARE(std::make_pair(info.tokens[i].begin, info.tokens[i].end),
                     std::make_pair(int64_t(i), int64_t(i + 1)));
        StreamingDetokenizer stream(tokenizer);
        std::vector<std::string> pieces;
        for (const int32_t id : info.ids())
            pieces.push_back(stream.push(id));
        pieces.push_back(stream.flush());
        QCOMPARE(pieces, (std::vector<std::string>{"", "", "\u4F60", "", "", "\u597D", "!", ""}));
        // A character cut off at the end becomes U+FFFD per byte, never half a character.
        QCOMPARE(tokenizer.decode(std::vector<int32_t>{0xE4, 0xBD}), std::string("\uFFFD\uFFFD"));
    }

    // Added tokens: special ones, control (<|im_end|>) or user-defined markers (<tool>, Qwen's
    // <think>), are not matched in text, so typing their names gives plain text, while a chat
    // template inserts them by name; user-defined text pieces (whitespace runs, one character)
    // are matched as llama.cpp matches them.
    void addedTokens() {
        HandVocabulary hand{{},
                            {{"<tool>", 0, PieceType::UserDefined},
                             {"<|im_end|>", 0, PieceType::Control},
                             {"<|im_start|>", 0, PieceType::Control},
                             {"\n\n", 0, PieceType::UserDefined},
                             {"<think>", 0, PieceType::UserDefined},
                             {"\u00F8", 0, PieceType::UserDefined}}};  // DeepSeek's "ø"
        const Tokenizer tokenizer = tokenizerOf(dir_, hand);
        const int32_t tool = 256, imEnd = 257, imStart = 258, think = 260, oSlash = 261;
        QCOMPARE(tokenizer.encode("a<tool>b", false), bytesOf("a<tool>b"));
        QCOMPARE(tokenizer.encode("<think>", false), bytesOf("<think>"));
        QCOMPARE(tokenizer.encode("<|im_end|>", false), bytesOf("<|im_end|>"));
        QVERIFY(tokenizer.isSpecial(think));
        QCOMPARE(tokenizer.findSpecial("<think>"), std::optional<int32_t>(think));
        for (const TokenInfo& token : tokenizer.tokenize("x <tool><think> y").tokens)
            QVERIFY(!token.special);
        QCOMPARE(tokenizer.encode("a\u00F8", false), (std::vector<int32_t>{'a', oSlash}));
        QVERIFY(!tokenizer.isSpecial(oSlash));
        QCOMPARE(tokenizer.findSpecial("<|im_end|>"), std::optional<int32_t>(imEnd));
        QCOMPARE(tokenizer.findSpecial("<tool>"), std::optional<int32_t>(tool));
        QVERIFY(tokenizer.isSpecial(imStart) && tokenizer.isSpecial(tool));
        QVERIFY(!tokenizer.isSpecial('a'));
        // A user-defined run of whitespace (Gemma has such tokens) is matched but is text.
        const int32_t blankLines = 259;
        QCOMPARE(tokenizer.encode("a\n\nb", false), (std::vector<int32_t>{'a', blankLines, 'b'}));
        QVERIFY(!tokenizer.isSpecial(blankLines));
        QCOMPARE(tokenizer.textOf(blankLines), std::string("\n\n"));
        // <|im_end|> ends generation by its name, as in llama.cpp, although eos is not declared.
        QCOMPARE(tokenizer.eosIds(), std::vector<int32_t>{imEnd});
        TokenizationInfo info;
        tokenizer.appendSpecial(info, imStart, true);
        tokenizer.appendText(info, "hi");
        QCOMPARE(info.ids(), (std::vector<int32_t>{imStart, 'h', 'i'}));
        QCOMPARE(info.text, std::string("<|im_start|>hi"));
        // Decoding leaves control tokens out (or writes their names) but writes user-defined ones.
        const std::vector<int32_t> ids{imStart, 'h', tool, imEnd};
        QCOMPARE(tokenizer.decode(ids), std::string("h<tool>"));
        QCOMPARE(tokenizer.decode(ids, SpecialTokens::Render),
                 std::string("<|im_start|>h<tool><|im_end|>"));
    }

    // Where the file has no tokenizer.ggml.add_bos_token, BOS is added as llama.cpp adds it:
    // for Llama 3's pre-tokenizer, not for Qwen2's; the key, when present, wins.
    void bosDefaultsFollowLlamaCpp_data() {
        QTest::addColumn<QString>("pre");
        QTest::addColumn<int>("addBosKey");  // -1 absent
        QTest::addColumn<bool>("startsWithBos");
        QTest::newRow("llama-bpe, key absent") << "llama-bpe" << -1 << true;
        QTest::newRow("qwen2, key absent") << "qwen2" << -1 << false;
        QTest::newRow("smollm, key absent") << "smollm" << -1 << false;
        QTest::newRow("llama-bpe, key false") << "llama-bpe" << 0 << false;
        QTest::newRow("qwen2, key true") << "qwen2" << 1 << true;
    }

    void bosDefaultsFollowLlamaCpp() {
        QFETCH(QString, pre);
        QFETCH(int, addBosKey);
        QFETCH(bool, startsWithBos);
        HandVocabulary hand{{}, {{"<s>", 0, PieceType::Control}}, pre.toStdString()};
        hand.bosId = 256;
        if (addBosKey >= 0)
            hand.addBos = addBosKey == 1;
        const Tokenizer tokenizer = tokenizerOf(dir_, hand);
        const std::vector<int32_t> expected =
            startsWithBos ? std::vector<int32_t>{256, 'a'} : std::vector<int32_t>{'a'};
        QCOMPARE(tokenizer.encode("a"), expected);
    }

    // A sentencepiece vocabulary without the key gets BOS too (llama.cpp's default).
    void sentencepieceBosDefault() {
        GgufVocabulary vocabulary;
        vocabulary.entries = syntheticVocabulary(300);
        vocabulary.bosId = 1;
        const std::string path =
            writeVocabulary(dir_, "spm.gguf", vocabulary, /*withAddBosKey=*/false);
        const Tokenizer tokenizer(openTokenizerFiles(path));
        QCOMPARE(tokenizer.prefixIds(), std::vector<int32_t>{1});
    }

    // Phi-3 marks its added tokens unknown; sentencepiece wants one unknown piece, so the others
    // become control tokens, as llama.cpp treats them.
    void extraUnknownTokensBecomeControl() {
        GgufVocabulary vocabulary;
        vocabulary.entries = syntheticVocabulary(300);
        vocabulary.entries.push_back({"<|end|>", 0, PieceType::Unknown});
        vocabulary.entries.push_back({"<|user|>", 0, PieceType::Unknown});
        const Tokenizer tokenizer(
            openTokenizerFiles(writeVocabulary(dir_, "phi.gguf", vocabulary)));
        QVERIFY(tokenizer.isUnknown(0));
        QVERIFY(!tokenizer.isUnknown(301) && tokenizer.isSpecial(301));
        QCOMPARE(tokenizer.findSpecial("<|user|>"), std::optional<int32_t>(301));
        QVERIFY(std::ranges::find(tokenizer.eosIds(), 300) != tokenizer.eosIds().end());
    }

    // Gemma 3 types its <unk> as a control token and names it by unknown_token_id: that token is
    // the unknown piece (sentencepiece needs one), as llama.cpp takes it from the key.
    void unknownTokenNamedByKey() {
        GgufVocabulary vocabulary;
        vocabulary.entries = syntheticVocabulary(300);
        vocabulary.entries[0].type = PieceType::Control;
        GgufWriter writer;
        for (GgufKeyValue& entry : ggufVocabularyMetadata(vocabulary))
            writer.set(entry.key, std::move(entry.value));
        writer.set("tokenizer.ggml.unknown_token_id", {uint32_t(0)});
        const std::string path = dir_.filePath("gemma-like.gguf").toStdString();
        writer.write(path);
        const Tokenizer tokenizer(openTokenizerFiles(path));
        QVERIFY(tokenizer.isUnknown(0));
        // Naming a byte piece instead leaves the byte pieces incomplete: refused.
        writer.set("tokenizer.ggml.unknown_token_id", {uint32_t(5)});
        writer.write(path);
        QVERIFY_THROWS_EXCEPTION(Error, openTokenizerFiles(path));
    }

    // The GPT-2 expression cuts "Hello  world!!" as Hugging Face's tokenizers do: the space
    // before a word stays with it, the other whitespace is a piece of its own.
    void regexSplitterKeepsEveryByte() {
        const RegexSplitter splitter(
            {R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))"}, "test");
        const std::string text = "Hello  world!! 42\xff";
        std::vector<std::string> pieces;
        for (const TextPiece& piece : splitter.split(text, {0, text.size()}))
            pieces.push_back(text.substr(piece.begin, piece.end - piece.begin));
        // Invalid UTF-8 never matches: the lone 0xFF byte is the text between matches.
        QCOMPARE(pieces, (std::vector<std::string>{"Hello", " ", " world", "!!", " 42", "\xff"}));
    }

    // A match that runs into PCRE2's backtracking limit is an Error naming the file and the
    // expression, not "no match" (which left the rest of the text as one word).
    void regexMatchLimitIsAnError() {
        const RegexSplitter splitter({"(a+)+$"}, "tokenizer.json");
        const std::string text = std::string(40, 'a') + "c";
        try {
            (void)splitter.split(text, {0, text.size()});
            QFAIL("accepted");
        } catch (const Error& error) {
            const QString message = error.what();
            QVERIFY2(message.startsWith("tokenizer.json") && message.contains("'(a+)+$'") &&
                         message.contains("limit"),
                     error.what());
        }
    }

    // Long runs of a repeated group need more than JIT's default 32 KiB stack (which failed with
    // PCRE2 error -46 and left the text unsplit): 200,000 bytes of "ab" are one match.
    void regexJitStackSuffices() {
        const RegexSplitter splitter({"(a|b)*"}, "test");
        std::string text;
        for (int i = 0; i < 100'000; ++i)
            text += "ab";
        text += "!";
        const std::vector<TextPiece> pieces = splitter.split(text, {0, text.size()});
        QCOMPARE(pieces.size(), size_t(2));
        QCOMPARE(pieces[0].end, text.size() - 1);
    }

    void malformedVocabulariesAreRefused_data() {
        QTest::addColumn<int>("which");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("merge without a space") << 0 << QStringList{"merge 1", "'ab'"};
        QTest::newRow("unknown pre-tokenizer")
            << 1 << QStringList{"tokenizer.ggml.pre", "'nonesuch'", "qwen2"};
        QTest::newRow("eos outside the vocabulary")
            << 2 << QStringList{"EOS", "tokenizer.ggml.eos_token_id"};
    }

    void malformedVocabulariesAreRefused() {
        QFETCH(int, which);
        QFETCH(QStringList, expected);
        HandVocabulary hand{{"a b", "b c"}};
        GgufVocabulary vocabulary = hand.toGguf();
        if (which == 0)
            vocabulary.merges[1] = "ab";
        else if (which == 1)
            vocabulary.preTokenizer = "nonesuch";
        else
            vocabulary.eosId = 100000;
        const std::string path = writeVocabulary(dir_, "bad.gguf", vocabulary);
        try {
            Tokenizer tokenizer(openTokenizerFiles(path));
            QFAIL("accepted");
        } catch (const Error& error) {
            const QString message = error.what();
            QVERIFY2(message.startsWith(QString::fromStdString(path)), error.what());
            for (const QString& part : expected)
                QVERIFY2(message.contains(part), error.what());
        }
    }

    // tokenizer.json files that must be refused with an Error naming the file and the key: ids far
    // past the number of tokens (a 47-byte file once asked for a 660 MB table), and BPE that is
    // not byte-level (sentencepiece-style pieces would be read in GPT-2's alphabet).
    void malformedTokenizerJsonIsRefused_data() {
        QTest::addColumn<QString>("document");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("vocab id far out")
            << R"({"model":{"vocab":{"a":16777215},"merges":[]},"decoder":{"type":"ByteLevel"}})"
            << QStringList{"model.vocab['a']", "16777215", "[0, 1)"};
        QTest::newRow("added token id far out")
            << R"({"model":{"vocab":{"a":0},"merges":[]},"pre_tokenizer":{"type":"ByteLevel"},)"
               R"("added_tokens":[{"id":900000,"content":"<x>"}]})"
            << QStringList{"added_tokens[0].id", "900000", "[0, 2)"};
        QTest::newRow("not byte-level")
            << R"({"model":{"vocab":{"a":0},"merges":[]},"pre_tokenizer":{"type":"Metaspace"},)"
               R"("decoder":{"type":"Sequence","decoders":[{"type":"Fuse"}]}})"
            << QStringList{"pre_tokenizer", "ByteLevel"};
    }

    void malformedTokenizerJsonIsRefused() {
        QFETCH(QString, document);
        QFETCH(QStringList, expected);
        try {
            (void)parseHfTokenizerJson(document.toStdString(), "", "dir/tokenizer.json");
            QFAIL("accepted");
        } catch (const Error& error) {
            const QString message = error.what();
            QVERIFY2(message.startsWith("dir/tokenizer.json"), error.what());
            for (const QString& part : expected)
                QVERIFY2(message.contains(part), error.what());
        }
    }

    // ByteLevel may be named by the decoder alone, inside a Sequence.
    void byteLevelDecoderIsEnough() {
        const GgufVocabulary vocabulary = parseHfTokenizerJson(
            R"({"model":{"vocab":{"a":0,"b":1},"merges":[]},)"
            R"("decoder":{"type":"Sequence","decoders":[{"type":"ByteLevel"}]}})",
            "", "tokenizer.json");
        QCOMPARE(vocabulary.entries.size(), size_t(2));
    }

    // A Hugging Face directory with tokenizer.json (no tokenizer.model): the byte-level BPE model,
    // a Sequence of a Split (digits one by one) and ByteLevel pre-tokenizers, special added
    // tokens, and BOS from the post-processor's template unless tokenizer_config.json says no.
    void huggingFaceTokenizerJson_data() {
        QTest::addColumn<int>("addBosToken");  // tokenizer_config.json's: -1 absent
        QTest::addColumn<bool>("startsWithBos");
        QTest::newRow("template adds BOS") << -1 << true;
        QTest::newRow("config says no BOS") << 0 << false;
    }

    void huggingFaceTokenizerJson() {
        QFETCH(int, addBosToken);
        QFETCH(bool, startsWithBos);
        SyntheticModelOptions options;
        options.format = ModelFormat::HuggingFace;
        options.vocab = 320;
        const QString directory = QString::fromStdString(
            test::writeSynthetic(dir_, "hf-bpe-" + std::to_string(addBosToken + 1), options));
        QVERIFY(QFile::remove(directory + "/tokenizer.model"));
        nlohmann::json vocab = nlohmann::json::object();
        for (unsigned byte = 0; byte < 256; ++byte)
            vocab[byteLevelCharacter(uint8_t(byte))] = byte;
        vocab["\u0120w"] = 256;
        vocab["\u0120wo"] = 257;
        const nlohmann::json tokenizer = {
            {"version", "1.0"},
            {"added_tokens",
             {{{"id", 258}, {"content", "<|begin_of_text|>"}, {"special", true}},
              {{"id", 259}, {"content", "<|im_end|>"}, {"special", true}}}},
            {"normalizer", nullptr},
            {"pre_tokenizer",
             {{"type", "Sequence"},
              {"pretokenizers",
               {{{"type", "Split"},
                 {"pattern", {{"Regex", "\\p{N}"}}},
                 {"behavior", "Isolated"},
                 {"invert", false}},
                {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}}}}},
            {"post_processor",
             {{"type", "TemplateProcessing"},
              {"single",
               {{{"SpecialToken", {{"id", "<|begin_of_text|>"}, {"type_id", 0}}}},
                {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}}}},
            {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", {"\u0120 w", "\u0120w o"}}}}};
        QFile json(directory + "/tokenizer.json");
        QVERIFY(json.open(QIODevice::WriteOnly));
        json.write(QByteArray::fromStdString(tokenizer.dump()));
        json.close();
        if (addBosToken >= 0) {
            QFile config(directory + "/tokenizer_config.json");
            QVERIFY(config.open(QIODevice::WriteOnly));
            config.write(addBosToken ? "{\"add_bos_token\": true}" : "{\"add_bos_token\": false}");
        }
        const Tokenizer bpe(openModelFiles(directory.toStdString()));
        QVERIFY(bpe.isByteLevel());
        std::vector<int32_t> expected{'1', '2', 257, 'w', '<', '|', 'i',
                                      'm', '_', 'e', 'n', 'd', '|', '>'};
        if (startsWithBos)
            expected.insert(expected.begin(), 258);
        QCOMPARE(bpe.encode("12 wow<|im_end|>"), expected);
        QCOMPARE(bpe.eosIds(), std::vector<int32_t>{259});
        QCOMPARE(bpe.decode(expected), std::string("12 wow<|im_end|>"));
    }

    // inferlens-cli on a vocabulary-only GGUF (no tensors) naming an architecture InferLens does
    // not run: `tokenize` works from the vocabulary alone, `info` says what the file holds.
    void cliOnVocabularyOnlyFile() {
        GgufVocabulary vocabulary = HandVocabulary{{"a b"}}.toGguf();
        GgufWriter writer;
        writer.set("general.architecture", {std::string("phi3")});
        for (GgufKeyValue& entry : ggufVocabularyMetadata(vocabulary))
            writer.set(entry.key, std::move(entry.value));
        const QString path = dir_.filePath("phi3-vocab.gguf");
        writer.write(path.toStdString());
        const test::CliResult tokenized =
            test::runCli({"tokenize", "--model", path, "--text", "ab a", "--json"});
        QVERIFY2(tokenized.exitCode == 0, qPrintable(tokenized.standardError));
        const auto json = nlohmann::json::parse(tokenized.standardOutput.toStdString());
        QCOMPARE(json.at("ids").get<std::vector<int32_t>>(), (std::vector<int32_t>{256, ' ', 'a'}));
        const test::CliResult info = test::runCli({"info", "--model", path});
        QVERIFY2(info.exitCode == 0, qPrintable(info.standardError));
        QVERIFY2(info.standardOutput.contains("a vocabulary only") &&
                     info.standardOutput.contains("byte-level BPE, 257 tokens, 1 merges"),
                 qPrintable(info.standardOutput));
    }

    // The two real files against llama.cpp's own tokenizer (golden ids from llama-tokenize, written
    // by tools/make_tokenizer_golden.py into tests/data/llama_cpp_tokens/real_models.json): typed
    // text encodes to the same ids, BOS included where the file asks for it.
    void realModelsGiveLlamaCppIds_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("SmolLM2-135M-Instruct (byte-level BPE, smollm)") << "smollm2";
        QTest::newRow("Gemma 3 270M (sentencepiece)") << "gemma3-270m";
    }

    void realModelsGiveLlamaCppIds() {
        QFETCH(QString, model);
        QString skip;
        const QString path = test::fetchPypiFiles(model, skip);
        if (skip.startsWith("FAILED"))
            QFAIL(qPrintable(skip));
        if (path.isEmpty())
            QSKIP(qPrintable(skip));
        std::ifstream in(INFERLENS_TEST_DATA "/llama_cpp_tokens/real_models.json");
        const nlohmann::json golden = nlohmann::json::parse(in);
        const Tokenizer tokenizer(openTokenizerFiles(path.toStdString()));
        int passed = 0;
        const auto& cases = golden.at("models").at(model.toStdString());
        for (const auto& testCase : cases) {
            const auto text = testCase.at("text").get<std::string>();
            const auto expected = testCase.at("ids").get<std::vector<int32_t>>();
            const std::vector<int32_t> ids = tokenizer.encode(text);
            if (ids == expected)
                ++passed;
            else
                qWarning("%s: %s: ours differ from llama.cpp's", qPrintable(model), text.c_str());
        }
        qInfo("%s: %d/%zu texts give llama.cpp's ids", qPrintable(model), passed, cases.size());
        QCOMPARE(passed, int(cases.size()));
    }

    // SmolLM2-135M-Instruct (fetched from PyPI): a real "smollm" vocabulary. llama.cpp's smollm
    // expressions are starcoder's, which test_llama_cpp_vocabularies checks case by case; here
    // the real file opens without its model, round-trips text, and knows its chat tokens.
    void smolLm2() {
        QString skip;
        const QString path = test::fetchPypiFiles("smollm2", skip);
        if (skip.startsWith("FAILED"))
            QFAIL(qPrintable(skip));
        if (path.isEmpty())
            QSKIP(qPrintable(skip));
        const Tokenizer tokenizer(openTokenizerFiles(path.toStdString()));
        const std::string text = "Hello, world! Grüße, 你好 🦙\n\tcode();  <|im_end|>";
        const std::vector<int32_t> ids = tokenizer.encode(text, false);
        QCOMPARE(tokenizer.decode(ids), text);
        QVERIFY(std::ranges::find(ids, *tokenizer.findSpecial("<|im_end|>")) == ids.end());
        QVERIFY(std::ranges::find(tokenizer.eosIds(), *tokenizer.findSpecial("<|im_end|>")) !=
                tokenizer.eosIds().end());
        QVERIFY(tokenizer.findSpecial("<|im_start|>"));
        qInfo("SmolLM2: %zu tokens for %zu bytes", ids.size(), text.size());
    }
};

QTEST_APPLESS_MAIN(TestBpeTokenizer)
#include "test_bpe_tokenizer.moc"
