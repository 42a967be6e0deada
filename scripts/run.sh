#!/usr/bin/env bash
# The main job, from nothing: install what is missing, build, and run InferLens on the bundled
# model (resources/models/inferlens-nano, a miniature ChatGLM2 trained by tools/train_nano):
# describe it, show how a question is tokenized, and let it answer in the chat template.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
cli="${INFERLENS_BUILD_DIR:-$root/build}/app/cli/inferlens-cli"

# No --model: every command finds the bundled model by itself.
"$cli" info
"$cli" tokenize --text "《春晓》"
printf '%s\n' "《春晓》" "背一首李白的诗。" "Tell me a fortune." |
    "$cli" chat --temperature 0 --max-tokens 120
