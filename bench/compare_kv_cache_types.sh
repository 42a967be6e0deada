#!/usr/bin/env bash
# The CPU's KV cache stored as f32, f16 and int8, and a sliding window, side by side: for each
# prompt length, `inferlens-cli bench` runs with each --kv-type in turn, RUNS times each, and the
# medians of prefill tokens/s, decode tokens/s, the KV cache's bytes and peak memory are printed
# as a Markdown table. Then the longest length once more with a sliding window of WINDOW tokens
# (4 sinks), whose cache stays at the window's size however long the sequence.
#
# The model is synthetic, with TinyLlama-1.1B's attention (32 query heads of 64, 4 KV heads,
# hidden 2048) in 8 layers, f16 weights, a feed-forward of 256 and a 320-token vocabulary: its
# KV cache per token is TinyLlama's per layer, and attention is a large share of the work.
#
# usage: bench/compare_kv_cache_types.sh [BUILD_DIR] [RUNS] [THREADS] [WINDOW] [LENGTHS...]
#        (defaults: build 3 2 512 512 2048)
set -euo pipefail

build=${1:-build}
runs=${2:-3}
threads=${3:-2}
window=${4:-512}
shift $(($# < 4 ? $# : 4))
lengths=("$@")
[ ${#lengths[@]} -gt 0 ] || lengths=(512 2048)

cli="$build/app/cli/inferlens-cli"
[ -x "$cli" ] || { echo "no $cli: build first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
model="$work/kv-shape.gguf"
"$cli" synth --out "$model" --arch llama --layers 8 --hidden 2048 --heads 32 --kv-heads 4 \
    --ffn 256 --vocab 320 --ctx 4096 --dtype f16 > /dev/null

field() { sed -E "s/.*\"$1\":([0-9.eE+-]+).*/\1/"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

run() {  # name, extra bench arguments...
    local name=$1
    shift
    "$cli" bench --model "$model" --gen-tokens 32 --threads "$threads" --json "$@" \
        >> "$work/$name.json"
}
row() {  # name, label
    local file="$work/$1.json"
    printf '| %s | %.0f | %.1f | %.1f | %.0f |\n' "$2" \
        "$(field prefill_tokens_per_s < "$file" | median)" \
        "$(field decode_tokens_per_s < "$file" | median)" \
        "$(field kv_cache_bytes_used < "$file" | median | awk '{ print $1 / 1e6 }')" \
        "$(field peak_rss_mb < "$file" | median)"
}

echo "| prompt tokens, cache | prefill tokens/s | decode tokens/s (31 after the prompt) | KV cache used, MB | peak RSS, MB |"
echo "|---|---|---|---|---|"
for length in "${lengths[@]}"; do
    for _ in $(seq "$runs"); do
        for type in f32 f16 int8; do
            run "$length-$type" --prompt-tokens "$length" --ctx-size $((length + 64)) --kv-type "$type"
        done
    done
    for type in f32 f16 int8; do
        row "$length-$type" "$length, $type"
    done
done
longest=${lengths[-1]}
for _ in $(seq "$runs"); do
    for type in f32 int8; do
        run "window-$type" --prompt-tokens "$longest" --window "$window" --sinks 4 --kv-type "$type"
    done
done
for type in f32 int8; do
    row "window-$type" "$longest, $type, window $window + 4 sinks"
done
