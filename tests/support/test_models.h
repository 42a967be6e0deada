#pragma once
// Helpers shared by the tests: synthetic models in temporary directories, engine logits, the
// normalised error used for every numerical comparison, and running inferlens-cli.

#include <QString>
#include <QTemporaryDir>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "convert/synthetic_model.h"
#include "models/model_config.h"
#include "sampling/sampling_params.h"

namespace inferlens::test {

// Writes a synthetic model into `dir` under `name` and returns its path.
std::string writeSynthetic(const QTemporaryDir& dir, const std::string& name,
                           const SyntheticModelOptions& options);

// Logits of every position, row-major [ids.size(), vocab], from the engine's generator.
std::vector<float> engineLogits(const std::string& modelPath, const std::vector<int32_t>& ids,
                                bool useKvCache = true);

// ‖a − b‖ / ‖b‖ (b is the reference).
double normalisedError(const std::vector<float>& a, const std::vector<double>& b);
double normalisedError(const std::vector<float>& a, const std::vector<float>& b);

// A sentencepiece piece as text: its "▁" marks become spaces.
std::string pieceAsText(const std::string& piece);

// Sampling parameters with every stage neutral: a draw from the softmax untouched.
SamplingParams neutralSampling(uint64_t seed = 0);

// A deterministic id sequence inside [0, vocab).
std::vector<int32_t> testIds(int64_t count, int64_t vocab, uint64_t seed = 7);

// log Σ exp over a row of logits, in double precision.
double logSumExp(std::span<const float> row);

struct CliResult {
    int exitCode = -1;
    QString standardOutput;
    QString standardError;
};
CliResult runCli(const QStringList& arguments);

// Reads a float32 .npy written by writeNpyFloat32 (shape and values); fails the test on a bad file.
std::vector<float> readNpyFloat32(const std::string& path, std::vector<int64_t>& shape);

}  // namespace inferlens::test
