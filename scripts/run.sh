#!/usr/bin/env bash
# The main job, from nothing: install what is missing, build, and run InferLens on a model.
# Until the bundled nano model exists (a later issue), the job synthesizes a small random-weight
# model with ChatGLM2's architecture and tokenizer layout, validates it, computes logits, and
# generates from it (random weights: the text is gibberish, the machinery is real).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
cli="${INFERLENS_BUILD_DIR:-$root/build}/app/cli/inferlens-cli"
work="${INFERLENS_BUILD_DIR:-$root/build}/demo"
mkdir -p "$work"

"$cli" synth --arch chatglm --layers 4 --hidden 256 --heads 8 --kv-heads 2 --ffn 688 \
  --vocab 2048 --ctx 2048 --dtype f16 --seed 42 --out "$work/glm-demo.gguf"
"$cli" info --model "$work/glm-demo.gguf"
# [gMASK] sop and a few pieces, exactly as given (no prefix added).
"$cli" logits --model "$work/glm-demo.gguf" --ids 2040,2042,300,301,302,303 --out "$work/logits.npy"
"$cli" tokenize --model "$work/glm-demo.gguf" --text "the world"
"$cli" generate --model "$work/glm-demo.gguf" --prompt "the world" --max-tokens 24 --seed 1
echo
