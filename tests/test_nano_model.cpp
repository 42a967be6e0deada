// The bundled model (resources/models/inferlens-nano, trained by tools/train_nano): the engine
// reproduces the training code's tokens and logits, recites poems it was trained on, beats the
// unigram baseline on held-out text with the loss its model card states, gives the same logits
// from its GGUF conversion, and is found without --model from the build tree and after install.

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "generator.h"
#include "support/test_models.h"
#include "tokenizer/chat_template.h"
#include "tokenizer/tokenizer.h"

using namespace inferlens;

namespace {

const QString kModelDir = QStringLiteral(INFERLENS_BUNDLED_MODEL);
const QString kNanoData = QStringLiteral(INFERLENS_TEST_DATA "/nano");

// Both sides start from the same F16 weights; the training code computes in f32, the engine
// rounds the inputs of F16 products to F16 (kernels.h; measured 3.2e-4 to 4.0e-4 with it, 5.7e-7
// without).
constexpr double kGoldenTolerance = 2e-3;
// The card quotes the held-out loss to 3 decimals; the engine must agree with the training code.
constexpr double kLossTolerance = 2e-3;

QJsonDocument readJson(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll());
}

QString readText(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

std::vector<int32_t> toIds(const QJsonArray& array) {
    std::vector<int32_t> ids;
    for (const auto& value : array)
        ids.push_back(int32_t(value.toInt()));
    return ids;
}

// Runs inferlens-cli from `workingDirectory` with INFERLENS_MODEL unset.
QProcess* startWithoutModel(const QString& program, const QStringList& arguments,
                            const QString& workingDirectory, QObject* parent) {
    auto* process = new QProcess(parent);
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.remove("INFERLENS_MODEL");
    process->setProcessEnvironment(environment);
    process->setWorkingDirectory(workingDirectory);
    process->start(program, arguments);
    return process;
}

}  // namespace

class TestNanoModel : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        model_ = kModelDir.toStdString();
        metrics_ = readJson(kModelDir + "/metrics.json").object();
        QVERIFY2(!metrics_.isEmpty(), "the bundled model has no metrics.json");
    }

    void theModelDirectoryIsSmall() {
        qint64 bytes = 0;
        for (QDirIterator it(kModelDir, QDir::Files, QDirIterator::Subdirectories); it.hasNext();)
            bytes += QFileInfo(it.next()).size();
        qInfo("resources/models/inferlens-nano: %.2f MB", double(bytes) / 1e6);
        QVERIFY(bytes > 1'000'000);  // holds the weights
        QVERIFY(bytes <= 20'000'000);
    }

    void tokensAndLogitsMatchTheTrainingCode() {
        const QJsonArray prompts = readJson(kNanoData + "/golden.json").array();
        std::vector<int64_t> shape;
        const std::vector<float> golden =
            test::readNpyFloat32((kNanoData + "/golden_logits.npy").toStdString(), shape);
        QCOMPARE(shape.size(), size_t(2));
        QVERIFY(prompts.size() >= 3);

        const Model model = Model::open(model_);
        const Tokenizer tokenizer(model.files());
        const auto vocab = size_t(shape[1]);
        QCOMPARE(int64_t(vocab), model.config().vocabSize);
        size_t row = 0;
        for (const auto& value : prompts) {
            const QJsonObject prompt = value.toObject();
            const std::vector<int32_t> ids = toIds(prompt["ids"].toArray());
            QCOMPARE(tokenizer.encode(prompt["text"].toString().toStdString()), ids);
            const std::vector<float> logits = test::engineLogits(model_, ids);
            const std::vector<float> expected(
                golden.begin() + std::ptrdiff_t(row * vocab),
                golden.begin() + std::ptrdiff_t((row + ids.size()) * vocab));
            const double error = test::normalisedError(logits, expected);
            qInfo("%zu tokens: normalised error %.2e", ids.size(), error);
            QVERIFY(error < kGoldenTolerance);
            row += ids.size();
        }
        QCOMPARE(int64_t(row), shape[0]);
    }

    void theChatTemplateRendersPromptsAsTrainingDid() {
        // golden.json's first prompt is round 1 asking for 《春晓》; its third has one earlier
        // round.
        const QJsonArray prompts = readJson(kNanoData + "/golden.json").array();
        const Model model = Model::open(model_);
        const Tokenizer tokenizer(model.files());
        const ChatTemplate chat(chooseChatTemplate(model.files(), "").kind, tokenizer);
        QCOMPARE(chat.name(), std::string_view("chatglm2"));
        const std::vector<ChatMessage> oneRound{{ChatRole::User, "《春晓》"}};
        QCOMPARE(chat.render(oneRound).ids, toIds(prompts[0].toObject()["ids"].toArray()));
        const std::vector<ChatMessage> twoRounds{{ChatRole::User, "《江雪》的作者是谁？"},
                                                 {ChatRole::Assistant, "柳宗元"},
                                                 {ChatRole::User, "背一首柳宗元的诗。"}};
        QCOMPARE(chat.render(twoRounds).ids, toIds(prompts[2].toObject()["ids"].toArray()));
    }

    void greedyAnswersReciteTrainedPoems() {
        const QJsonArray recitations = readJson(kNanoData + "/recitations.json").array();
        QVERIFY(recitations.size() >= 5);
        const Model model = Model::open(model_);
        const Tokenizer tokenizer(model.files());
        const ChatTemplate chat(ChatTemplateKind::ChatGlm2, tokenizer);
        const std::unordered_set<int32_t> stop(chat.stopIds().begin(), chat.stopIds().end());
        int exact = 0;
        for (const auto& value : recitations) {
            const QJsonObject poem = value.toObject();
            const std::string question = "《" + poem["title"].toString().toStdString() + "》";
            const std::vector<ChatMessage> messages{{ChatRole::User, question}};
            Generator generator(model);
            GreedyChooser greedy;
            const Generation answer =
                generator.generate(chat.render(messages).ids, 40, greedy, stop);
            const QString text = QString::fromStdString(tokenizer.decode(answer.tokens));
            const QString firstLine = text.trimmed().section('\n', 0, 0);
            const bool same = firstLine == poem["first_line"].toString();
            exact += same;
            qInfo("%s %s → %s", same ? "same" : "DIFFERENT",
                  qUtf8Printable(QString::fromStdString(question)), qUtf8Printable(firstLine));
        }
        QVERIFY2(exact >= 5, qPrintable(QString("%1 exact first lines").arg(exact)));
    }

    void heldOutLossBeatsTheUnigramBaselineAndMatchesTheCard() {
        const auto result = test::runCli(
            {"score", "--model", kModelDir, "--file", kNanoData + "/heldout.jsonl", "--json"});
        QCOMPARE(result.exitCode, 0);
        const QJsonObject score = QJsonDocument::fromJson(result.standardOutput.toUtf8()).object();
        const double engineLoss = score["mean_loss"].toDouble();
        const double cardLoss = metrics_["heldout_loss"].toDouble();
        const double baseline = metrics_["unigram_baseline_loss"].toDouble();
        qInfo("held-out loss: engine %.4f, card %.4f, unigram baseline %.4f", engineLoss, cardLoss,
              baseline);
        // The same tokens are scored (the tokenizers agree), with the same result.
        QCOMPARE(score["predictions"].toInt(), metrics_["heldout_tokens"].toInt());
        QVERIFY(std::abs(engineLoss - cardLoss) < kLossTolerance);
        QVERIFY(engineLoss < baseline);
        const QString card = readText(kModelDir + "/README.md");
        QVERIFY(card.contains(QString("**%1**").arg(cardLoss, 0, 'f', 3)));
        QVERIFY(card.contains(QString("| %1 |").arg(baseline, 0, 'f', 3)));
    }

    void theGgufConversionGivesTheSameLogits() {
        QTemporaryDir dir;
        const QString gguf = dir.filePath("nano.gguf");
        const auto converted =
            test::runCli({"convert", "--model", kModelDir, "--out", gguf, "--format", "gguf"});
        QVERIFY2(converted.exitCode == 0, qPrintable(converted.standardError));
        const std::vector<int32_t> ids =
            toIds(readJson(kNanoData + "/golden.json").array()[0].toObject()["ids"].toArray());
        const std::vector<float> fromSafetensors = test::engineLogits(model_, ids);
        const std::vector<float> fromGguf = test::engineLogits(gguf.toStdString(), ids);
        QCOMPARE(test::normalisedError(fromGguf, fromSafetensors), 0.0);
    }

    void theDefaultModelIsTheBundledOneFromAnyDirectory() {
        QProcess* process =
            startWithoutModel(QStringLiteral(INFERLENS_CLI_PATH), {"info"}, QDir::rootPath(), this);
        QVERIFY(process->waitForFinished(60000));
        QCOMPARE(process->exitCode(), 0);
        QVERIFY(QString::fromUtf8(process->readAllStandardOutput()).contains("inferlens-nano"));
    }

    void theInstalledCliUsesTheInstalledModel() {
        QTemporaryDir prefix;
        QProcess install;
        install.start(
            QStringLiteral(INFERLENS_CMAKE_COMMAND),
            {"--install", QStringLiteral(INFERLENS_BUILD_DIR), "--prefix", prefix.path()});
        QVERIFY(install.waitForFinished(120000));
        QVERIFY2(install.exitCode() == 0, install.readAllStandardError().constData());
        const QString installedModel = prefix.filePath("share/inferlens/models/inferlens-nano");
        QVERIFY(QFileInfo::exists(installedModel + "/model.safetensors"));

        QProcess* process = startWithoutModel(prefix.filePath("bin/inferlens-cli"), {"info"},
                                              QDir::rootPath(), this);
        QVERIFY(process->waitForFinished(60000));
        QCOMPARE(process->exitCode(), 0);
        const QString output = QString::fromUtf8(process->readAllStandardOutput());
        QVERIFY2(output.contains(installedModel), qPrintable(output));
    }

  private:
    std::string model_;
    QJsonObject metrics_;
};

QTEST_GUILESS_MAIN(TestNanoModel)
#include "test_nano_model.moc"
