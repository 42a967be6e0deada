// The new architectures against Hugging Face transformers: tiny random-weight models that
// transformers itself built and saved (tests/data/architectures/<name>/, made by
// tools/make_architecture_golden.py with the logits transformers computed in float64), opened by
// InferLens as the Hugging Face directory and as the GGUF file `inferlens-cli convert` makes of it,
// logits compared at every position of the stored ids.

#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <optional>

#include "convert/model_converter.h"
#include "support/test_models.h"

namespace {

// The same bound as tests/test_reference_logits.cpp for f32 weights: what remains is the engine's
// f32 activations and accumulation against a float64 reference.
constexpr double kTolerance = 1e-5;

const char* const kArchitectures[] = {"llama3", "qwen2", "qwen3", "gemma3"};

std::string modelDirectory(const QString& name) {
    return INFERLENS_TEST_DATA "/architectures/" + name.toStdString();
}

}  // namespace

class TestReferenceArchitectures : public QObject {
    Q_OBJECT

  private slots:
    void engineMatchesTransformers_data();
    void engineMatchesTransformers();

  private:
    QTemporaryDir dir_;
};

void TestReferenceArchitectures::engineMatchesTransformers_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("throughGguf");
    for (const char* name : kArchitectures) {
        QTest::addRow("%s-hf", name) << QString(name) << false;
        QTest::addRow("%s-gguf", name) << QString(name) << true;
    }
}

void TestReferenceArchitectures::engineMatchesTransformers() {
    QFETCH(QString, name);
    QFETCH(bool, throughGguf);
    const std::string directory = modelDirectory(name);
    std::ifstream goldenFile(directory + "/golden.json");
    QVERIFY2(goldenFile, qPrintable("missing " + QString::fromStdString(directory)));
    const auto golden = nlohmann::json::parse(goldenFile);
    const auto ids = golden["ids"].get<std::vector<int32_t>>();
    std::vector<int64_t> shape;
    const std::vector<float> expected =
        inferlens::test::readNpyFloat32(directory + "/golden_logits.npy", shape);
    QCOMPARE(shape.size(), size_t(2));
    QCOMPARE(shape[0], int64_t(ids.size()));
    try {
        std::string path = directory;
        if (throughGguf) {
            path = dir_.filePath(name + ".gguf").toStdString();
            inferlens::convertModel(inferlens::openModelFiles(directory),
                                    inferlens::ModelFormat::Gguf, std::nullopt, path);
        }
        const std::vector<float> logits = inferlens::test::engineLogits(path, ids);
        const double error = inferlens::test::normalisedError(logits, expected);
        qInfo("%s (%s): normalised error %.3g over %zu positions (tolerance %.0e)",
              qPrintable(name), throughGguf ? "GGUF" : "HF", error, ids.size(), kTolerance);
        QVERIFY2(error < kTolerance, qPrintable(QString("normalised error %1").arg(error)));
    } catch (const std::exception& e) {
        QFAIL(e.what());
    }
}

QTEST_GUILESS_MAIN(TestReferenceArchitectures)
#include "test_reference_architectures.moc"
