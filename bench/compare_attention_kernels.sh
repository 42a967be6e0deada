#!/usr/bin/env bash
# The CPU's fused attention against the reference path at growing prompt lengths, side by side:
# for each length, `inferlens-cli bench` runs with --attention fused and --attention reference in
# turn, RUNS times each, and the medians of prefill tokens/s, decode tokens/s and peak memory are
# printed as a Markdown table.
#
# The model is synthetic, with TinyLlama-1.1B's attention (32 query heads of 64, 4 KV heads,
# hidden 2048) but 2 layers, a feed-forward of 256 and a 320-token vocabulary, so that attention
# is most of the work and a 8,192-token prefill fits in a few seconds of a small machine.
#
# usage: bench/compare_attention_kernels.sh [BUILD_DIR] [RUNS] [THREADS] [LENGTHS...]
#        (defaults: build 3 2 512 2048 8192)
set -euo pipefail

build=${1:-build}
runs=${2:-3}
threads=${3:-2}
shift $(($# < 3 ? $# : 3))
lengths=("$@")
[ ${#lengths[@]} -gt 0 ] || lengths=(512 2048 8192)

cli="$build/app/cli/inferlens-cli"
[ -x "$cli" ] || { echo "no $cli: build first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
model="$work/attention-shape.gguf"
"$cli" synth --out "$model" --arch llama --layers 2 --hidden 2048 --heads 32 --kv-heads 4 \
    --ffn 256 --vocab 320 --ctx 8320 > /dev/null

field() { sed -E "s/.*\"$1\":([0-9.eE+-]+).*/\1/"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "| prompt tokens | kernel | prefill tokens/s | decode tokens/s (16 after the prompt) | peak RSS, MB |"
echo "|---|---|---|---|---|"
for length in "${lengths[@]}"; do
    for run in $(seq "$runs"); do
        for kernel in fused reference; do
            "$cli" bench --model "$model" --prompt-tokens "$length" --gen-tokens 16 \
                --threads "$threads" --ctx-size $((length + 32)) --attention "$kernel" --json \
                >> "$work/$length-$kernel.json"
        done
    done
    for kernel in fused reference; do
        prefill=$(field prefill_tokens_per_s < "$work/$length-$kernel.json" | median)
        decode=$(field decode_tokens_per_s < "$work/$length-$kernel.json" | median)
        memory=$(field peak_rss_mb < "$work/$length-$kernel.json" | median)
        printf '| %s | %s | %.0f | %.1f | %.0f |\n' "$length" "$kernel" "$prefill" "$decode" "$memory"
    done
done
