#!/usr/bin/python3
"""Trains the nano model's sentencepiece tokenizer the way ChatGLM2's was made.

BPE with byte fallback; text is kept as written (identity normalization, spaces not collapsed) so
full-width punctuation survives; newlines never reach the trainer (it reads line by line), so "\\n"
is the byte piece <0x0A>, as in ChatGLM2. unk/bos/eos are ids 0/1/2. ChatGLM's specials ([MASK],
[gMASK], [sMASK], sop, eop) are not pieces: the engine and train.py append them after the last piece.
"""
import os
import sys

import sentencepiece as spm

VOCAB_SIZE = 4000


def main(work_dir):
    spm.SentencePieceTrainer.train(
        input=os.path.join(work_dir, "tokenizer_corpus.txt"),
        model_prefix=os.path.join(work_dir, "tokenizer"),
        model_type="bpe",
        vocab_size=VOCAB_SIZE,
        character_coverage=0.995,  # the rarest characters fall back to bytes
        byte_fallback=True,
        normalization_rule_name="identity",
        remove_extra_whitespaces=False,
        add_dummy_prefix=True,
        split_digits=True,
        max_sentence_length=4096,
        num_threads=2,
        minloglevel=2,
    )
    sp = spm.SentencePieceProcessor(model_file=os.path.join(work_dir, "tokenizer.model"))
    print(f"tokenizer: {sp.get_piece_size()} pieces; '床前明月光，疑是地上霜。' ->",
          sp.encode("床前明月光，疑是地上霜。", out_type=str))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/train_nano")
