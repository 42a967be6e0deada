#!/usr/bin/env bash
# The main job, from nothing: install what is missing, build, and run InferLens on the bundled
# model (resources/models/inferlens-nano, a miniature ChatGLM2 trained by tools/train_nano).
# With a display: the desktop app, a first question typed in, ready to send. Without one: describe
# the model, show how a question is tokenized, let it answer in the chat template, then save a
# screenshot of the desktop app answering (drawn offscreen).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
build="${INFERLENS_BUILD_DIR:-$root/build}"
cli="$build/app/cli/inferlens-cli"
gui="$build/app/gui/inferlens"
# A question the bundled model was trained on (问：《title》的作者是谁？), and answers right.
question="《春晓》的作者是谁？"

# No --model: both programs find the bundled model by themselves.
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  echo "run.sh: opening the desktop app on the bundled model; the question \"$question\" is typed in, press Send"
  exec "$gui" --ask "$question"
fi

"$cli" info
"$cli" tokenize --text "《春晓》"
printf '%s\n' "《春晓》" "背一首李白的诗。" "Tell me a fortune." |
    "$cli" chat --temperature 0 --max-tokens 120

# The build directory is ignored by git: the screenshot stays out of the working tree's changes.
screenshot="$build/run-screenshot.png"
echo "run.sh: no display (neither DISPLAY nor WAYLAND_DISPLAY is set); drawing the desktop app offscreen"
# Qt's offscreen platform warns about what it cannot do (window size hints): its messages go to a
# log, shown only if the run fails.
log="$build/run-screenshot.log"
if ! QT_QPA_PLATFORM=offscreen "$gui" --prompt "$question" --max-tokens 40 --window-size 1366x768 \
    --screenshot "$screenshot" --quit-after-generation 2> "$log"; then
  cat "$log" >&2
  exit 1
fi
echo "run.sh: a screenshot of the desktop app answering \"$question\" is in $screenshot"
