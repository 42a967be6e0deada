// The engine's logits against an independent double-precision reference (tests/reference), for both
// architectures, every weight type and head dims 4, 64 and 128, read from the Hugging Face
// directory and from the GGUF file converted from it. A negative check proves that the comparison
// can fail: a reference with the other RoPE pairing must disagree with the engine.

#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <optional>

#include "convert/model_converter.h"
#include "convert/synthetic_model.h"
#include "reference/reference_forward.h"
#include "support/test_models.h"

using inferlens::reference::ReferenceOptions;
using inferlens::reference::RopePairing;

namespace {

// Normalised error ‖engine − reference‖ / ‖reference‖ allowed per weight type. The weights are the
// same numbers on both sides (the reference decodes f16/bf16 exactly), so with f32 weights what
// remains is the engine's f32 activations and accumulation: measured maxima over the rows below (HF
// and GGUF, CPU, 8 tokens, 2 layers) 1.04e-6 (head dim 128 the largest; head dim 4 near 3e-7), and
// the tolerance is ten times that. Both sides round the inputs of f16 and bf16 products to that
// type, and where the engine's f32 input and the reference's double one fall on either side of a
// rounding boundary they move apart by a whole step of the type, which then travels through the
// layers: measured f16 up to 2.9e-4 (against 5e-4 with the engine not rounding at all), bf16
// 1.7e-8 to 5.6e-8 (no input landed near a boundary; one that did would move by 2^-8). That the
// engine rounds is checked per product, to f32 rounding, by test_cpu_kernels.
constexpr double kToleranceF32 = 1e-5;
constexpr double kToleranceF16 = 2e-3;
constexpr double kToleranceBF16 = 2e-2;

// The engine against a reference with the wrong RoPE pairing must differ by at least this (measured
// 0.31 to 0.88 where the pairings differ; ~5e-7 for GLM head dim 4, where they coincide).
constexpr double kWrongPairingMinimumError = 0.05;

constexpr int64_t kVocab = 320;
constexpr int64_t kTokens = 8;

double toleranceFor(inferlens::DType dtype) {
    switch (dtype) {
        case inferlens::DType::F32:
            return kToleranceF32;
        case inferlens::DType::F16:
            return kToleranceF16;
        case inferlens::DType::BF16:
            return kToleranceBF16;
        default:
            break;  // the reference models are built in these three types only
    }
    return 0;
}

std::vector<double> flatten(const std::vector<std::vector<double>>& rows) {
    std::vector<double> flat;
    for (const auto& row : rows)
        flat.insert(flat.end(), row.begin(), row.end());
    return flat;
}

// ‖a − b‖ / ‖b‖ between two reference results.
double referenceDistance(const std::vector<double>& a, const std::vector<double>& b) {
    double difference = 0, norm = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        difference += (a[i] - b[i]) * (a[i] - b[i]);
        norm += b[i] * b[i];
    }
    return std::sqrt(difference / norm);
}

// One model shape of the data-driven tests.
struct Shape {
    const char* name;
    int64_t hidden, heads, kvHeads, headDim, ffn;
    double ropeBase;
};

// Head dim 4 (with GLM only one pair rotates), 64 (GQA 2:1), 128 (MQA, a large RoPE base), and head
// dim 64 with heads·head_dim ≠ hidden (the config's head_dim / kv_channels must be honoured).
constexpr Shape kShapes[] = {
    {"hd4", 16, 4, 2, 0, 32, 10000.0},
    {"hd64", 256, 4, 2, 0, 384, 10000.0},
    {"hd128", 256, 2, 1, 0, 384, 500000.0},
    {"hd64-wide", 128, 4, 2, 64, 256, 10000.0},
};

inferlens::SyntheticModelOptions modelOptions(const QString& arch, inferlens::DType dtype,
                                              const Shape& shape) {
    inferlens::SyntheticModelOptions options;
    options.architecture = arch.toStdString();
    options.layers = 2;
    options.hidden = shape.hidden;
    options.heads = shape.heads;
    options.kvHeads = shape.kvHeads;
    options.headDim = shape.headDim;
    options.ffn = shape.ffn;
    options.vocab = kVocab;
    options.context = 64;
    options.ropeBase = shape.ropeBase;
    options.dtype = dtype;
    options.seed = 11;
    options.format = inferlens::ModelFormat::HuggingFace;
    return options;
}

}  // namespace

class TestReferenceLogits : public QObject {
    Q_OBJECT

  private slots:
    void decodesHalfAndBfloat16();
    void engineMatchesReference_data();
    void engineMatchesReference();
    void wrongRopePairingIsDetected_data();
    void wrongRopePairingIsDetected();
    void referenceReportsMissingTensor();
    void tiedLlamaOutputMatchesReference();

  private:
    QTemporaryDir dir_;
};

void TestReferenceLogits::decodesHalfAndBfloat16() {
    using inferlens::reference::bfloat16ToDouble;
    using inferlens::reference::halfToDouble;
    QCOMPARE(halfToDouble(0x3C00), 1.0);
    QCOMPARE(halfToDouble(0xC000), -2.0);
    QCOMPARE(halfToDouble(0x3555), 0.333251953125);
    QCOMPARE(halfToDouble(0x7BFF), 65504.0);
    QCOMPARE(halfToDouble(0x0001), std::ldexp(1.0, -24));  // smallest subnormal
    QCOMPARE(halfToDouble(0x0400), std::ldexp(1.0, -14));  // smallest normal
    QVERIFY(std::isinf(halfToDouble(0xFC00)) && halfToDouble(0xFC00) < 0);
    QVERIFY(std::isnan(halfToDouble(0x7E00)));
    QCOMPARE(bfloat16ToDouble(0x3F80), 1.0);
    QCOMPARE(bfloat16ToDouble(0xC040), -3.0);
    QCOMPARE(bfloat16ToDouble(0x3EAB), 0.333984375);
    QCOMPARE(bfloat16ToDouble(0x0001), std::ldexp(1.0, -133));
    QVERIFY(std::isinf(bfloat16ToDouble(0x7F80)));
}

void TestReferenceLogits::engineMatchesReference_data() {
    QTest::addColumn<QString>("arch");
    QTest::addColumn<int>("dtype");
    QTest::addColumn<int>("shape");
    const std::pair<const char*, inferlens::DType> dtypes[] = {
        {"f32", inferlens::DType::F32},
        {"f16", inferlens::DType::F16},
        {"bf16", inferlens::DType::BF16},
    };
    for (const char* arch : {"llama", "chatglm"})
        for (const auto& [dtypeName, dtype] : dtypes)
            for (int shape = 0; shape < int(std::size(kShapes)); ++shape)
                QTest::addRow("%s-%s-%s", arch, dtypeName, kShapes[shape].name)
                    << QString(arch) << int(dtype) << shape;
}

void TestReferenceLogits::engineMatchesReference() {
    QFETCH(QString, arch);
    QFETCH(int, dtype);
    QFETCH(int, shape);
    const auto options = modelOptions(arch, inferlens::DType(dtype), kShapes[shape]);
    const double tolerance = toleranceFor(options.dtype);
    const std::string name = QTest::currentDataTag();
    const std::vector<int32_t> ids = inferlens::test::testIds(kTokens, kVocab);
    try {
        const std::string hfPath = inferlens::test::writeSynthetic(dir_, name + "-hf", options);
        const std::string ggufPath =
            dir_.filePath(QString::fromStdString(name + ".gguf")).toStdString();
        inferlens::convertModel(inferlens::openModelFiles(hfPath), inferlens::ModelFormat::Gguf,
                                std::nullopt, ggufPath);

        const std::vector<double> reference = flatten(inferlens::reference::referenceLogits(
            hfPath, ids, {.forceRopePairing = std::nullopt, .roundInputsToWeightType = true}));
        const double hfError =
            inferlens::test::normalisedError(inferlens::test::engineLogits(hfPath, ids), reference);
        const double ggufError = inferlens::test::normalisedError(
            inferlens::test::engineLogits(ggufPath, ids), reference);
        qInfo("%s: normalised error HF %.3g, GGUF %.3g (tolerance %.0e)", name.c_str(), hfError,
              ggufError, tolerance);
        QVERIFY2(hfError < tolerance, qPrintable(QString("HF error %1").arg(hfError)));
        QVERIFY2(ggufError < tolerance, qPrintable(QString("GGUF error %1").arg(ggufError)));
    } catch (const std::exception& e) {
        QFAIL(e.what());
    }
}

void TestReferenceLogits::wrongRopePairingIsDetected_data() {
    QTest::addColumn<QString>("arch");
    QTest::addColumn<int>("shape");
    for (const char* arch : {"llama", "chatglm"})
        for (int shape = 0; shape < int(std::size(kShapes)); ++shape)
            QTest::addRow("%s-%s", arch, kShapes[shape].name) << QString(arch) << shape;
}

// The reference computed with the other architecture's pairing must disagree with the engine far
// beyond the tolerance — except for GLM with head dim 4, where only dims (0, 1) rotate and both
// pairings pick that same pair (DESIGN.md §5): there the two references must coincide.
void TestReferenceLogits::wrongRopePairingIsDetected() {
    QFETCH(QString, arch);
    QFETCH(int, shape);
    const auto options = modelOptions(arch, inferlens::DType::F32, kShapes[shape]);
    const std::string name = std::string("wrong-pairing-") + QTest::currentDataTag();
    const std::vector<int32_t> ids = inferlens::test::testIds(kTokens, kVocab);
    ReferenceOptions wrong;
    wrong.forceRopePairing = arch == "llama" ? RopePairing::Adjacent : RopePairing::RotateHalf;
    try {
        const std::string hfPath = inferlens::test::writeSynthetic(dir_, name, options);
        const std::vector<double> right =
            flatten(inferlens::reference::referenceLogits(hfPath, ids));
        const std::vector<double> wrongReference =
            flatten(inferlens::reference::referenceLogits(hfPath, ids, wrong));
        const double error = inferlens::test::normalisedError(
            inferlens::test::engineLogits(hfPath, ids), wrongReference);
        const double referenceGap = referenceDistance(wrongReference, right);
        qInfo("%s: engine vs wrong-pairing reference %.3g (right vs wrong reference %.3g)",
              QTest::currentDataTag(), error, referenceGap);
        if (arch == "chatglm" && options.hidden / options.heads == 4) {
            QVERIFY2(referenceGap < 1e-12, "with one rotating pair both pairings must coincide");
            QVERIFY(error < kToleranceF32);
        } else {
            QVERIFY2(error > kWrongPairingMinimumError,
                     qPrintable(QString("wrong pairing error only %1").arg(error)));
        }
    } catch (const std::exception& e) {
        QFAIL(e.what());
    }
}

// A configuration that promises a layer the file lacks must name the missing tensor.
void TestReferenceLogits::referenceReportsMissingTensor() {
    const auto options = modelOptions("llama", inferlens::DType::F32, kShapes[0]);
    const std::string hfPath = inferlens::test::writeSynthetic(dir_, "missing-layer", options);
    const std::string configPath = hfPath + "/config.json";
    nlohmann::json config = nlohmann::json::parse(std::ifstream(configPath));
    config["num_hidden_layers"] = 3;
    std::ofstream(configPath) << config.dump(2);
    try {
        inferlens::reference::referenceLogits(hfPath, {1, 2, 3});
        QFAIL("the reference accepted a model with a missing layer");
    } catch (const inferlens::reference::ReferenceError& e) {
        QVERIFY2(std::string(e.what()).find("model.layers.2.input_layernorm.weight") !=
                     std::string::npos,
                 e.what());
    }
}

// LLaMA with the output layer tied to the token embedding (no lm_head.weight / output.weight).
void TestReferenceLogits::tiedLlamaOutputMatchesReference() {
    auto options = modelOptions("llama", inferlens::DType::F16, kShapes[1]);
    options.tiedOutput = true;
    const std::vector<int32_t> ids = inferlens::test::testIds(kTokens, kVocab);
    try {
        const std::string hfPath = inferlens::test::writeSynthetic(dir_, "tied-hf", options);
        const std::string ggufPath = dir_.filePath("tied.gguf").toStdString();
        inferlens::convertModel(inferlens::openModelFiles(hfPath), inferlens::ModelFormat::Gguf,
                                std::nullopt, ggufPath);
        QVERIFY(inferlens::openModelFiles(ggufPath).config.tiedOutput);
        QVERIFY(!inferlens::openModelFiles(ggufPath).tensors.count("output.weight"));
        const std::vector<double> reference = flatten(inferlens::reference::referenceLogits(
            hfPath, ids, {.forceRopePairing = std::nullopt, .roundInputsToWeightType = true}));
        for (const std::string& path : {hfPath, ggufPath}) {
            const double error = inferlens::test::normalisedError(
                inferlens::test::engineLogits(path, ids), reference);
            qInfo("tied output, %s: normalised error %.3g", path.c_str(), error);
            QVERIFY(error < kToleranceF16);
        }
    } catch (const std::exception& e) {
        QFAIL(e.what());
    }
}

QTEST_GUILESS_MAIN(TestReferenceLogits)
#include "test_reference_logits.moc"
