#!/usr/bin/env bash
# Builds the fuzz targets with clang (libFuzzer; the engine under ASan and UBSan) and runs each
# for a bounded time, then prints executions and findings per target.
#
#   tests/fuzz/run.sh [SECONDS_PER_TARGET] [TARGET ...]     (default 20 s; targets: all)
#
# New inputs that reach new code go to build-fuzz/corpus/<target> (never into the repository; copy
# the useful ones to tests/fuzz/corpus/<target>/ by hand). A crash leaves its input in
# build-fuzz/crashes/<target>/: fix the cause, then add the input to tests/data/bad/<target>/, where
# the replay tests (ctest -R fuzz_) keep it passing. Needs clang with its libFuzzer runtime.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${INFERLENS_FUZZ_BUILD_DIR:-$root/build-fuzz}"
seconds="${1:-20}"
shift || true
targets=("$@")
((${#targets[@]})) ||
  targets=(gguf safetensors torch_checkpoint config_json vocabulary tokenizer chat_template grammar bpe_vocabulary tokenizer_json jinja trace)

CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DINFERLENS_FUZZ=ON -DINFERLENS_CUDA=OFF -DINFERLENS_GUI=ON -DINFERLENS_BENCH=OFF \
  -DINFERLENS_TESTS=ON > "$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
ninja -C "$build" "${targets[@]/#/fuzz_}" | tail -1

status=0
summary=""
for name in "${targets[@]}"; do
  mkdir -p "$build/corpus/$name" "$build/crashes/$name"
  seeds=("$root/tests/fuzz/corpus/$name")
  [[ -d "$root/tests/data/bad/$name" ]] && seeds+=("$root/tests/data/bad/$name")
  log="$build/fuzz_$name.log"
  echo "== fuzz_$name for ${seconds}s"
  if "$build/tests/fuzz/fuzz_$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
      -print_final_stats=1 -artifact_prefix="$build/crashes/$name/" \
      "$build/corpus/$name" "${seeds[@]}" > "$log" 2>&1; then
    result="ok"
  else
    result="FAILED (see $log)"
    status=1
    grep -E "ERROR|runtime error|deadly|Test unit written" "$log" | head -5 || true
  fi
  runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  summary+="| fuzz_$name | $seconds | $runs | $result |"$'\n'
done
printf '\n| target | seconds | executions | result |\n|---|---|---|---|\n%s' "$summary"
exit $status
