// Block-quantized weights (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K): every decoder against
// llama.cpp's own Python dequantizer on random blocks (tests/data/quant, made by
// tools/make_quant_golden.py), the block layouts and llama.cpp's quantization rules on hand-made
// blocks, quantization error bounds, logits of quantized models against the independent reference
// run on the dequantized weights (and against the unquantized model), and the CLI around them.
// tools/compare_quantized_with_llama_cpp.py checks Q8_0 and Q4_0 against llama.cpp itself.

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>
#include <vector>

#include "convert/model_converter.h"
#include "core/dtype_codec.h"
#include "core/error.h"
#include "core/half.h"
#include "core/tensor.h"
#include "models/model_files.h"
#include "reference/reference_forward.h"
#include "support/test_models.h"

using namespace inferlens;

namespace {

// Normalised logit error of the engine on a quantized GGUF against the double-precision reference
// on its exact dequantization (an f32 Hugging Face directory): the weights are the same numbers on
// both sides. What remains is the engine's f32 arithmetic and, as in llama.cpp, the 8-bit
// quantization of the activations that meet block-quantized weights (each element rounded to its
// 32-block's step, max|x| / 127: up to 1/254 of the block's largest value; test_cpu_kernels checks
// each product against that bound). Measured (CPU, 8 tokens, 2 layers, chatglm and llama, head
// dims 64 and 128): q8_0 0.0137 to 0.0158, q4_0 0.0137 to 0.0174 (with f32 activations it was
// under 1e-6), and 0.014 to 0.018 for q4_1, q5_0, q5_1, q4_k, q5_k and q6_k. The tolerance is about
// twice the maximum; a mistake in a weight decoder (a swapped nibble order, a wrong scale) gives
// errors of order 1.
constexpr double kToleranceVsDequantized = 3.5e-2;

// The quantized model against the same model in f32: the quantization error itself. Measured on the
// same rows: q8_0 0.012 to 0.017, q4_0 0.19 to 0.26. For the uniform random weights of synth a
// max-scaled block leaves 1/254 (8 bits) or 1/16 (4 bits) rms relative error per weight, and the
// sharp attention of these models amplifies it three- to fourfold. Tolerances about twice the
// maxima.
// Measured for the others: q4_1 0.20 to 0.23, q5_0 0.10 to 0.12, q5_1 0.10 to 0.11, q4_k 0.20 to
// 0.28, q5_k 0.11 to 0.15, q6_k 0.054 to 0.069 (our K quantizers are plain range quantizers,
// core/k_quant_blocks.h: llama.cpp's search does better).
double toleranceVsF32(DType dtype) {
    switch (dtype) {
        case DType::Q8_0:
            return 4e-2;
        case DType::Q4_0:
        case DType::Q4_1:
        case DType::Q4_K:
            return 0.5;
        case DType::Q5_0:
        case DType::Q5_1:
        case DType::Q5_K:
            return 0.3;
        default:
            return 0.15;
    }
}

constexpr DType kBlockTypes[] = {DType::Q8_0, DType::Q4_0, DType::Q4_1, DType::Q5_0,
                                 DType::Q5_1, DType::Q4_K, DType::Q5_K, DType::Q6_K};

QByteArray readFile(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll();
}

constexpr int64_t kVocab = 320;
constexpr int64_t kTokens = 8;

std::vector<std::byte> bytes(std::initializer_list<int> values) {
    std::vector<std::byte> out;
    for (int value : values)
        out.push_back(std::byte(uint8_t(value)));
    return out;
}

void putScale(std::vector<std::byte>& block, uint16_t halfBits) {
    std::memcpy(block.data(), &halfBits, 2);
}

std::vector<std::byte> encode(DType dtype, const std::vector<float>& values) {
    std::vector<std::byte> out(size_t(*byteSize(dtype, int64_t(values.size()))));
    encodeRow(dtype, values, out.data());
    return out;
}

std::vector<float> decode(DType dtype, const std::vector<std::byte>& row, size_t count) {
    std::vector<float> out(count);
    decodeRow(dtype, row.data(), out);
    return out;
}

// Values in [−scale, scale] with a few outliers, from a fixed sequence.
std::vector<float> randomValues(size_t count, float scale, uint64_t seed) {
    std::vector<float> values(count);
    uint64_t state = seed;
    for (auto& value : values) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        const double uniform = double(state >> 11) * 0x1.0p-53;
        value = scale * float(2.0 * uniform - 1.0);
        if ((state >> 8) % 37 == 0)
            value *= 9.0f;
    }
    return values;
}

std::vector<double> flatten(const std::vector<std::vector<double>>& rows) {
    std::vector<double> flat;
    for (const auto& row : rows)
        flat.insert(flat.end(), row.begin(), row.end());
    return flat;
}

SyntheticModelOptions modelOptions(const QString& arch, int64_t headDim, DType dtype,
                                   ModelFormat format) {
    SyntheticModelOptions o;
    o.architecture = arch.toStdString();
    o.layers = 2;
    o.hidden = 256;
    o.heads = 256 / headDim;
    o.kvHeads = headDim == 64 ? 2 : 1;
    o.ffn = 384;
    o.vocab = kVocab;
    o.context = 64;
    o.dtype = dtype;
    o.format = format;
    o.seed = 11;
    return o;
}

QByteArray tensorBytes(const ModelFiles& files, const std::string& name) {
    const TensorView& tensor = files.tensors.at(name);
    return QByteArray(reinterpret_cast<const char*>(tensor.data), qsizetype(tensor.byteCount));
}

}  // namespace

class TestQuantized : public QObject {
    Q_OBJECT
  private slots:
    void tableDescribesTheBlocks() {
        QCOMPARE(dtypeFromName("q8_0"), std::optional(DType::Q8_0));
        QCOMPARE(dtypeFromName("q4_0"), std::optional(DType::Q4_0));
        QCOMPARE(dtypeFromGgmlType(8), std::optional(DType::Q8_0));
        QCOMPARE(dtypeFromGgmlType(2), std::optional(DType::Q4_0));
        QCOMPARE(byteSize(DType::Q8_0, 64), std::optional<int64_t>(68));
        QCOMPARE(byteSize(DType::Q4_0, 64), std::optional<int64_t>(36));
        QCOMPARE(byteSize(DType::Q4_0, 48), std::nullopt);
        QVERIFY(dtypeInfo(DType::Q8_0).safetensorsName.empty());
        QVERIFY(knownUnsupportedGgmlTypeName(8).empty());
        QVERIFY(knownUnsupportedGgmlTypeName(12).empty());
        QCOMPARE(knownUnsupportedGgmlTypeName(10), std::string_view("Q2_K"));
        QCOMPARE(knownUnsupportedGgmlTypeName(15), std::string_view("Q8_K"));
        // The other block types: GGML numbers and sizes from ggml-common.h.
        const std::tuple<const char*, DType, uint32_t, int64_t, int64_t> rows[] = {
            {"q4_1", DType::Q4_1, 3, 32, 20},    {"q5_0", DType::Q5_0, 6, 32, 22},
            {"q5_1", DType::Q5_1, 7, 32, 24},    {"q4_k", DType::Q4_K, 12, 256, 144},
            {"q5_k", DType::Q5_K, 13, 256, 176}, {"q6_k", DType::Q6_K, 14, 256, 210}};
        for (const auto& [name, dtype, ggml, elements, blockBytes] : rows) {
            QCOMPARE(dtypeFromName(name), std::optional(dtype));
            QCOMPARE(dtypeFromGgmlType(ggml), std::optional(dtype));
            QCOMPARE(byteSize(dtype, 2 * elements), std::optional<int64_t>(2 * blockBytes));
            QCOMPARE(byteSize(dtype, elements + 32),
                     elements == 32 ? std::optional<int64_t>(2 * blockBytes) : std::nullopt);
            QVERIFY(isBlockQuantized(dtype));
        }
    }

    // Random blocks (every bit pattern, finite fp16 scales) decode to the values llama.cpp's
    // gguf-py gives: the same f32 operations in the same order, so to the last bit but for an
    // allowance of one rounding.
    void decodersMatchLlamaCppsDequantizer() {
        for (const DType dtype : kBlockTypes) {
            const QString base =
                QStringLiteral(INFERLENS_TEST_DATA "/quant/") + dtypeName(dtype).data();
            const QByteArray blocks = readFile(base + ".blocks");
            const QByteArray expectedBytes = readFile(base + ".f32");
            QVERIFY2(!blocks.isEmpty() && !expectedBytes.isEmpty(), qPrintable(base));
            const auto count = size_t(expectedBytes.size() / 4);
            const DTypeInfo& info = dtypeInfo(dtype);
            QCOMPARE(int64_t(blocks.size()), int64_t(count) / info.blockElements * info.blockBytes);
            std::vector<float> expected(count), values(count);
            std::memcpy(expected.data(), expectedBytes.constData(), count * 4);
            decodeRow(dtype, reinterpret_cast<const std::byte*>(blocks.constData()), values);
            int exact = 0;
            for (size_t i = 0; i < count; ++i) {
                QVERIFY2(std::fabs(values[i] - expected[i]) <= 1.2e-7f * std::fabs(expected[i]),
                         qPrintable(QString("%1 value %2: %3, gguf-py %4")
                                        .arg(dtypeName(dtype).data())
                                        .arg(i)
                                        .arg(values[i])
                                        .arg(expected[i])));
                exact += values[i] == expected[i];
            }
            qInfo("%s: %d of %zu values bit-identical to gguf-py", dtypeName(dtype).data(), exact,
                  count);
        }
    }

    // Every quantizer: decoding what it wrote gives the input back within the format's
    // resolution (rms error relative to the rms value, measured: q8_0 0.0094, q4_0 0.150, q4_1
    // 0.103, q5_0 0.076, q5_1 0.050, q4_k 0.104, q5_k 0.050, q6_k 0.028); and the 32-value
    // formats, as llama.cpp's, give the same bytes again for their own dequantized values (the K
    // quantizers need not: their sub-block scales are re-derived from the rounded values).
    void quantizersRoundTrip() {
        const auto x = randomValues(256 * 16, 0.05f, 9);
        double rmsValue = 0;
        for (float v : x)
            rmsValue += double(v) * v;
        rmsValue = std::sqrt(rmsValue / double(x.size()));
        for (const DType dtype : kBlockTypes) {
            const auto encoded = encode(dtype, x);
            const auto back = decode(dtype, encoded, x.size());
            double rms = 0;
            for (size_t i = 0; i < x.size(); ++i)
                rms += (double(x[i]) - back[i]) * (double(x[i]) - back[i]);
            const double relative = std::sqrt(rms / double(x.size())) / rmsValue;
            const int bits =
                dtype == DType::Q8_0                                                     ? 8
                : dtype == DType::Q6_K                                                   ? 6
                : (dtype == DType::Q5_0 || dtype == DType::Q5_1 || dtype == DType::Q5_K) ? 5
                                                                                         : 4;
            qInfo("%s: rms error / rms value = %.4f", dtypeName(dtype).data(), relative);
            // A uniform quantizer of 2^bits levels over a block's range leaves an rms error of
            // step / √12 with step = range / (2^bits − 1); range ≈ 2 · max|x| ≈ 2 · 3.5 rms for
            // these values (outliers ×9 aside): generous by a factor of three to five.
            QVERIFY2(relative < 4.0 * 7.0 / (std::exp2(bits) - 1) / std::sqrt(12.0),
                     dtypeName(dtype).data());
            QVERIFY(relative > 0);
            if (dtypeInfo(dtype).blockElements == 32)
                QCOMPARE(encode(dtype, back), encoded);
        }
    }

    // value j = d · q_j, q_j a signed byte.
    void decodesQ8_0Block() {
        auto block = bytes({0, 0, 0, 1, 0xff, 127, 0x80, 3});
        block.resize(34, std::byte{0});
        putScale(block, 0x3800);  // 0.5
        const auto values = decode(DType::Q8_0, block, 32);
        const std::vector<float> head{0.0f, 0.5f, -0.5f, 63.5f, -64.0f, 1.5f};
        QCOMPARE(std::vector<float>(values.begin(), values.begin() + 6), head);
        QCOMPARE(values[31], 0.0f);
        putScale(block, 0xb400);  // −0.25: a negative scale flips every value
        QCOMPARE(decode(DType::Q8_0, block, 32)[1], -0.25f);
        QCOMPARE(decode(DType::Q8_0, block, 32)[4], 32.0f);
    }

    // value j = d · (q_j − 8); byte j holds element j (low nibble) and element j + 16 (high).
    void decodesQ4_0BlockNibbleOrder() {
        std::vector<std::byte> block(18, std::byte{0x88});  // every element 8 − 8 = 0
        putScale(block, 0x3400);                            // 0.25
        block[2] = std::byte{0x0f};                         // element 0: 15, element 16: 0
        block[3] = std::byte{0x38};                         // element 1: 8, element 17: 3
        block[17] = std::byte{0x9a};                        // element 15: 10, element 31: 9
        const auto values = decode(DType::Q4_0, block, 32);
        QCOMPARE(values[0], 1.75f);    // (15 − 8) · 0.25
        QCOMPARE(values[16], -2.0f);   // (0 − 8) · 0.25
        QCOMPARE(values[1], 0.0f);     // (8 − 8) · 0.25
        QCOMPARE(values[17], -1.25f);  // (3 − 8) · 0.25
        QCOMPARE(values[15], 0.5f);    // (10 − 8) · 0.25
        QCOMPARE(values[31], 0.25f);   // (9 − 8) · 0.25
        QCOMPARE(values[2], 0.0f);
        putScale(block, 0xbc00);  // −1
        QCOMPARE(decode(DType::Q4_0, block, 32)[16], 8.0f);
    }

    // llama.cpp's quantize_row_q8_0_ref: d = amax / 127, q = roundf(x · (1/d)), halves away from 0.
    void encodesQ8_0LikeLlamaCpp() {
        std::vector<float> x(32, 0.0f);
        x[0] = 127.0f;  // amax 127: d = 1
        x[1] = 2.5f;    // roundf: 3 (not 2, as ties-to-even would give)
        x[2] = -2.5f;   // −3
        x[3] = 0.49f;   // 0
        x[4] = -126.5f;
        x[5] = -0.5f;
        auto expected = bytes({0x00, 0x3c, 127, 3, 0xfd, 0, 0x81, 0xff});
        expected.resize(34, std::byte{0});
        QCOMPARE(encode(DType::Q8_0, x), expected);

        // The integers come from the f32 scale d = 1 + 2^-12, although the block stores its fp16
        // rounding 1.0: 64.51 / d = 64.494 → 64, where 64.51 / 1.0 would give 65.
        std::vector<float> y(32, 0.0f);
        y[0] = 127.0f * (1.0f + 0x1.0p-12f);
        y[1] = 64.51f;
        auto expectedY = bytes({0x00, 0x3c, 127, 64});
        expectedY.resize(34, std::byte{0});
        QCOMPARE(encode(DType::Q8_0, y), expectedY);

        // All zeros: d = 0 and every q = 0 (no division by zero).
        QCOMPARE(encode(DType::Q8_0, std::vector<float>(32, 0.0f)), std::vector<std::byte>(34));
    }

    // llama.cpp's quantize_row_q4_0_ref: the signed value of largest magnitude `max` gives
    // d = max / −8, q = min(15, (int8)(x / d + 8.5)).
    void encodesQ4_0LikeLlamaCpp() {
        // max = −8: d = 1, q = trunc(x + 8.5).
        std::vector<float> x(32, 0.0f);  // 0 → q 8
        x[0] = -8.0f;                    // q 0
        x[1] = 7.6f;                     // 16.1 → 16, clamped to 15 (value 7)
        x[2] = -0.5f;                    // 8.0 → 8 (value 0: halves round up)
        x[3] = 0.5f;                     // 9.0 → 9
        x[4] = -7.51f;                   // 0.99 → 0
        x[16] = 3.0f;                    // 11.5 → 11, high nibble of byte 0
        x[17] = -3.0f;                   // 5.5 → 5
        x[31] = 0.49f;                   // 8.99 → 8
        auto expected = bytes({0x00, 0x3c, 0xb0, 0x5f, 0x88, 0x89, 0x80});
        expected.resize(18, std::byte{0x88});
        QCOMPARE(encode(DType::Q4_0, x), expected);

        // max = +8 (a positive largest value): d = −1, q = trunc(8.5 − x). −8 would need q = 16:
        // clamped to 15, it comes back as −7, an error of one step (the Q4_0 worst case).
        std::vector<float> y(32, 0.0f);
        y[0] = 8.0f;   // 0.5 → 0, value 8
        y[1] = -8.0f;  // 16.5 → 15, value −7
        y[2] = 3.0f;   // 5.5 → 5, value 3
        auto expectedY = bytes({0x00, 0xbc, 0x80, 0x8f, 0x85});
        expectedY.resize(18, std::byte{0x88});
        QCOMPARE(encode(DType::Q4_0, y), expectedY);
        const auto back = decode(DType::Q4_0, expectedY, 32);
        QCOMPARE(back[0], 8.0f);
        QCOMPARE(back[1], -7.0f);
        QCOMPARE(back[2], 3.0f);

        // Ties in magnitude: the first one sets the sign (−4 → d = 0.5, so +4 clamps to 3.5).
        std::vector<float> z(32, 0.0f);
        z[0] = -4.0f;
        z[1] = 4.0f;
        const auto tie = encode(DType::Q4_0, z);
        QCOMPARE(tie[0], std::byte{0x00});
        QCOMPARE(tie[1], std::byte{0x38});  // fp16 0.5
        QCOMPARE(decode(DType::Q4_0, tie, 32)[1], 3.5f);
    }

    // Per element: Q8_0 within d/2 and Q4_0 within d (d/2 except where +8 steps clamp to +7), plus
    // what storing d in fp16 adds (|q| · |d − fp16(d)|, q up to 127 resp. 8).
    void quantizationErrorIsBounded_data() {
        QTest::addColumn<float>("scale");
        QTest::newRow("1") << 1.0f;
        QTest::newRow("0.02") << 0.02f;
        QTest::newRow("3e-4") << 3e-4f;
    }
    void quantizationErrorIsBounded() {
        QFETCH(float, scale);
        const auto x = randomValues(32 * 64, scale, 5);
        for (const DType dtype : {DType::Q8_0, DType::Q4_0}) {
            const auto encoded = encode(dtype, x);
            const auto back = decode(dtype, encoded, x.size());
            const int64_t blockBytes = dtypeInfo(dtype).blockBytes;
            double worstRatio = 0;
            for (size_t block = 0; block < x.size() / 32; ++block) {
                float amax = 0, max = 0;
                for (size_t j = 0; j < 32; ++j)
                    if (amax < std::fabs(x[block * 32 + j]))
                        amax = std::fabs(x[block * 32 + j]), max = x[block * 32 + j];
                const double d = dtype == DType::Q8_0 ? amax / 127.0f : std::fabs(max / -8.0f);
                uint16_t bits;
                std::memcpy(&bits, encoded.data() + block * blockBytes, 2);
                const double storedD = std::fabs(halfToFloat(bits));
                const double scaleError = (dtype == DType::Q8_0 ? 127 : 8) * std::fabs(d - storedD);
                const double bound = (dtype == DType::Q8_0 ? 0.5 : 1.0) * d + scaleError + 1e-6 * d;
                for (size_t j = 0; j < 32; ++j) {
                    const double error =
                        std::fabs(double(x[block * 32 + j]) - back[block * 32 + j]);
                    QVERIFY2(error <= bound, qPrintable(QString("%1 block %2 element %3: %4 > %5")
                                                            .arg(dtypeName(dtype).data())
                                                            .arg(block)
                                                            .arg(j)
                                                            .arg(error)
                                                            .arg(bound)));
                    worstRatio = std::max(worstRatio, error / d);
                }
            }
            qInfo("%s, scale %g: worst |x − x̂| / d = %.4f", dtypeName(dtype).data(), scale,
                  worstRatio);
            // Re-quantizing dequantized values gives the same bytes (so GGUF → GGUF keeps them).
            QCOMPARE(encode(dtype, back), encoded);
        }
    }

    void partialBlocksAreRefused() {
        std::vector<std::byte> out(64);
        QVERIFY_THROWS_EXCEPTION(Error,
                                 encodeRow(DType::Q8_0, std::vector<float>(40, 1.0f), out.data()));
        std::vector<float> values(16);
        QVERIFY_THROWS_EXCEPTION(Error, decodeRow(DType::Q4_0, out.data(), values));
        std::vector<float> x(32, 1.0f);
        x[3] = NAN;
        QVERIFY_THROWS_EXCEPTION(Error, encodeRow(DType::Q4_0, x, out.data()));
    }

    // GLM splits its fused QKV bias by element ranges; in a quantized 1-D tensor a range must
    // start and end on block boundaries.
    void slicesOfQuantizedVectorsKeepWholeBlocks() {
        const auto values = randomValues(96, 1.0f, 3);
        const auto encoded = encode(DType::Q4_0, values);
        const TensorView vector{"bias", DType::Q4_0, {96}, encoded.data(), int64_t(encoded.size())};
        const TensorView part = vector.slice(32, 64);
        QCOMPARE(part.data, encoded.data() + 18);
        QCOMPARE(part.byteCount, int64_t(36));
        std::vector<float> decoded(64);
        decodeRow(part.dtype, part.data, decoded);
        const auto whole = decode(DType::Q4_0, encoded, 96);
        QCOMPARE(decoded, std::vector<float>(whole.begin() + 32, whole.end()));
        QVERIFY_THROWS_EXCEPTION(Error, vector.slice(16, 32));
    }

    void logitsMatchTheDequantizedReference_data() {
        QTest::addColumn<QString>("arch");
        QTest::addColumn<int>("headDim");
        QTest::addColumn<QString>("type");
        for (const char* arch : {"chatglm", "llama"})
            for (int headDim : {64, 128})
                for (const char* type :
                     {"q8_0", "q4_0", "q4_1", "q5_0", "q5_1", "q4_k", "q5_k", "q6_k"})
                    QTest::addRow("%s-hd%d-%s", arch, headDim, type)
                        << QString(arch) << headDim << QString(type);
    }
    void logitsMatchTheDequantizedReference() {
        QFETCH(QString, arch);
        QFETCH(int, headDim);
        QFETCH(QString, type);
        const DType dtype = *dtypeFromName(type.toStdString());
        QTemporaryDir dir;
        try {
            // The K types need rows of 256 values.
            auto options = modelOptions(arch, headDim, dtype, ModelFormat::Gguf);
            if (dtypeInfo(dtype).blockElements == 256)
                options.ffn = 512;
            const auto quantized = test::writeSynthetic(dir, "q.gguf", options);
            const ModelFiles files = openModelFiles(quantized);
            QCOMPARE(files.tensors.at("blk.1.ffn_down.weight").dtype, dtype);
            QCOMPARE(files.tensors.at("token_embd.weight").dtype, dtype);
            QCOMPARE(files.tensors.at("blk.0.attn_norm.weight").dtype, DType::F32);

            // Without --dtype, a quantized GGUF becomes an f32 directory: exact dequantization.
            const auto dequantized = dir.filePath("hf").toStdString();
            convertModel(files, ModelFormat::HuggingFace, std::nullopt, dequantized);
            QCOMPARE(openModelFiles(dequantized).tensors.at("blk.1.ffn_down.weight").dtype,
                     DType::F32);

            const auto ids = test::testIds(kTokens, kVocab);
            const auto logits = test::engineLogits(quantized, ids);
            const double error = test::normalisedError(
                logits, flatten(reference::referenceLogits(dequantized, ids)));

            options.dtype = DType::F32;
            const auto original = test::writeSynthetic(dir, "f32.gguf", options);
            const double quantizationError =
                test::normalisedError(logits, test::engineLogits(original, ids));
            qInfo("%s: vs reference on dequantized weights %.3g; vs f32 model %.3g",
                  QTest::currentDataTag(), error, quantizationError);
            QVERIFY(error < kToleranceVsDequantized);
            QVERIFY(quantizationError > 0);
            QVERIFY(quantizationError < toleranceVsF32(dtype));

            // Converting the f32 model gives the bytes synth wrote, and converting the quantized
            // GGUF to GGUF again changes nothing.
            const auto converted = dir.filePath("converted.gguf").toStdString();
            convertModel(openModelFiles(original), ModelFormat::Gguf, dtype, converted);
            const auto again = dir.filePath("again.gguf").toStdString();
            convertModel(files, ModelFormat::Gguf, std::nullopt, again);
            const ModelFiles convertedFiles = openModelFiles(converted);
            const ModelFiles againFiles = openModelFiles(again);
            for (const auto& [name, tensor] : files.tensors) {
                QCOMPARE(tensorBytes(convertedFiles, name), tensorBytes(files, name));
                QCOMPARE(tensorBytes(againFiles, name), tensorBytes(files, name));
            }
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
    }

    void safetensorsRefusesQuantizedTypes() {
        QTemporaryDir dir;
        auto options = modelOptions("llama", 64, DType::Q8_0, ModelFormat::HuggingFace);
        try {
            test::writeSynthetic(dir, "hf", options);
            QFAIL("a Q8_0 Hugging Face directory was written");
        } catch (const Error& e) {
            QVERIFY2(QString(e.what()).contains("Q8_0 cannot be stored in safetensors"), e.what());
        }
        QVERIFY(!QFile::exists(dir.filePath("hf")));
    }

    void rowsThatAreNotWholeBlocksAreRefused() {
        QTemporaryDir dir;
        auto options = modelOptions("chatglm", 64, DType::Q4_0, ModelFormat::Gguf);
        options.ffn = 100;
        try {
            test::writeSynthetic(dir, "m.gguf", options);
            QFAIL("a Q4_0 tensor with 100-value rows was written");
        } catch (const Error& e) {
            const QString message = e.what();
            QVERIFY2(
                message.contains("blk.0.ffn_down.weight [256, 100]") && message.contains("q4_0"),
                e.what());
        }
        QVERIFY(!QFile::exists(dir.filePath("m.gguf")));
    }

    void cliSynthInfoLogits() {
        QTemporaryDir dir;
        const QString model = dir.filePath("m.gguf");
        auto result = test::runCli(
            {"synth", "--dtype", "q4_0", "--hidden", "64", "--ffn", "96", "--out", model});
        QVERIFY2(result.exitCode == 0, qPrintable(result.standardError));
        result = test::runCli({"info", "--model", model});
        QVERIFY2(result.exitCode == 0, qPrintable(result.standardError));
        const QString& text = result.standardOutput;
        QVERIFY(text.contains(QRegularExpression("blk\\.0\\.attn_q\\.weight +q4_0 +\\[64, 64\\]")));
        QVERIFY(text.contains("f32 × 5 q4_0 × 16"));  // norms stay f32; every matrix is q4_0
        QVERIFY(text.contains("valid: yes"));

        const QString npy = dir.filePath("logits.npy");
        result = test::runCli({"logits", "--model", model, "--ids", "3,40,41", "--out", npy});
        QVERIFY2(result.exitCode == 0, qPrintable(result.standardError));
        std::vector<int64_t> shape;
        QCOMPARE(test::readNpyFloat32(npy.toStdString(), shape),
                 test::engineLogits(model.toStdString(), {3, 40, 41}));
    }

    void cliRefusals_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QStringList>("keywords");
        QTest::newRow("convert q8_0 to hf")
            << QStringList{"convert", "--model", "MODEL", "--format", "hf",
                           "--dtype", "q8_0",    "--out", "OUT"}
            << QStringList{"Q8_0 cannot be stored in safetensors", "--format gguf"};
        QTest::newRow("synth q4_0 as hf")
            << QStringList{"synth", "--dtype", "q4_0", "--format", "hf", "--out", "OUT"}
            << QStringList{"Q4_0 cannot be stored in safetensors"};
        QTest::newRow("synth q8_0 with 100-value rows")
            << QStringList{"synth", "--dtype", "q8_0", "--ffn", "100", "--out", "OUT"}
            << QStringList{"blk.0.ffn_down.weight", "[64, 100]", "q8_0"};
        QTest::newRow("a Q2_K tensor")
            << QStringList{"info", "--model", "Q2K"}
            << QStringList{"blk.0.ffn_down.weight", "Q2_K", "not support"};
    }
    void cliRefusals() {
        QFETCH(QStringList, arguments);
        QFETCH(QStringList, keywords);
        QTemporaryDir dir;
        const QString model = dir.filePath("m.gguf");
        QCOMPARE(test::runCli({"synth", "--dtype", "q8_0", "--out", model}).exitCode, 0);
        arguments.replaceInStrings("OUT", dir.filePath("out"));
        arguments.replaceInStrings("MODEL", model);
        if (arguments.contains("Q2K")) {
            // The same file with one tensor's type field set to Q2_K (10).
            QFile file(model);
            QVERIFY(file.open(QIODevice::ReadWrite));
            QByteArray data = file.readAll();
            const QByteArray name = "blk.0.ffn_down.weight";
            const qsizetype dims = data.indexOf(name) + name.size();
            uint32_t dimCount;
            std::memcpy(&dimCount, data.constData() + dims, 4);
            const uint32_t q2k = 10;
            std::memcpy(data.data() + dims + 4 + 8 * dimCount, &q2k, 4);
            file.seek(0);
            file.write(data);
            file.close();
            arguments.replaceInStrings("Q2K", model);
        }
        const auto result = test::runCli(arguments);
        QCOMPARE(result.exitCode, 1);
        for (const QString& keyword : keywords)
            QVERIFY2(result.standardError.contains(keyword), qPrintable(result.standardError));
        QVERIFY(!QFile::exists(dir.filePath("out")));
    }
};

QTEST_APPLESS_MAIN(TestQuantized)
#include "test_quantized.moc"
