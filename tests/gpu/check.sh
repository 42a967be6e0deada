#!/usr/bin/env bash
# The CUDA backend's proof on a real GPU, in a few minutes: configure and build the engine, the
# CLI and the GPU tests with CUDA for this machine's GPU (no Qt), run the tests, then a first
# benchmark on synthetic full-size shapes whose weights are generated in GPU memory, and print a
# short table.
#
# Needs: the NVIDIA driver, the CUDA toolkit (nvcc), CMake ≥ 3.25, ninja, a C++20 compiler and
# python3. No network and none of our Debian packages: the libraries the engine links
# (sentencepiece, nlohmann-json) come as .deb files from tools/fetch_gpu_build_debs.sh, kept in
# .gpu-debs/ and unpacked here with `dpkg -x` into a private prefix, unless the system has them.
#
#   tests/gpu/check.sh [--quick]     (--quick: the tests and one benchmark row)
# Environment: INFERLENS_GPU_BUILD_DIR (default build-gpu), INFERLENS_CUDA_ARCHITECTURES (default
# native: this machine's GPU), OUT (if set, the logs and results are copied there).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${INFERLENS_GPU_BUILD_DIR:-$root/build-gpu}"
quick=0
[[ "${1:-}" == "--quick" ]] && quick=1
log() { printf '\n== %s (%ss)\n' "$*" "$SECONDS"; }
export PATH="$PATH:/usr/local/cuda/bin"

log "GPU"
nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader
nvcc --version | tail -2

# No libcurl there (none of our packages): the engine is built for local models only.
cmake_args=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DINFERLENS_CUDA=ON -DINFERLENS_GUI=OFF -DINFERLENS_REMOTE=OFF
  -DINFERLENS_TESTS=ON -DINFERLENS_QT_TESTS=OFF -DINFERLENS_BENCH=OFF
  -DCMAKE_CUDA_ARCHITECTURES="${INFERLENS_CUDA_ARCHITECTURES:-native}")
if ! pkg-config --exists sentencepiece libpcre2-8 2>/dev/null; then
  prefix="${TMPDIR:-/tmp}/inferlens-gpu-prefix"
  debs=("$root"/.gpu-debs/*.deb)
  if [[ ! -e "${debs[0]}" ]]; then
    echo "check.sh: sentencepiece or PCRE2 is not installed and .gpu-debs/ is empty:" \
         "run tools/fetch_gpu_build_debs.sh on a machine with apt first" >&2
    exit 1
  fi
  log "unpacking ${#debs[@]} .deb files into $prefix"
  rm -rf "$prefix"
  for deb in "${debs[@]}"; do dpkg -x "$deb" "$prefix"; done
  libdir="$prefix/usr/lib/x86_64-linux-gnu"
  export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  cmake_args+=(-DCMAKE_PREFIX_PATH="$prefix/usr" -DPKG_CONFIG_EXECUTABLE=/nonexistent
    "-DCMAKE_EXE_LINKER_FLAGS=-Wl,-rpath-link,$libdir -Wl,-rpath,$libdir")
fi

log "configure and build"
cmake -S "$root" -B "$build" "${cmake_args[@]}" > "$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; exit 1; }
ninja -C "$build" inferlens-cli test_cuda_ops test_cuda_forward | tail -1

log "GPU tests"
status=0
for test in test_cuda_ops test_cuda_forward; do
  "$build/tests/gpu/$test" 2>&1 | tee "$build/$test.log" || status=1
  # Here a skip means the GPU is not usable: that proves nothing.
  grep -q '^SKIP   :' "$build/$test.log" && status=1
done

log "benchmarks (synthetic weights generated on the GPU; prompt 512, 64 new tokens)"
cli="$build/app/cli/inferlens-cli"
runs=("chatglm2-6b f16" "chatglm2-6b q4_0" "tinyllama-1.1b f16" "chatglm2-6b f16 --capture-attention")
((quick)) && runs=("chatglm2-6b f16")
results="$build/bench.jsonl"
: > "$results"
for run in "${runs[@]}"; do
  read -r shape dtype extra <<< "$run"
  "$cli" bench --synth "$shape" --dtype "$dtype" --device cuda --prompt-tokens 512 \
    --gen-tokens 64 --ctx-size 1024 ${extra:-} --json | tee -a "$results" || status=1
done
python3 - "$results" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
print("\n| model | device | prefill 512 tok/s | decode tok/s | TTFT ms | attention capture |")
print("|---|---|---|---|---|---|")
for r in rows:
    print(f"| {r['model']} | {r['device']} | {r['prefill_tokens_per_s']:.0f} | "
          f"{r['decode_tokens_per_s']:.1f} | {r['ttft_ms']:.1f} | "
          f"{'all heads' if r['attention_capture'] else 'off'} |")
PY

if [[ -n "${OUT:-}" ]]; then
  cp "$build"/test_cuda_*.log "$results" "$OUT"/ 2>/dev/null || true
fi
log "done: $([[ $status == 0 ]] && echo 'all passed' || echo 'FAILURES above')"
exit $status
