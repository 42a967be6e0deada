// The tokenizer files that models carry: the ModelProto we serialize loads in sentencepiece and
// encodes as a sentencepiece BPE model should; vocabularies survive GGUF ⇄ tokenizer.model; invalid
// vocabularies are refused by our validation before sentencepiece sees them.

#include <sentencepiece_processor.h>

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

#include "convert/model_converter.h"
#include "core/error.h"
#include "models/model_files.h"
#include "support/test_models.h"
#include "tokenizer/sentencepiece_model.h"
#include "tokenizer/sentencepiece_proto_reader.h"
#include "tokenizer/synthetic_vocabulary.h"

using namespace inferlens;

class TestTokenizerFiles : public QObject {
    Q_OBJECT
  private slots:
    void syntheticVocabularyLoadsAndEncodes() {
        const auto entries = syntheticVocabulary(400);
        QCOMPARE(entries.size(), size_t(400));
        const auto processor = loadSentencePiece(serializeModelProto(entries, {}, "test"), "test");
        QCOMPARE(processor->GetPieceSize(), 400);
        QCOMPARE(processor->unk_id(), 0);
        QCOMPARE(processor->bos_id(), 1);
        QCOMPARE(processor->eos_id(), 2);
        QVERIFY(processor->IsByte(3));
        QCOMPARE(QString::fromStdString(processor->IdToPiece(3 + 0x41)), QString("<0x41>"));

        // "▁the" and "▁hello" are whole pieces reachable by BPE merges.
        const std::vector<std::string> pieces = processor->EncodeAsPieces("the hello");
        QCOMPARE(pieces.size(), size_t(2));
        QCOMPARE(QString::fromStdString(pieces[0]), QString("▁the"));
        QCOMPARE(QString::fromStdString(pieces[1]), QString("▁hello"));

        // Characters without a piece fall back to their UTF-8 bytes, and decode back exactly.
        const std::vector<int> ids = processor->EncodeAsIds("你好");
        QCOMPARE(ids.size(), size_t(1 + 6));  // "▁" then 2 × 3 bytes
        for (size_t i = 1; i < ids.size(); ++i)
            QVERIFY(processor->IsByte(ids[i]));
        QCOMPARE(QString::fromStdString(processor->DecodeIds(ids)), QString("你好"));
    }

    void reservedPiecesStayOutOfALargeVocabulary() {
        // ChatGLM's specials "sop" and "eop" are appended after the pieces; a large synthetic
        // vocabulary builds "sop" from letters, and the tokenizer then rejects the duplicate.
        const auto contains = [](const std::vector<VocabEntry>& entries, const std::string& piece) {
            return std::any_of(entries.begin(), entries.end(),
                               [&](const VocabEntry& e) { return e.piece == piece; });
        };
        QVERIFY(contains(syntheticVocabulary(32000), "sop"));
        const auto entries = syntheticVocabulary(32000, {"sop", "eop"});
        QCOMPARE(entries.size(), size_t(32000));
        QVERIFY(!contains(entries, "sop"));
        QVERIFY(!contains(entries, "eop"));
    }

    void vocabularyReadBackFromSentencePieceIsUnchanged() {
        const auto entries = syntheticVocabulary(300);
        const auto processor = loadSentencePiece(serializeModelProto(entries, {}, "test"), "test");
        QVERIFY(vocabularyOf(*processor) == entries);
    }

    void pieceTypesAndNormalizerSettingsSurvive() {
        auto entries = syntheticVocabulary(300);
        entries[299].type = PieceType::UserDefined;
        SentencePieceOptions options;
        options.addDummyPrefix = false;
        options.removeExtraWhitespaces = true;
        const std::string proto = serializeModelProto(entries, options, "test");
        const SentencePieceSettings settings = readSentencePieceSettings(proto);
        QVERIFY(!settings.addDummyPrefix);
        QVERIFY(settings.removeExtraWhitespaces);
        const auto processor = loadSentencePiece(proto, "test");
        QVERIFY(vocabularyOf(*processor) == entries);  // user-defined included
        // The settings act: no leading "▁", and the run of spaces collapses to one.
        const std::vector<std::string> pieces = processor->EncodeAsPieces("the   hello");
        QCOMPARE(QString::fromStdString(pieces.front()), QString("t"));
        QCOMPARE(QString::fromStdString(processor->DecodePieces(pieces)), QString("the hello"));
    }

    void conversionKeepsTokenizerSettingsNameAndChatTemplate() {
        QTemporaryDir dir;
        SyntheticModelOptions options;
        options.format = ModelFormat::HuggingFace;
        const auto hf = test::writeSynthetic(dir, "hf", options);
        auto entries = syntheticVocabulary(320);
        SentencePieceOptions spm;
        spm.addDummyPrefix = false;
        spm.removeExtraWhitespaces = true;
        QFile tokenizer(QString::fromStdString(hf + "/tokenizer.model"));
        QVERIFY(tokenizer.open(QIODevice::WriteOnly | QIODevice::Truncate));
        tokenizer.write(QByteArray::fromStdString(serializeModelProto(entries, spm, "test")));
        tokenizer.close();
        QFile config(QString::fromStdString(hf + "/tokenizer_config.json"));
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write(R"({"chat_template": "{% for m in messages %}<|user|>{% endfor %}"})");
        config.close();

        const auto gguf = dir.filePath("m.gguf").toStdString();
        const auto back = dir.filePath("back").toStdString();
        convertModel(openModelFiles(hf), ModelFormat::Gguf, std::nullopt, gguf);
        convertModel(openModelFiles(gguf), ModelFormat::HuggingFace, std::nullopt, back);
        for (const auto& path : {gguf, back}) {
            const ModelFiles files = openModelFiles(path);
            QVERIFY(!files.vocabulary->addSpacePrefix);
            QVERIFY(files.vocabulary->removeExtraWhitespaces);
            QCOMPARE(QString::fromStdString(files.chatTemplate),
                     QString("{% for m in messages %}<|user|>{% endfor %}"));
            QCOMPARE(QString::fromStdString(files.modelName), QString("synthetic llama"));
            QCOMPARE(files.tokenizer->EncodeAsIds("the   hello"),
                     openModelFiles(hf).tokenizer->EncodeAsIds("the   hello"));
        }
    }

    void glmSpecialsFollowThePieces() {
        QTemporaryDir dir;
        SyntheticModelOptions options;
        options.architecture = "chatglm";
        options.vocab = 330;
        for (const ModelFormat format : {ModelFormat::Gguf, ModelFormat::HuggingFace}) {
            options.format = format;
            const auto path =
                test::writeSynthetic(dir, format == ModelFormat::Gguf ? "g.gguf" : "g", options);
            const ModelFiles files = openModelFiles(path);
            QCOMPARE(files.pieceCount, int64_t(330 - 9));
            QCOMPARE(files.tokenizer->GetPieceSize(), format == ModelFormat::Gguf ? 330 : 321);
            const auto& entries = files.vocabulary->entries;
            QCOMPARE(entries.size(), size_t(330));
            QCOMPARE(QString::fromStdString(entries[321 + 1].piece), QString("[gMASK]"));
            QCOMPARE(QString::fromStdString(entries[321 + 3].piece), QString("sop"));
            QCOMPARE(QString::fromStdString(entries[321 + 8].piece), QString("<|observation|>"));
        }
    }

    void invalidVocabulariesAreRefusedWithAReason_data() {
        QTest::addColumn<int>("mutation");
        QTest::addColumn<QString>("reason");
        QTest::newRow("empty piece") << 0 << "is empty";
        QTest::newRow("duplicate piece") << 1 << "appears twice";
        QTest::newRow("two unknown") << 2 << "unknown tokens";
        QTest::newRow("missing byte piece") << 3 << "lacks <0x7F>";
        QTest::newRow("bad type number") << 4 << "unknown token type";
        QTest::newRow("malformed byte piece") << 5 << "not of the form";
    }

    void invalidVocabulariesAreRefusedWithAReason() {
        QFETCH(int, mutation);
        QFETCH(QString, reason);
        auto entries = syntheticVocabulary(300);
        switch (mutation) {
            case 0:
                entries[280].piece.clear();
                break;
            case 1:
                entries[281].piece = entries[280].piece;
                break;
            case 2:
                entries[280].type = PieceType::Unknown;
                break;
            case 3:
                entries[3 + 0x7f].type = PieceType::Normal;
                break;
            case 4:
                entries[280].type = static_cast<PieceType>(9);
                break;
            case 5:
                entries[280].type = PieceType::Byte;
                break;
        }
        try {
            serializeModelProto(entries, {}, "vocab.test");
            QFAIL("the invalid vocabulary was accepted");
        } catch (const Error& error) {
            const QString message = error.what();
            QVERIFY2(message.startsWith("vocab.test: ") && message.contains(reason), error.what());
        }
    }
};

QTEST_APPLESS_MAIN(TestTokenizerFiles)
#include "test_tokenizer_files.moc"
