#!/usr/bin/env bash
# The desktop app's longest UI-thread stall during a generation (StallMonitor: the largest gap
# between 10 ms timer ticks), run headless on a synthetic model with ChatGLM2-6B's attention shape
# — 28 layers × 32 heads, 2 KV groups, 65,024-entry vocabulary — but narrow matrices (hidden 512),
# so that a CPU generates in minutes while the GUI's per-token work (heat map, 32 small multiples,
# the 896-head overview, every panel) is at full size.
#
# Usage: bench/ui_stall.sh [TOKENS=300] [RUNS=3]   (after ./scripts/build.sh)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${INFERLENS_BUILD_DIR:-$root/build}"
tokens="${1:-300}"
runs="${2:-3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$build/app/cli/inferlens-cli" synth --out "$work/glm28.gguf" --arch chatglm --layers 28 \
    --hidden 512 --heads 32 --kv-heads 2 --ffn 1024 --vocab 65024 --ctx 2048 --dtype f16 >/dev/null
stalls=()
for run in $(seq "$runs"); do
    SECONDS=0
    line=$(XDG_CONFIG_HOME="$work/config" QT_QPA_PLATFORM=offscreen \
        "$build/app/gui/inferlens" --model "$work/glm28.gguf" --max-tokens "$tokens" \
        --prompt "Tell me a long story about the sea." --quit-after-generation 2>/dev/null | tail -1)
    echo "run $run: $line (${SECONDS} s)"
    stalls+=("$(echo "$line" | sed -n 's/.*longest UI stall \([0-9.]*\) ms.*/\1/p')")
done
printf '%s\n' "${stalls[@]}" | sort -n | awk '{ v[NR] = $1 } END {
    printf "median longest UI stall over %d runs: %.1f ms\n", NR, (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
