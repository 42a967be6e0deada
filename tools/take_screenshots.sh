#!/usr/bin/env bash
# The README's screenshots, taken of the desktop app in a real X server (Xvfb) of each screen size,
# with a fresh home (no saved layout), so that each shows the default layout of its workspace.
#   tools/take_screenshots.sh [build dir] [workspaces|features|all]   (defaults: build, all)
# workspaces: every workspace at 1366×768 and 1920×1080 in English, the Sampling lab and Attention
#   in Simplified Chinese (docs/workspace-<name>-<size>-<language>.png), on the bundled model.
# features: each feature the README shows, in the workspace that shows it (docs/<feature>.png);
#   the real-model ones are skipped, saying so, when the model is not in .cache/models/
#   (scripts/get-model.sh fetches it).
# Look at each image before committing it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
app="${1:-$root/build}/app/gui/inferlens"
what="${2:-all}"
case "$what" in
  workspaces | features | all) ;;
  *) echo "usage: tools/take_screenshots.sh [build dir] [workspaces|features|all]" >&2; exit 2 ;;
esac
command -v Xvfb > /dev/null || { echo "take_screenshots: needs Xvfb (apt install xvfb)" >&2; exit 1; }

shoot() {  # name size workspace language question tokens [extra switches...]
  local name=$1 size=$2 workspace=$3 language=$4 question=$5 tokens=$6
  shift 6
  local home display_file display server
  home="$(mktemp -d)"
  display_file="$home/display"
  Xvfb -displayfd 3 -screen 0 "${size}x24" -nolisten tcp 3> "$display_file" 2> /dev/null &
  server=$!
  for _ in $(seq 50); do [ -s "$display_file" ] && break; sleep 0.1; done
  display=":$(cat "$display_file")"
  local out="$root/docs/$name.png"
  DISPLAY="$display" HOME="$home" "$app" --lang "$language" --workspace "$workspace" \
    --prompt "$question" --max-tokens "$tokens" "$@" --screenshot "$out" \
    --quit-after-generation > "$home/log" 2>&1 || { cat "$home/log" >&2; kill "$server"; exit 1; }
  kill "$server"
  wait "$server" 2> /dev/null || true
  rm -rf "$home"
  echo "wrote $out"
}

shoot_workspace() {  # size workspace language question tokens [extra switches...]
  shoot "workspace-$2-$1-$3" "$@"
}

shoot_with_model() {  # model file, then shoot's arguments
  local model="$root/.cache/models/$1"
  shift
  if [ -f "$model" ]; then
    shoot "$@" --model "$model"
  else
    echo "skipped $1: $model is absent (scripts/get-model.sh fetches it)" >&2
  fi
}

if [ "$what" != features ]; then
  for size in 1366x768 1920x1080; do
    shoot_workspace "$size" chat en "Tell me a fortune." 40
    shoot_workspace "$size" sampling en "Tell me a fortune." 4
    shoot_workspace "$size" attention en "Tell me a fortune." 40
    shoot_workspace "$size" teaching en "Tell me a fortune." 40 --logit-lens
  done
  shoot_workspace 1366x768 sampling zh_CN "《春晓》的作者是谁？" 2
  shoot_workspace 1366x768 attention zh_CN "《春晓》的作者是谁？" 40
fi

if [ "$what" != workspaces ]; then
  poem="请写一首关于春天的长诗。"
  shoot kv-window-en 1366x768 attention en "$poem" 160 --kv-type int8 --window 16 --sinks 4
  shoot kv-int8-zh_CN 1920x1080 sampling zh_CN "$poem" 160 --kv-type int8 --compare-cache
  shoot beam-tree-en 1920x1080 sampling en "《春晓》" 8 --beams 3
  shoot grammar-json-en 1366x768 sampling en "Describe a person." 60 \
    --grammar "$root/docs/examples/person.json"
  shoot teaching-tour-zh_CN 1366x768 teaching zh_CN "《春晓》" 24 --tour-step 12
  shoot teaching-lens-en 1366x768 teaching en "Tell me a fortune." 24 --logit-lens \
    --panels logitLensDock
  shoot teaching-kv-en 1366x768 teaching en "《春晓》" 24 --kv-experiment 256 \
    --panels kvExperimentDock
  shoot attention-kernels-zh_CN 1366x768 teaching zh_CN "《春晓》" 24 --attention-kernels \
    --panels attentionKernelsDock
  shoot_with_model SmolLM2-135M-Instruct.Q4_1.gguf smollm2-chat-en 1366x768 chat en \
    "What is the capital of France? Answer in two sentences." 60
  # 26 sentences and the question: 685 tokens, past the 512-position window of Gemma 3's local
  # layers, such as layer 0, which the heat map shows first.
  story="$(for _ in $(seq 26); do
    printf '%s ' "The river flows past the old mill, where the miller grinds wheat into flour every morning before the sun rises over the hills."
  done)Summarise the story in one sentence."
  shoot_with_model gemma-3-270m-q4_k_m.gguf gemma3-local-window-en 1366x768 attention en \
    "$story" 12
fi
