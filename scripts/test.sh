#!/usr/bin/env bash
# Install what is missing, build (CUDA backend included whenever nvcc exists), and run every test.
# Tests need no display (QT_QPA_PLATFORM=offscreen) and no GPU (GPU tests skip with a message).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${INFERLENS_BUILD_DIR:-$root/build}"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" -DINFERLENS_TESTS=ON
export QT_QPA_PLATFORM=offscreen
ctest --test-dir "$build" --output-on-failure --timeout 900
