// llama.cpp's own tokenizer test files: every models/ggml-vocab-*.gguf that comes with .inp/.out
// (cases in .inp separated by "\n__ggml_vocab_test__\n", the expected ids of each on one line of
// .out, made by the models' Hugging Face tokenizers) must give the same ids, id for id, when
// encoded as llama.cpp's test-tokenizer-0 encodes them: no BOS, special-token names as text. The
// files come from the llama-cpp-python sdist through tools/fetch_pypi_files.sh (a machine without
// the package index skips with a message). Vocabularies of kinds InferLens does not read (BERT's
// WordPiece, RWKV, T5's unigram, Gemma 4's) are listed as skipped with the reason.
// One deliberate difference: llama.cpp matches every user-defined token in text, InferLens only
// those that are text (whitespace runs, single characters), never markers such as command-r's
// <|START_OF_TURN_TOKEN|>, which typed text must not become. No case of these files contains such
// a marker (checked when this was decided), so every case still gives llama.cpp's ids.

#include <QDir>
#include <QTest>

#include <fstream>
#include <sstream>

#include "core/error.h"
#include "models/model_files.h"
#include "support/pypi_files.h"
#include "tokenizer/tokenizer.h"

using namespace inferlens;

namespace {

struct Case {
    std::string text;
    std::vector<int32_t> ids;
};

std::string readAll(const QString& path) {
    std::ifstream in(path.toStdString(), std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

std::vector<Case> readCases(const QString& vocabularyPath) {
    const std::string inputs = readAll(vocabularyPath + ".inp");
    const std::string separator = "\n__ggml_vocab_test__\n";
    std::vector<Case> cases;
    for (size_t at = 0; at < inputs.size();) {
        const size_t next = inputs.find(separator, at);
        cases.push_back(
            {inputs.substr(at, next == std::string::npos ? std::string::npos : next - at), {}});
        if (next == std::string::npos)
            break;
        at = next + separator.size();
    }
    std::istringstream outputs(readAll(vocabularyPath + ".out"));
    std::string line;
    for (Case& testCase : cases) {
        if (!std::getline(outputs, line))
            throw std::runtime_error("fewer .out lines than .inp cases");
        std::istringstream ids(line);
        for (int32_t id = 0; ids >> id;)
            testCase.ids.push_back(id);
    }
    return cases;
}

QString idsText(const std::vector<int32_t>& ids) {
    QStringList words;
    for (const int32_t id : ids)
        words << QString::number(id);
    return words.join(' ');
}

}  // namespace

class TestLlamaCppVocabularies : public QObject {
    Q_OBJECT

    QString modelsDir_;
    QString skipReason_;

  private slots:
    void initTestCase() {
        const QString source = test::fetchPypiFiles("llama-cpp-source", skipReason_);
        if (skipReason_.startsWith("FAILED"))
            QFAIL(qPrintable(skipReason_));
        if (source.isEmpty())
            qWarning("%s", qPrintable(skipReason_));
        else
            modelsDir_ = source + "/models";
    }

    void vocabulary_data() {
        QTest::addColumn<QString>("path");
        if (modelsDir_.isEmpty()) {
            QTest::newRow("no files") << QString();
            return;
        }
        for (const QString& name : QDir(modelsDir_).entryList({"ggml-vocab-*.gguf"}, QDir::Files))
            QTest::newRow(qPrintable(name)) << QDir(modelsDir_).filePath(name);
    }

    void vocabulary() {
        QFETCH(QString, path);
        if (path.isEmpty())
            QSKIP(qPrintable(skipReason_));
        const QString name = QFileInfo(path).fileName();
        if (!QFileInfo::exists(path + ".inp") || !QFileInfo::exists(path + ".out"))
            QSKIP(qPrintable(name + ": llama.cpp ships no .inp/.out test cases for it"));
        std::optional<Tokenizer> tokenizer;
        try {
            tokenizer.emplace(openTokenizerFiles(path.toStdString()));
        } catch (const Error& error) {
            if (!QString(error.what()).contains("not supported"))
                QFAIL(error.what());
            qInfo("%s: skipped: %s", qPrintable(name), error.what());
            QSKIP(qPrintable("vocabulary kind not supported: " + QString(error.what())));
        }
        const std::vector<Case> cases = readCases(path);
        int passed = 0;
        for (const Case& testCase : cases) {
            const std::vector<int32_t> ids = tokenizer->encode(testCase.text, false);
            if (ids == testCase.ids) {
                ++passed;
                continue;
            }
            qWarning("%s: %s\n  ours:      %s\n  llama.cpp: %s", qPrintable(name),
                     QByteArray::fromStdString(testCase.text).toPercentEncoding(" ").constData(),
                     qPrintable(idsText(ids)), qPrintable(idsText(testCase.ids)));
        }
        qInfo("%s: %d/%zu cases give llama.cpp's ids", qPrintable(name), passed, cases.size());
        QCOMPARE(passed, int(cases.size()));
    }

    // command-r's turn markers are user-defined tokens; typed, they stay text (llama.cpp would
    // match them), while a chat template still finds and inserts them by name.
    void commandRTurnMarkerTypedStaysText() {
        if (modelsDir_.isEmpty())
            QSKIP(qPrintable(skipReason_));
        const Tokenizer tokenizer(openTokenizerFiles(
            QDir(modelsDir_).filePath("ggml-vocab-command-r.gguf").toStdString()));
        const std::optional<int32_t> startOfTurn = tokenizer.findSpecial("<|START_OF_TURN_TOKEN|>");
        QVERIFY(startOfTurn.has_value());
        QVERIFY(tokenizer.isUserDefined(*startOfTurn));
        TokenizationInfo info;
        tokenizer.appendText(info, "hi <|START_OF_TURN_TOKEN|>");
        QVERIFY(info.tokens.size() > 3);
        for (const TokenInfo& token : info.tokens) {
            QVERIFY(!token.special);
            QVERIFY(token.id != *startOfTurn);
        }
        QCOMPARE(tokenizer.decode(info.ids()), std::string("hi <|START_OF_TURN_TOKEN|>"));
        tokenizer.appendSpecial(info, *startOfTurn, true);
        QCOMPARE(info.tokens.back().id, *startOfTurn);
    }
};

QTEST_APPLESS_MAIN(TestLlamaCppVocabularies)
#include "test_llama_cpp_vocabularies.moc"
