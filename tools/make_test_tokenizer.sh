#!/bin/sh
# Trains the sentencepiece model that the tokenizer tests use (tests/data/tokenizer/test.model)
# from the hand-written corpus next to it. The settings copy what LLaMA's and ChatGLM2's
# tokenizer.model use where it matters for encoding and decoding: BPE, byte fallback (ids 3..258
# are the 256 byte pieces), identity normalisation, a dummy-prefix space, whitespace kept as it is.
# Needs spm_train (Debian package `sentencepiece`). The output is deterministic for a given
# corpus and sentencepiece version (one thread, no sampling of sentences); the committed model
# was made with sentencepiece 0.1.97. Re-training changes ids, so the known encodings in
# tests/test_tokenizer.cpp and tests/test_chat_template.cpp must then be re-derived and checked
# by hand (see tests/data/tokenizer/README.md).
set -eu
data="$(cd "$(dirname "$0")/../tests/data/tokenizer" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Relative names: the model records its input and prefix, and should not record a temporary path.
cp "$data/corpus.txt" "$work/corpus.txt"
cd "$work"
spm_train \
    --input=corpus.txt \
    --model_prefix=test \
    --model_type=bpe \
    --vocab_size=2000 \
    --byte_fallback=true \
    --character_coverage=0.9995 \
    --normalization_rule_name=identity \
    --remove_extra_whitespaces=false \
    --add_dummy_prefix=true \
    --split_digits=true \
    --allow_whitespace_only_pieces=true \
    --num_threads=1 \
    --minloglevel=1
cp "$work/test.model" "$data/test.model"
echo "wrote $data/test.model ($(wc -c < "$data/test.model") bytes)"
