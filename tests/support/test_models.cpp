#include "support/test_models.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTest>

#include <cmath>

#include "generator.h"

namespace inferlens::test {

std::string writeSynthetic(const QTemporaryDir& dir, const std::string& name,
                           const SyntheticModelOptions& options) {
    const std::string path = dir.filePath(QString::fromStdString(name)).toStdString();
    writeSyntheticModel(options, path);
    return path;
}

std::vector<float> engineLogits(const std::string& modelPath, const std::vector<int32_t>& ids,
                                bool useKvCache) {
    const Model model = Model::open(modelPath);
    GeneratorOptions options;
    options.useKvCache = useKvCache;
    Generator generator(model, options);
    // One step per id, as a decode loop would run them (the logits command runs them as one
    // prefill step; test_cli checks that both give the same numbers).
    const auto vocab = size_t(model.config().vocabSize);
    std::vector<float> logits(ids.size() * vocab);
    for (size_t i = 0; i < ids.size(); ++i)
        generator.step(std::span(ids).subspan(i, 1), std::span(logits).subspan(i * vocab, vocab));
    return logits;
}

template <typename Reference>
static double relativeError(const std::vector<float>& a, const std::vector<Reference>& b) {
    if (a.size() != b.size())
        return INFINITY;
    double difference = 0, norm = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        difference += (double(a[i]) - double(b[i])) * (double(a[i]) - double(b[i]));
        norm += double(b[i]) * double(b[i]);
    }
    return std::sqrt(difference) / std::sqrt(norm);
}

double normalisedError(const std::vector<float>& a, const std::vector<double>& b) {
    return relativeError(a, b);
}

double normalisedError(const std::vector<float>& a, const std::vector<float>& b) {
    return relativeError(a, b);
}

std::string pieceAsText(const std::string& piece) {
    std::string text;
    for (size_t at = 0; at < piece.size();)
        if (piece.compare(at, 3, "\xE2\x96\x81") == 0)
            text += ' ', at += 3;
        else
            text += piece[at++];
    return text;
}

std::vector<int32_t> testIds(int64_t count, int64_t vocab, uint64_t seed) {
    std::vector<int32_t> ids;
    uint64_t state = seed;
    for (int64_t i = 0; i < count; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        ids.push_back(int32_t((state >> 33) % uint64_t(vocab)));
    }
    return ids;
}

double logSumExp(std::span<const float> row) {
    const double peak = *std::max_element(row.begin(), row.end());
    double sum = 0;
    for (const float value : row)
        sum += std::exp(double(value) - peak);
    return peak + std::log(sum);
}

CliResult runCli(const QStringList& arguments) {
    QProcess process;
    process.start(QStringLiteral(INFERLENS_CLI_PATH), arguments);
    CliResult result;
    if (!process.waitForFinished(300000)) {
        process.kill();
        return result;
    }
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.standardOutput = QString::fromUtf8(process.readAllStandardOutput());
    result.standardError = QString::fromUtf8(process.readAllStandardError());
    return result;
}

std::vector<float> readNpyFloat32(const std::string& path, std::vector<int64_t>& shape) {
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly)) {
        QTest::qFail("cannot open .npy file", __FILE__, __LINE__);
        return {};
    }
    const QByteArray bytes = file.readAll();
    if (!bytes.startsWith("\x93NUMPY\x01\x00") || bytes.size() < 10) {
        QTest::qFail("not a version 1.0 .npy file", __FILE__, __LINE__);
        return {};
    }
    const int headerLength = uchar(bytes[8]) | (uchar(bytes[9]) << 8);
    const QString header = QString::fromLatin1(bytes.mid(10, headerLength));
    if (!header.contains("'descr': '<f4'") || !header.contains("'fortran_order': False")) {
        QTest::qFail("not a C-order float32 .npy file", __FILE__, __LINE__);
        return {};
    }
    const auto match = QRegularExpression(R"('shape': \(([0-9, ]*)\))").match(header);
    shape.clear();
    int64_t count = 1;
    for (const QString& part : match.captured(1).split(',', Qt::SkipEmptyParts)) {
        shape.push_back(part.trimmed().toLongLong());
        count *= shape.back();
    }
    const QByteArray data = bytes.mid(10 + headerLength);
    if (data.size() != count * 4) {
        QTest::qFail("the .npy data size does not match its shape", __FILE__, __LINE__);
        return {};
    }
    std::vector<float> values(static_cast<size_t>(count));
    std::memcpy(values.data(), data.constData(), data.size());
    return values;
}

SamplingParams neutralSampling(uint64_t seed) {
    SamplingParams p;
    p.temperature = 1;
    p.topK = 0;
    p.topP = 1;
    p.minP = 0;
    p.seed = seed;
    return p;
}

}  // namespace inferlens::test
