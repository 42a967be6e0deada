#!/usr/bin/env bash
# Configures and builds InferLens into build/ (or $INFERLENS_BUILD_DIR). Extra arguments go to cmake.
# The CUDA backend is compiled whenever nvcc is found (INFERLENS_CUDA=AUTO).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${INFERLENS_BUILD_DIR:-$root/build}"
cmake -S "$root" -B "$build" -G Ninja "$@"
cmake --build "$build" --parallel "$(nproc)"
