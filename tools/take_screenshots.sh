#!/usr/bin/env bash
# The README's workspace screenshots, taken of the desktop app in a real X server (Xvfb) of each
# screen size, on the bundled model, with a fresh home (no saved layout): every workspace at
# 1366×768 and 1920×1080 in English, the Sampling lab and Attention in Simplified Chinese.
#   tools/take_screenshots.sh [build dir]   (default: build)
# Writes docs/workspace-<name>-<size>-<language>.png. Look at each before committing it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
app="${1:-$root/build}/app/gui/inferlens"
command -v Xvfb > /dev/null || { echo "take_screenshots: needs Xvfb (apt install xvfb)" >&2; exit 1; }

shoot() {  # size workspace language question tokens [extra switches...]
  local size=$1 workspace=$2 language=$3 question=$4 tokens=$5
  shift 5
  local home display_file display server
  home="$(mktemp -d)"
  display_file="$home/display"
  Xvfb -displayfd 3 -screen 0 "${size}x24" -nolisten tcp 3> "$display_file" 2> /dev/null &
  server=$!
  for _ in $(seq 50); do [ -s "$display_file" ] && break; sleep 0.1; done
  display=":$(cat "$display_file")"
  local out="$root/docs/workspace-$workspace-$size-$language.png"
  DISPLAY="$display" HOME="$home" "$app" --lang "$language" --workspace "$workspace" \
    --prompt "$question" --max-tokens "$tokens" "$@" --screenshot "$out" \
    --quit-after-generation > "$home/log" 2>&1 || { cat "$home/log" >&2; kill "$server"; exit 1; }
  kill "$server"
  wait "$server" 2> /dev/null || true
  rm -rf "$home"
  echo "wrote $out"
}

for size in 1366x768 1920x1080; do
  shoot "$size" chat en "Tell me a fortune." 40
  shoot "$size" sampling en "Tell me a fortune." 4
  shoot "$size" attention en "Tell me a fortune." 40
  shoot "$size" teaching en "Tell me a fortune." 40 --logit-lens
done
shoot 1366x768 sampling zh_CN "《春晓》的作者是谁？" 2
shoot 1366x768 attention zh_CN "《春晓》的作者是谁？" 40
