#!/usr/bin/env bash
# Writes the model files of the llama.cpp comparison (bench/compare_with_llama_cpp.sh), random
# weights from `inferlens-cli synth`, into DIR (default /tmp/inferlens-bench-models; ~8.3 GB):
#   tinyllama-{f16,bf16,q8_0,q4_0,q4_1}.gguf
#                                   TinyLlama-1.1B shape (2.2 / 2.2 / 1.17 / 0.64 / 0.7 GB)
#   tinyllama-{q4_k_m,q5_k_m}.gguf  the F16 file through llama.cpp's llama-quantize (0.67 / 0.78
#                                   GB; skipped with a note when llama-quantize is missing)
#   chatglm2-6b-q4_0.gguf           ChatGLM2-6B shape, `chatglm` architecture (3.5 GB)
# Files already there are kept.
#
# Usage: bench/make_llama_cpp_models.sh [DIR]
# Environment: INFERLENS_BUILD_DIR (default ./build), LLAMA_QUANTIZE (default: the llama-quantize
#              on PATH, else that of tools/build_llama_cpp.sh's build in .cache/llama.cpp-build)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${1:-/tmp/inferlens-bench-models}"
cli="${INFERLENS_BUILD_DIR:-$root/build}/app/cli/inferlens-cli"
[ -x "$cli" ] || { echo "make_llama_cpp_models: inferlens-cli not found at $cli" >&2; exit 1; }
mkdir -p "$dir"

tinyllama=(--arch llama --layers 22 --hidden 2048 --heads 32 --kv-heads 4 --ffn 5632 --vocab 32000
    --ctx 2048)
chatglm2=(--arch chatglm --layers 28 --hidden 4096 --heads 32 --kv-heads 2 --ffn 13696
    --vocab 65024 --ctx 2048)

synth() {  # $1 file name, then synth flags
    local out="$dir/$1"
    shift
    [ -f "$out" ] && { echo "kept $out"; return 0; }
    "$cli" synth --out "$out" "$@" >/dev/null
    echo "wrote $out"
}
for dtype in f16 bf16 q8_0 q4_0 q4_1; do
    synth "tinyllama-$dtype.gguf" "${tinyllama[@]}" --dtype "$dtype"
done
synth chatglm2-6b-q4_0.gguf "${chatglm2[@]}" --dtype q4_0

quantize="${LLAMA_QUANTIZE:-$(command -v llama-quantize || echo "$root/.cache/llama.cpp-build/bin/llama-quantize")}"
for type in Q4_K_M Q5_K_M; do
    out="$dir/tinyllama-${type,,}.gguf"
    if [ -f "$out" ]; then
        echo "kept $out"
    elif [ -x "$quantize" ]; then
        "$quantize" "$dir/tinyllama-f16.gguf" "$out" "$type" >"$dir/quantize.log" 2>&1 ||
            { echo "make_llama_cpp_models: llama-quantize failed, see $dir/quantize.log" >&2; exit 1; }
        echo "wrote $out (llama-quantize $type)"
    else
        echo "skipped $(basename "$out"): no llama-quantize at $quantize (set LLAMA_QUANTIZE to a llama.cpp llama-quantize)"
    fi
done
