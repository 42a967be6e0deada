#!/usr/bin/env bash
# Builds the fuzz targets in the sanitizer build (CMake preset asan: clang, libFuzzer's coverage,
# ASan and UBSan; the same tree in which scripts/test-sanitizers.sh runs the suite, so CI compiles
# the engine under the sanitizers once) and runs each for a bounded time, then prints executions
# and findings per target.
#
#   tests/fuzz/run.sh [SECONDS_PER_TARGET] [TARGET ...]     (default 20 s; targets: all)
#
# New inputs that reach new code go to build-asan/corpus/<target> (never into the repository; copy
# the useful ones to tests/fuzz/corpus/<target>/ by hand). A crash leaves its input in
# build-asan/crashes/<target>/: fix the cause, then add the input to tests/data/bad/<target>/, where
# the replay tests (ctest -R fuzz_) keep it passing. Needs clang with its libFuzzer runtime.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$root/build-asan"  # the asan preset's binaryDir
seconds="${1:-20}"
shift || true
targets=("$@")
((${#targets[@]})) ||
  targets=(gguf safetensors torch_checkpoint config_json vocabulary tokenizer chat_template grammar bpe_vocabulary tokenizer_json jinja trace)

(cd "$root" && cmake --preset asan) > "$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
ninja -C "$build" "${targets[@]/#/fuzz_}" | tail -1

# One fuzzer per core at a time (libFuzzer runs on one thread); each writes its result line to its
# own file, read back in the targets' order for the summary.
fuzz_one() {
  local name="$1" log="$build/fuzz_$1.log" result
  mkdir -p "$build/corpus/$name" "$build/crashes/$name"
  local seeds=("$root/tests/fuzz/corpus/$name")
  [[ -d "$root/tests/data/bad/$name" ]] && seeds+=("$root/tests/data/bad/$name")
  if "$build/tests/fuzz/fuzz_$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
      -print_final_stats=1 -artifact_prefix="$build/crashes/$name/" \
      "$build/corpus/$name" "${seeds[@]}" > "$log" 2>&1; then
    result="ok"
  else
    result="FAILED (see $log)"
    grep -E "ERROR|runtime error|deadly|Test unit written" "$log" | head -5 || true
  fi
  local runs
  runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  echo "| fuzz_$name | $seconds | $runs | $result |" > "$build/fuzz_$name.result"
}

parallel="$(nproc)"
rm -f "$build"/fuzz_*.result
for name in "${targets[@]}"; do
  echo "== fuzz_$name for ${seconds}s"
  fuzz_one "$name" &
  while (($(jobs -rp | wc -l) >= parallel)); do wait -n || true; done
done
wait

status=0
summary=""
for name in "${targets[@]}"; do
  line="$(cat "$build/fuzz_$name.result" 2> /dev/null ||
    echo "| fuzz_$name | $seconds | ? | FAILED (no result: see $build/fuzz_$name.log) |")"
  [[ "$line" == *"| ok |" ]] || status=1
  summary+="$line"$'\n'
done
printf '\n| target | seconds | executions | result |\n|---|---|---|---|\n%s' "$summary"
exit $status
